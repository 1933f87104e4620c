/**
 * The one keyword matcher: the inbound path (STOP/START/HELP in src/messages/messages.ts, then the account's
 * keywords), the keyword tester and the checks at creation all read a message through it. Its rules are written
 * for users on the help page (ui/routes/public/help.tsx, "Keywords"):
 *
 * - A message is read in its normal form: Unicode NFKC (full-width and compatibility letters become plain ones),
 *   spaces trimmed and runs of spaces made one, case-folded, and trailing punctuation, symbols and emoji ignored.
 * - Opt-out, opt-in and help words are the whole message ("STOP", "stop!", "Stop 🛑"); they always win over
 *   keywords, and no keyword may be one of them or a common reply (YES, NO, OK, THANKS, Y, N, ...).
 * - A keyword matches the whole message by default; a keyword set to "first word" also matches a message that
 *   begins with it as a word ("join us" fires JOIN, "joinus" does not).
 *
 * Pure: no database and no domain imports, so the messages domain may use it.
 */

export const STOP_WORDS = new Set(["STOP", "STOPALL", "STOP ALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE"]);
export const START_WORDS = new Set(["START", "UNSTOP", "YES"]);
export const HELP_WORDS = new Set(["HELP", "INFO"]);

/** Replies people send in conversation: as keywords they would fire on ordinary answers. */
export const COMMON_REPLIES = new Set([
  "Y", "N", "NO", "OK", "OKAY", "K", "THANKS", "THANK", "THX", "TY", "SURE", "YEP", "YEAH", "YUP", "NOPE", "HI", "HELLO", "HEY",
]);

/** The double opt-in's confirmation word (also refused as a keyword, being a common reply). */
export const CONFIRM_WORD = "y";

// Trailing punctuation (\p{P}), symbols (\p{S}: currency, math, most emoji), emoji that are not symbols (keycaps,
// skin tones, joiners and variation selectors) and spaces.
const TRAILING = /[\s\p{P}\p{S}\p{Extended_Pictographic}\p{Emoji_Modifier}\u200d\ufe0e\ufe0f\u20e3]+$/u;

/** Case folding: upper then lower turns ß into ss and the final sigma into σ, as full Unicode folding does. */
const fold = (s: string) => s.toUpperCase().toLowerCase();

/** A message (or a keyword) in the matcher's normal form. */
export function normalForm(text: string): string {
  return fold(text.normalize("NFKC").replace(TRAILING, "").trim().replace(/\s+/g, " "));
}

export type ComplianceRule = "opt-out" | "opt-in" | "help";

/** Which compliance rule a message fires, if any: the whole message must be the word. */
export function complianceRule(text: string): ComplianceRule | null {
  const word = normalForm(text).toUpperCase();
  if (STOP_WORDS.has(word)) return "opt-out";
  if (START_WORDS.has(word)) return "opt-in";
  if (HELP_WORDS.has(word)) return "help";
  return null;
}

export type MatchMode = "whole" | "first_word";
export type Matchable = { matchKey: string; matchMode: MatchMode };

/** Whether a message's normal form fires a keyword (given by its normal form and mode). */
export function matchesKeyword(normal: string, k: Matchable): boolean {
  if (normal === k.matchKey) return true;
  if (k.matchMode !== "first_word") return false;
  const first = normal.split(" ", 1)[0]!.replace(TRAILING, "");
  return first === k.matchKey;
}

/** The first keyword the message fires, compliance words first (they never reach the keywords). */
export function classify<K extends Matchable>(text: string, keywords: K[]): { rule: ComplianceRule } | { rule: "keyword"; keyword: K } | { rule: "none" } {
  const compliance = complianceRule(text);
  if (compliance) return { rule: compliance };
  const normal = normalForm(text);
  // Keywords are single words unique per number, so at most one of those listening on a number can match.
  const keyword = keywords.find((k) => matchesKeyword(normal, k));
  return keyword ? { rule: "keyword", keyword } : { rule: "none" };
}

export const KEYWORD_MAX = 30;

/**
 * A keyword as typed, checked: its normal form, or the reason it is refused (one word of letters and digits, not a
 * compliance word, not a common reply).
 */
export function checkKeyword(input: string): { matchKey: string } | { error: string } {
  const matchKey = normalForm(input);
  const shown = matchKey.toUpperCase();
  if (!matchKey) return { error: "Keyword and auto-reply are required" };
  if (!/^[\p{L}\p{N}]+$/u.test(matchKey) || matchKey.length > KEYWORD_MAX) {
    return { error: `A keyword is one word of letters and digits, at most ${KEYWORD_MAX} characters (no spaces).` };
  }
  if (STOP_WORDS.has(shown)) return { error: `"${shown}" is an opt-out word: texting it always unsubscribes, so it cannot be a keyword.` };
  if (START_WORDS.has(shown)) return { error: `"${shown}" is an opt-in word: texting it always resubscribes, so it cannot be a keyword.` };
  if (HELP_WORDS.has(shown)) return { error: `"${shown}" is a help word: texting it always gets the help reply, so it cannot be a keyword.` };
  if (COMMON_REPLIES.has(shown)) {
    return { error: `"${shown}" is a common reply: people send it in ordinary conversation, so it cannot be a keyword.` };
  }
  return { matchKey };
}
