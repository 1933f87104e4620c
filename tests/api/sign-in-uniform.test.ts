import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { insertUser } from "../../src/users/queries";
import { startTestServer, type TestServer } from "../support/test-server";

// Issue 27 item 7: sign-in answered a Google-only account in 25 ms with its own message. Every email now takes the
// same path: one argon2 check with the same parameters (the decoy's when there is no password), then one answer.

let t: TestServer;
const emails = { unknown: "", password: "", google: "" };
beforeAll(async () => {
  t = await startTestServer({ smtp: false, env: { TRUSTED_PROXIES: "127.0.0.1,::1" } });
  emails.unknown = t.newEmail("nobody");
  emails.password = (await t.signUpVerified()).email;
  emails.google = t.newEmail("gonly");
  await insertUser(t.ctx, {
    email: emails.google,
    passwordHash: null,
    firstName: "Gina",
    lastName: "Google",
    authProvider: "google",
    emailVerified: true,
  });
});
afterAll(() => t?.stop());

let nextAddress = 1;
const signIn = (email: string) =>
  t.api("/api/auth/login", {
    body: { email, password: "wrong-password" },
    headers: { "x-forwarded-for": `198.51.100.${nextAddress++}` },
  });

/** Everything a client sees but the date. */
const seen = (res: Awaited<ReturnType<typeof signIn>>) => ({
  status: res.status,
  body: res.text,
  headers: [...res.headers].filter(([name]) => name !== "date"),
});

describe("sign-in answers alike for every email", () => {
  test("unknown, password and Google-only emails get byte-identical answers: 401, same headers, same body", async () => {
    const [unknown, password, google] = [
      await signIn(emails.unknown),
      await signIn(emails.password),
      await signIn(emails.google),
    ];
    expect(unknown.text).toBe('{"message":"Invalid credentials","code":"unauthorized"}');
    expect(seen(password)).toEqual(seen(unknown));
    expect(seen(google)).toEqual(seen(unknown));
  });

  test("each does the same work: exactly one argon2 verification with the same parameters", async () => {
    const verify = spyOn(Bun.password, "verify");
    try {
      const work: Record<string, string[]> = {};
      for (const [kind, email] of Object.entries(emails)) {
        verify.mockClear();
        await signIn(email);
        // The hash's algorithm and cost ($argon2id$v=19$m=65536,t=2,p=1), without its salt and digest.
        work[kind] = verify.mock.calls.map(([, hash]) => String(hash).split("$").slice(0, 4).join("$"));
      }
      expect(work.unknown).toEqual(["$argon2id$v=19$m=65536,t=2,p=1"]);
      expect(work.password).toEqual(work.unknown!);
      expect(work.google).toEqual(work.unknown!);
    } finally {
      verify.mockRestore();
    }
  });
});
