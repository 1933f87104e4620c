// Issue 34 item 3: opt-outs in plain words. The matcher (shared/keywords/plain-opt-out.ts) read over a table of texts
// people send, each with the outcome the inbound flow acts on: an opt-out (applied as STOP), a possible one (the
// thread goes to the top of Chat for the owner), or nothing. Near misses must never opt anyone out.
import { describe, expect, test } from "bun:test";
import { matchPlainOptOut, OPT_OUT_ALONE, OPT_OUT_PHRASES, POSSIBLE_ALONE, POSSIBLE_PHRASES, WORD_GROUPS, type PlainOutcome } from "../../shared/keywords/plain-opt-out";

const TABLE: [string, PlainOutcome][] = [
  // Opt-outs in English.
  ["Please stop texting me", "opt-out"],
  ["STOP TEXTING ME!!!", "opt-out"],
  ["Hi, please stop texting me 🙏", "opt-out"],
  ["ＳＴＯＰ   texting   me", "opt-out"],
  ["stop messaging this number", "opt-out"],
  ["Stop sending me messages", "opt-out"],
  ["stop these texts", "opt-out"],
  ["unsubscribe me", "opt-out"],
  ["Please unsubscribe", "opt-out"],
  ["I want to unsubscribe", "opt-out"],
  ["leave me alone", "opt-out"],
  ["Leave me ALONE 😡😡", "opt-out"],
  ["remove me", "opt-out"],
  ["Remove me from your list please", "opt-out"],
  ["take me off your list", "opt-out"],
  ["no more texts", "opt-out"],
  ["No more messages, thanks", "opt-out"],
  ["don't text me", "opt-out"],
  ["Do not text me again", "opt-out"],
  ["dont txt me", "opt-out"],
  ["I would like to opt-out", "opt-out"],
  ["opt me out", "opt-out"],
  ["I don't want these texts", "opt-out"],
  ["stop please", "opt-out"],
  ["Stop it.", "opt-out"],
  ["just stop now", "opt-out"],
  ["No. Remove me", "opt-out"],
  ["delete my number", "opt-out"],
  ["quit spamming me", "opt-out"],
  // Opt-outs in Spanish (accents or none).
  ["No me envíen más mensajes", "opt-out"],
  ["no me envien mas mensajes", "opt-out"],
  ["Dejen de escribirme", "opt-out"],
  ["deja de enviarme mensajes por favor", "opt-out"],
  ["Quiero darme de baja", "opt-out"],
  ["denme de baja", "opt-out"],
  ["Bórrenme de la lista", "opt-out"],
  ["Ya no quiero mensajes", "opt-out"],
  ["no quiero recibir más mensajes", "opt-out"],
  ["déjenme en paz", "opt-out"],
  ["BAJA", "opt-out"],
  ["Baja por favor", "opt-out"],
  ["cancelar suscripción", "opt-out"],
  // Unsure: the owner decides.
  ["how do I unsubscribe?", "possible"],
  ["not interested", "possible"],
  ["wrong number", "possible"],
  ["Who is this?", "possible"],
  ["enough", "possible"],
  ["stop the deals", "possible"],
  ["please don't stop texting me", "possible"],
  ["I don't want to unsubscribe", "possible"],
  ["Stop sending coupons to my wife", "possible"],
  ["this is spam", "possible"],
  ["no me interesa", "possible"],
  ["número equivocado", "possible"],
  ["basta", "possible"],
  // Near misses: nothing.
  ["don't stop the deals", "none"],
  ["Don’t stop the deals!! 🔥", "none"],
  ["stop by the store", "none"],
  ["I'll stop by tomorrow at 5", "none"],
  ["can you remove the item from my order?", "none"],
  ["Please remove the extra cheese", "none"],
  ["Is the bus stop near your shop?", "none"],
  ["I can't stop smiling, thank you!", "none"],
  ["no thanks, I already ordered", "none"],
  ["more texts like this please", "none"],
  ["Sí, me interesa", "none"],
  ["Quiero más ofertas", "none"],
  ["👍", "none"],
  ["   ", "none"],
  ["YES", "none"],
];

describe("opt-outs in plain words: the table", () => {
  test("holds at least 40 texts, of every outcome and both languages", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    expect(new Set(TABLE.map(([, o]) => o))).toEqual(new Set(["opt-out", "possible", "none"]));
  });

  test.each(TABLE)("%p is %s", (text, outcome) => {
    expect(matchPlainOptOut(text).outcome).toBe(outcome);
  });
});

describe("the published lists", () => {
  test("every phrase the help page lists is matched by the matcher as what the list says", () => {
    // A phrase with each word group's first alternative: "stop {texting} {me}" as "stop texting me".
    const plain = (template: string) => template.replace(/\{(\w+)\??\}/g, (_, g: string) => WORD_GROUPS[g]![0]!);
    const wrong = [
      ...[...OPT_OUT_PHRASES, ...OPT_OUT_ALONE].filter((p) => matchPlainOptOut(plain(p.text)).outcome !== "opt-out"),
      // A possible-opt-out phrase counts anywhere in a sentence (alone, "unsubscribe" is STOP's own word).
      ...POSSIBLE_PHRASES.filter((p) => matchPlainOptOut(`I said ${plain(p.text)} earlier`).outcome !== "possible"),
      ...POSSIBLE_ALONE.filter((p) => matchPlainOptOut(plain(p.text)).outcome !== "possible"),
    ].map((p) => p.text);
    expect(wrong).toEqual([]);
  });

  test("says which phrase decided", () => {
    expect(matchPlainOptOut("Please stop texting me")).toEqual({ outcome: "opt-out", phrase: "stop {texting} {me}" });
    expect(matchPlainOptOut("dejen de escribirme")).toEqual({ outcome: "opt-out", phrase: "{dejen} de {escribirme}" });
    expect(matchPlainOptOut("wrong number")).toEqual({ outcome: "possible", phrase: "wrong number" });
    expect(matchPlainOptOut("stop by the store")).toEqual({ outcome: "none", phrase: null });
  });
});
