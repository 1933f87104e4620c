/**
 * Opt-outs in plain words. Since April 2025 a US consumer may revoke consent "by any reasonable means", not only
 * with STOP: "Please stop texting me", "remove me", "dejen de escribirme" must opt them out too. This module reads
 * an inbound text and says whether it is an opt-out (applied exactly as STOP is, by src/inbound/receive.ts), a
 * possible one (the thread goes to the top of Chat for the owner to decide in one click), or nothing.
 *
 * Pure: no database, no domain, no I/O. The help page (ui/routes/public/help.tsx) renders its rules, word groups
 * and phrases from the lists below, so what /help publishes is what the code matches.
 *
 * How a text is read (PLAIN_RULES says it for people):
 * - Accents, capitals, apostrophes ("don't" is "dont"), punctuation, emoji and runs of spaces are dropped; full-width
 *   letters count as plain ones. Sentence marks (. , ! ? ; :) split the text into clauses first.
 * - An opt-out phrase (OPT_OUT_PHRASES) anywhere in a clause opts out, unless the word just before it in that
 *   clause is a negation ("don't stop texting me", "no dejen de escribirme"): those are only possible opt-outs.
 * - The whole text, once polite fillers (please, thanks, now, por favor...) are set aside, being one of
 *   OPT_OUT_ALONE ("stop it", "baja") opts out; being one of POSSIBLE_ALONE ("enough", "no more") is unsure.
 * - A possible-opt-out phrase (POSSIBLE_PHRASES) anywhere is unsure; so is a bare "stop" in a longer sentence,
 *   except in the near misses of STOP_NEAR_MISSES ("stop by the store", "don't stop the deals").
 */

export type PlainOutcome = "opt-out" | "possible" | "none";

/** What the matcher made of a text, and the phrase (as written in the lists below) that decided it. */
export type PlainMatch = { outcome: PlainOutcome; phrase: string | null };

export type Language = "en" | "es";
export type Phrase = { text: string; lang: Language };

/**
 * Word groups the phrases name in braces: "stop {texting} {me}" matches "stop messaging this number". A group name
 * ending in "?" may be left out ("no quiero {mas?} {mensajes}").
 */
export const WORD_GROUPS: Record<string, readonly string[]> = {
  texting: [
    "texting",
    "text",
    "txting",
    "txt",
    "messaging",
    "message",
    "msging",
    "msg",
    "sending",
    "send",
    "contacting",
    "contact",
    "bothering",
    "bother",
    "spamming",
    "spam",
    "calling",
    "call",
    "emailing",
  ],
  text: ["text", "txt", "message", "msg", "sms", "contact", "send", "bother", "spam", "call"],
  me: ["me", "us", "this number", "my number", "my phone", "my cell"],
  texts: [
    "texts",
    "text messages",
    "text",
    "messages",
    "message",
    "msgs",
    "txts",
    "sms",
    "promos",
    "promotions",
    "ads",
    "offers",
    "marketing",
  ],
  these: ["the", "these", "this", "those", "all", "all the", "all these", "all of these", "your", "any", "any more", "anymore"],
  want: ["want", "wanna", "would like", "like", "need", "wish"],
  list: [
    "list",
    "your list",
    "the list",
    "this list",
    "mailing list",
    "texting list",
    "text list",
    "sms list",
    "contact list",
    "your contact list",
    "database",
    "your database",
    "system",
    "your system",
  ],
  envien: [
    "envien",
    "envies",
    "envie",
    "manden",
    "mandes",
    "mande",
    "escriban",
    "escribas",
    "escriba",
    "contacten",
    "contactes",
    "texteen",
    "textees",
    "llamen",
    "llames",
    "molesten",
    "molestes",
  ],
  dejen: ["dejen", "deja", "dejar", "deje", "dejan", "paren", "para", "pare", "parar"],
  escribirme: [
    "escribirme",
    "enviarme",
    "mandarme",
    "molestarme",
    "contactarme",
    "textearme",
    "llamarme",
    "mensajearme",
    "enviar mensajes",
    "mandar mensajes",
    "enviarme mensajes",
    "mandarme mensajes",
  ],
  darme: ["darme", "dame", "denme", "deme", "darnos", "me doy", "me quiero dar"],
  borrenme: [
    "borrenme",
    "borrame",
    "borreme",
    "eliminenme",
    "eliminame",
    "elimineme",
    "quitenme",
    "quitame",
    "quiteme",
    "sacame",
    "saquenme",
    "saqueme",
    "excluyanme",
  ],
  borren: ["borren", "borra", "borre", "eliminen", "elimina", "elimine", "quiten", "quita", "saquen", "saca"],
  dejenme: ["dejenme", "dejame", "dejeme"],
  mas: ["mas"],
  recibir: ["recibir"],
  mensajes: ["mensajes", "mensaje", "mensajitos", "textos", "sms", "msjs", "msj", "promociones", "ofertas", "publicidad"],
  cancelar: ["cancelar", "cancela", "cancelen", "cancelo", "anular", "anulen", "anulo"],
  suscripcion: ["suscripcion", "subscripcion", "mi suscripcion", "la suscripcion", "suscripciones"],
};

/** Phrases that opt out wherever they stand in a clause (unless a negation stands just before them). */
export const OPT_OUT_PHRASES: readonly Phrase[] = [
  { lang: "en", text: "stop {texting} {me}" },
  { lang: "en", text: "stop sending {texts}" },
  { lang: "en", text: "stop {these} {texts}" },
  { lang: "en", text: "quit {texting} {me}" },
  { lang: "en", text: "dont {text} {me}" },
  { lang: "en", text: "never {text} {me}" },
  { lang: "en", text: "unsubscribe {me}" },
  { lang: "en", text: "{want} to unsubscribe" },
  { lang: "en", text: "remove {me}" },
  { lang: "en", text: "take {me} off" },
  { lang: "en", text: "leave {me} alone" },
  { lang: "en", text: "no more {texts}" },
  { lang: "en", text: "opt {me} out" },
  { lang: "en", text: "{want} to opt out" },
  { lang: "en", text: "i opt out" },
  { lang: "en", text: "delete {me}" },
  { lang: "en", text: "lose my number" },
  { lang: "en", text: "dont want {these?} {texts}" },
  { lang: "en", text: "no longer want {these?} {texts}" },
  { lang: "es", text: "no me {envien} mas" },
  { lang: "es", text: "no {envien} mas {mensajes}" },
  { lang: "es", text: "{dejen} de {escribirme}" },
  { lang: "es", text: "{darme} de baja" },
  { lang: "es", text: "{borrenme}" },
  { lang: "es", text: "{borren} mi numero" },
  { lang: "es", text: "{dejenme} en paz" },
  { lang: "es", text: "no mas {mensajes}" },
  { lang: "es", text: "no quiero {mas?} {mensajes}" },
  { lang: "es", text: "no quiero recibir" },
  { lang: "es", text: "ya no quiero {recibir?} {mas?} {mensajes}" },
  { lang: "es", text: "{cancelar} {suscripcion}" },
  { lang: "es", text: "desuscribirme" },
  { lang: "es", text: "desuscribanme" },
];

/**
 * Whole texts (polite fillers set aside) that opt out. STOP's own words are here too so "stop please" and "please
 * unsubscribe" count; STOP alone never reaches this module (the compliance words are read first).
 */
export const OPT_OUT_ALONE: readonly Phrase[] = [
  ...["stop", "stopall", "stop all", "unsubscribe", "cancel", "end", "quit", "optout", "opt out", "revoke"].map((text) => ({
    lang: "en" as const,
    text,
  })),
  ...["stop it", "stop this", "stop that", "stop {texting}", "unsub", "remove", "remove me"].map((text) => ({
    lang: "en" as const,
    text,
  })),
  ...["baja", "alto", "parar", "pare", "paren", "cancelar", "detener", "no mas"].map((text) => ({ lang: "es" as const, text })),
];

/** Whole texts (fillers set aside) that may mean stop, or may answer a question: the owner decides. */
export const POSSIBLE_ALONE: readonly Phrase[] = [
  { lang: "en", text: "enough" },
  { lang: "en", text: "no more" },
  { lang: "es", text: "basta" },
];

/** Phrases that may mean the sender wants out: the message is flagged for the owner, nobody is opted out. */
export const POSSIBLE_PHRASES: readonly Phrase[] = [
  { lang: "en", text: "unsubscribe" },
  { lang: "en", text: "opt out" },
  { lang: "en", text: "not interested" },
  { lang: "en", text: "no longer interested" },
  { lang: "en", text: "wrong number" },
  { lang: "en", text: "who is this" },
  { lang: "en", text: "how did you get my number" },
  { lang: "en", text: "too many {texts}" },
  { lang: "en", text: "spam" },
  { lang: "en", text: "scam" },
  { lang: "en", text: "report you" },
  { lang: "es", text: "baja" },
  { lang: "es", text: "no me interesa" },
  { lang: "es", text: "no estoy interesado" },
  { lang: "es", text: "no estoy interesada" },
  { lang: "es", text: "numero equivocado" },
  { lang: "es", text: "quien es" },
  { lang: "es", text: "{dejen} de" },
];

/** Polite words set aside before a whole text is compared ("stop please" is "stop"). */
export const FILLERS: readonly string[] = [
  "please",
  "pls",
  "plz",
  "now",
  "right now",
  "asap",
  "immediately",
  "already",
  "just",
  "thanks",
  "thank you",
  "thankyou",
  "thx",
  "ty",
  "ok",
  "okay",
  "hi",
  "hello",
  "hey",
  "sorry",
  "again",
  "por favor",
  "porfa",
  "gracias",
  "hola",
  "ya",
];

/** Words just before a phrase that turn it around ("don't stop texting me"): the text is only a possible opt-out. */
export const NEGATIONS: readonly string[] = [
  "dont",
  "never",
  "not",
  "cant",
  "wont",
  "didnt",
  "doesnt",
  "wouldnt",
  "shouldnt",
  "no",
  "nunca",
];

/** A "stop" in a longer sentence is unsure, except right after or before these words, where it means something else. */
export const STOP_NEAR_MISSES = {
  before: [
    "dont",
    "never",
    "cant",
    "wont",
    "not",
    "non",
    "bus",
    "pit",
    "one",
    "full",
    "last",
    "first",
    "next",
    "every",
    "each",
    "truck",
    "rest",
  ],
  after: ["by", "in", "at", "over", "off", "and", "to", "for", "light", "lights", "sign", "watch", "motion", "loss", "gap"],
} as const;

/** How the matcher reads a text, for people (the help page). */
export const PLAIN_RULES = [
  "Besides STOP and the other opt-out words, a text that asks in plain words to stop (in English or Spanish) opts the contact out exactly as STOP does: the same one confirmation, and the consent log keeps their words.",
  "A text is read ignoring capitals, accents, apostrophes (“don't” is “dont”), punctuation, emoji and extra spaces; a full stop, comma, question or exclamation mark splits it into clauses.",
  "An opt-out phrase anywhere in a clause opts out (“Hi, please stop texting me 🙏”), unless a negation stands just before it in that clause (“don't stop texting me”): that is only a possible opt-out.",
  "A whole text that, without polite words such as please, thanks, now or por favor, is one of the short opt-outs (“stop it”, “baja”) opts out; a few short answers (“enough”, “no more”) are possible opt-outs.",
  "A possible opt-out opts nobody out: its conversation goes to the top of Chat & Replies marked “Possible opt-out”, where one click opts the contact out (with the confirmation, when within 5 minutes of their text) or dismisses the mark.",
  "A “stop” inside a longer sentence is a possible opt-out, except where it means something else: “stop by the store”, “don't stop the deals”, “bus stop”. A text that fires one of your keywords is the keyword's, not an opt-out.",
] as const;

/** A text in the matcher's form: clauses of plain words. */
export function plainClauses(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’‘`´ʼ]/g, "")
    .split(/[.,!?¿¡;:\n]+/)
    .map((c) =>
      c
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim()
        .replace(/\bdo not\b/g, "dont")
        .replace(/\bcan ?not\b/g, "cant")
        .replace(/\bwill not\b/g, "wont")
        .replace(/\b(plz|pls|plse)\b/g, "please")
        .replace(/\bu\b/g, "you")
        .replace(/\bopt ?out\b/g, "opt out"),
    )
    .filter(Boolean);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A phrase as the source of a regular expression over plain words (its groups expanded, longest first). */
function source(template: string): string {
  return template
    .split(" ")
    .map((word, i) => {
      const sep = i === 0 ? "" : " ";
      const g = /^\{(\w+)(\?)?\}$/.exec(word);
      if (!g) return `${sep}${escape(word)}`;
      const alts = WORD_GROUPS[g[1]!];
      if (!alts) throw new Error(`Unknown word group {${g[1]}} in "${template}"`);
      const group = `${sep}(?:${[...alts]
        .sort((a, b) => b.length - a.length)
        .map(escape)
        .join("|")})`;
      return g[2] ? `(?:${group})?` : group;
    })
    .join("");
}

type Compiled = Phrase & { re: RegExp };
/** Anywhere in a clause, as whole words; the match's first group is what stands before it. */
const anywhere = (list: readonly Phrase[]): Compiled[] =>
  list.map((p) => ({ ...p, re: new RegExp(`(?:^|^(.*?) )${source(p.text)}(?= |$)`) }));
/** The whole text. */
const whole = (list: readonly Phrase[]): Compiled[] => list.map((p) => ({ ...p, re: new RegExp(`^${source(p.text)}$`) }));

const OPT_OUT = anywhere(OPT_OUT_PHRASES);
const POSSIBLE = anywhere(POSSIBLE_PHRASES);
const ALONE_OUT = whole(OPT_OUT_ALONE);
const ALONE_POSSIBLE = whole(POSSIBLE_ALONE);
const FILLER_RE = new RegExp(
  `(?:^| )(?:${[...FILLERS]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|")})(?= |$)`,
  "g",
);
const NEGATION = new Set(NEGATIONS);

/** The text without its polite fillers, its clauses joined: what a whole-text phrase is compared with. */
function core(clauses: string[]): string {
  return clauses.join(" ").replace(FILLER_RE, " ").replace(/\s+/g, " ").trim();
}

/** The last word before a match, in its clause ("" at the start). */
const wordBefore = (m: RegExpExecArray) => (m[1] ?? "").trim().split(" ").pop() ?? "";

/** Whether a clause holds "stop" outside the near misses. */
function bareStop(clause: string): boolean {
  const words = clause.split(" ");
  return words.some(
    (w, i) =>
      w === "stop" &&
      !STOP_NEAR_MISSES.before.includes(words[i - 1] as never) &&
      !STOP_NEAR_MISSES.after.includes(words[i + 1] as never),
  );
}

/** Classifies an inbound text: an opt-out, a possible one, or nothing (see the rules at the top). */
export function matchPlainOptOut(text: string): PlainMatch {
  const clauses = plainClauses(text);
  if (!clauses.length) return { outcome: "none", phrase: null };
  const rest = core(clauses);
  const alone = ALONE_OUT.find((p) => p.re.test(rest));
  if (alone) return { outcome: "opt-out", phrase: alone.text };
  let negated: string | null = null;
  for (const clause of clauses) {
    for (const p of OPT_OUT) {
      const m = p.re.exec(clause);
      if (!m) continue;
      if (NEGATION.has(wordBefore(m))) negated ??= p.text;
      else return { outcome: "opt-out", phrase: p.text };
    }
  }
  if (negated) return { outcome: "possible", phrase: negated };
  const alonePossible = ALONE_POSSIBLE.find((p) => p.re.test(rest));
  if (alonePossible) return { outcome: "possible", phrase: alonePossible.text };
  for (const clause of clauses) {
    const p = POSSIBLE.find((q) => q.re.test(clause));
    if (p) return { outcome: "possible", phrase: p.text };
  }
  if (clauses.some(bareStop)) return { outcome: "possible", phrase: "stop" };
  return { outcome: "none", phrase: null };
}
