import { describe, expect, test } from "bun:test";
import { safeNextPath, signInHref } from "../../ui/lib/next-path";

// Issue 28 item 9: after sign-in the app returns to ?next=, which a link can set to anything.
const ORIGIN = "https://sms.example.com";

describe("safeNextPath(next, origin): only this origin's paths are followed", () => {
  test.each([
    ["/contact-lists", "/contact-lists"],
    ["/settings/security?from=mail#sessions", "/settings/security?from=mail#sessions"],
    ["/chat/../dashboard", "/dashboard"],
    ["/", "/"],
  ])("%s -> %s", (next, path) => {
    expect(safeNextPath(next, ORIGIN)).toBe(path);
  });

  test.each([
    ["another site, scheme-relative", "//evil.example/steal"],
    ["another site, absolute", "https://evil.example/"],
    ["the same site written absolute (not a path)", "https://sms.example.com/dashboard"],
    ["a backslash the browser reads as a slash", "/\\evil.example"],
    ["a backslash later on", "/a\\..\\..\\/evil.example"],
    ["a tab the browser drops", "/\t/evil.example"],
    ["a line break", "/\n/evil.example"],
    ["a script", "javascript:alert(1)"],
    ["no leading slash", "dashboard"],
    ["the sign-in itself (a loop)", "/auth?next=/auth"],
    ["the sign-in's own pages", "/auth/reset-password?token=x"],
    ["empty", ""],
    ["absent", null],
  ])("%s is refused", (_what, next) => {
    expect(safeNextPath(next, ORIGIN)).toBeNull();
  });
});

describe("signInHref(path)", () => {
  test("carries the page, encoded; the home page needs none", () => {
    expect(signInHref("/settings/security?from=mail#sessions")).toBe("/auth?next=%2Fsettings%2Fsecurity%3Ffrom%3Dmail%23sessions");
    expect(signInHref("/")).toBe("/auth");
  });
});
