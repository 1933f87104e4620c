// The one keyword matcher (src/keywords/matcher.ts), as a table: what each message fires with a whole-message
// keyword JOIN and a first-word keyword JOIN on the same number, and which keywords are refused at creation.
import { describe, expect, test } from "bun:test";
import { checkKeyword, classify, normalForm, type Matchable } from "../../src/keywords/matcher";

const WHOLE: Matchable & { name: string } = { name: "JOIN (whole message)", matchKey: "join", matchMode: "whole" };
const FIRST: Matchable & { name: string } = { name: "JOIN (first word)", matchKey: "join", matchMode: "first_word" };

/** The rule a message fires against one keyword: a compliance rule, the keyword's name, or none. */
function fires(text: string, k: Matchable & { name: string }) {
  const m = classify(text, [k]);
  return m.rule === "keyword" ? m.keyword.name : m.rule;
}

// [message, with the whole-message keyword, with the first-word keyword]
const TABLE: [string, string, string][] = [
  ["join", "JOIN (whole message)", "JOIN (first word)"],
  ["JOIN!", "JOIN (whole message)", "JOIN (first word)"],
  [" Join ", "JOIN (whole message)", "JOIN (first word)"],
  ["Join.", "JOIN (whole message)", "JOIN (first word)"],
  ["join?!...", "JOIN (whole message)", "JOIN (first word)"],
  ["JOIN 🎉", "JOIN (whole message)", "JOIN (first word)"],
  ["join👍🏽", "JOIN (whole message)", "JOIN (first word)"],
  ["ＪＯＩＮ", "JOIN (whole message)", "JOIN (first word)"], // full-width letters (NFKC)
  ["join us", "none", "JOIN (first word)"],
  ["Join, please", "none", "JOIN (first word)"],
  ["joinus", "none", "none"],
  ["rejoin", "none", "none"],
  ["I want to join", "none", "none"],
  ["STOP", "opt-out", "opt-out"],
  ["stop!", "opt-out", "opt-out"],
  ["Stop 🛑", "opt-out", "opt-out"],
  ["stop all", "opt-out", "opt-out"],
  ["stop join", "none", "none"],
  ["join stop", "none", "JOIN (first word)"],
  ["START", "opt-in", "opt-in"],
  ["yes", "opt-in", "opt-in"],
  ["HELP", "help", "help"],
  ["help me understand", "none", "none"],
  ["info.", "help", "help"],
  ["", "none", "none"],
  ["🎉", "none", "none"],
];

describe("the matcher's table", () => {
  test.each(TABLE)("%p fires %p (whole) and %p (first word)", (text, whole, first) => {
    expect(fires(text, WHOLE)).toBe(whole);
    expect(fires(text, FIRST)).toBe(first);
  });

  test("normal form: NFKC, trimmed, spaces collapsed, case-folded, trailing punctuation and emoji dropped", () => {
    expect(normalForm("  Ｈｅｌｌｏ   World!! 😀 ")).toBe("hello world");
    expect(normalForm("STRASSE")).toBe(normalForm("Straße"));
    expect(normalForm("¿join?")).toBe("¿join");
  });

});

describe("keywords refused at creation", () => {
  test.each([
    ["HELP", `"HELP" is a help word: texting it always gets the help reply, so it cannot be a keyword.`],
    ["info", `"INFO" is a help word: texting it always gets the help reply, so it cannot be a keyword.`],
    ["Stop", `"STOP" is an opt-out word: texting it always unsubscribes, so it cannot be a keyword.`],
    ["unsubscribe!", `"UNSUBSCRIBE" is an opt-out word: texting it always unsubscribes, so it cannot be a keyword.`],
    ["START", `"START" is an opt-in word: texting it always resubscribes, so it cannot be a keyword.`],
    ["yes", `"YES" is an opt-in word: texting it always resubscribes, so it cannot be a keyword.`],
    ["NO", `"NO" is a common reply: people send it in ordinary conversation, so it cannot be a keyword.`],
    ["ok", `"OK" is a common reply: people send it in ordinary conversation, so it cannot be a keyword.`],
    ["Thanks", `"THANKS" is a common reply: people send it in ordinary conversation, so it cannot be a keyword.`],
    ["Y", `"Y" is a common reply: people send it in ordinary conversation, so it cannot be a keyword.`],
    ["N", `"N" is a common reply: people send it in ordinary conversation, so it cannot be a keyword.`],
    ["join us", "A keyword is one word of letters and digits, at most 30 characters (no spaces)."],
    ["a".repeat(31), "A keyword is one word of letters and digits, at most 30 characters (no spaces)."],
    ["  ", "Keyword and auto-reply are required"],
  ])("%p: %p", (keyword, error) => {
    expect(checkKeyword(keyword)).toEqual({ error });
  });

  test("an ordinary keyword is kept in its normal form", () => {
    expect(checkKeyword(" Join! ")).toEqual({ matchKey: "join" });
    expect(checkKeyword("PIZZA2024")).toEqual({ matchKey: "pizza2024" });
  });
});
