import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  blockMs,
  FAILURES_PER_ACCOUNT,
  FAILURES_PER_ADDRESS,
  FIRST_BLOCK_MS,
  FORGET_AFTER_MS,
  MAX_BLOCK_MS,
  SWEEP_EVERY,
  attemptPassword,
} from "../../src/auth/lockout";
import type { AppContext } from "../../src/context";
import { HttpError } from "../../src/http/errors";
import { findUserById } from "../../src/users/queries";
import { type Account, startTestServer, type TestServer } from "../support/test-server";

// Every wrong password costs a real argon2 check: at the appliance's cost (64 MiB, 2 passes) the ~200 here took
// minutes on CI's two busy cores. What these tests prove is the counting, so this server hashes (sign-up, reset) and
// checks (the decoy) at argon2id's cheapest cost; sign-in-uniform.test.ts asserts the appliance's own.
setDefaultTimeout(60_000);

let t: TestServer;
let clock = Date.now();
const MINUTE = 60_000;

// The test client reaches the server from 127.0.0.1, named here as a trusted proxy, so X-Forwarded-For says
// which address each attempt comes from.
beforeAll(async () => {
  t = await startTestServer({ env: { TRUSTED_PROXIES: "127.0.0.1,::1" } });
  t.ctx.now = () => clock;
  t.ctx.argon2Cost = { memoryCost: 8, timeCost: 1 };
});
afterAll(() => t.stop());

let nextAddress = 1;
/** A client address no other test uses. */
const newAddress = () => `198.51.100.${nextAddress++}`;

const signIn = (account: Account, password: string, from: string) =>
  t.api("/api/auth/login", { body: { email: account.email, password }, headers: { "x-forwarded-for": from } });

const lockedMessage = (minutes: number) =>
  `Account locked: too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;

/** Four wrong passwords answer 401; the fifth from the same address blocks it and answers 423. */
async function block(account: Account, from: string) {
  for (let i = 1; i < FAILURES_PER_ADDRESS; i++) {
    const res = await signIn(account, "wrong-password", from);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("Invalid credentials");
  }
  return signIn(account, "wrong-password", from);
}

describe("limits", () => {
  test("5 failures per address; 50 per account; blocks of 1 minute doubling to 15", () => {
    expect(FAILURES_PER_ADDRESS).toBe(5);
    expect(FAILURES_PER_ACCOUNT).toBe(50);
    expect(FIRST_BLOCK_MS).toBe(MINUTE);
    expect(MAX_BLOCK_MS).toBe(15 * MINUTE);
    expect([5, 6, 7, 8, 9, 10, 40].map((n) => blockMs(n, 5) / MINUTE)).toEqual([1, 2, 4, 8, 15, 15, 15]);
    expect([50, 51, 52, 53, 54].map((n) => blockMs(n, 50) / MINUTE)).toEqual([1, 2, 4, 8, 15]);
  });
});

describe("per account and address", () => {
  test("the 5th wrong password from an address blocks that address for 1 minute: 423 with Retry-After", async () => {
    const account = await t.signUpVerified();
    const from = newAddress();
    const res = await block(account, from);
    expect(res.status).toBe(423);
    expect(res.body.message).toBe(lockedMessage(1));
    expect(res.body.lockedUntil).toBe(new Date(clock + MINUTE).toISOString());
    expect(res.headers.get("retry-after")).toBe("60");
    expect(res.body.token).toBeUndefined();
    expect(t.logs).toContain(`sign-in blocked for ${account.email} from ${from} after 5 failed attempts (1 min)`);
  });

  test("the owner from another address signs in at once, while the blocked address is refused even the right password", async () => {
    const account = await t.signUpVerified();
    const attacker = newAddress();
    expect((await block(account, attacker)).status).toBe(423);

    const refused = await signIn(account, account.password, attacker);
    expect(refused.status).toBe(423);
    expect(refused.body.token).toBeUndefined();

    const owner = await signIn(account, account.password, newAddress());
    expect(owner.status).toBe(200);
    expect(owner.body.token).toBeString();
  });

  test("each failure after a block ends doubles the next block: 1, 2, 4, 8, 15, 15 minutes", async () => {
    const account = await t.signUpVerified();
    const from = newAddress();
    expect((await block(account, from)).body.message).toBe(lockedMessage(1));
    for (const minutes of [2, 4, 8, 15, 15]) {
      const previous = (await signIn(account, "wrong-password", from)).body.lockedUntil;
      clock = Date.parse(previous) - 1000;
      expect((await signIn(account, "wrong-password", from)).status).toBe(423);
      clock = Date.parse(previous);
      const res = await signIn(account, "wrong-password", from);
      expect(res.status).toBe(423);
      expect(res.body.message).toBe(lockedMessage(minutes));
      expect(res.headers.get("retry-after")).toBe(String(minutes * 60));
    }
    // Attempts while blocked are not counted: the block does not grow from them.
    const until = Date.parse((await signIn(account, account.password, from)).body.lockedUntil);
    expect(until).toBe(clock + 15 * MINUTE);
    clock = until;
    expect((await signIn(account, account.password, from)).status).toBe(200);
  });

  test("a right password from the address clears its count: only failures in a row block", async () => {
    const account = await t.signUpVerified();
    const from = newAddress();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < FAILURES_PER_ADDRESS - 1; i++) expect((await signIn(account, "wrong-password", from)).status).toBe(401);
      expect((await signIn(account, account.password, from)).status).toBe(200);
    }
  });

  test("an address's failures are forgotten after a day without any", async () => {
    const account = await t.signUpVerified();
    const from = newAddress();
    for (let i = 0; i < FAILURES_PER_ADDRESS - 1; i++) expect((await signIn(account, "wrong-password", from)).status).toBe(401);
    clock += 24 * 60 * MINUTE;
    for (let i = 0; i < FAILURES_PER_ADDRESS - 1; i++) expect((await signIn(account, "wrong-password", from)).status).toBe(401);
    expect((await signIn(account, "wrong-password", from)).status).toBe(423);
  });

  test("parallel guesses from one address get no more than 5 tries", async () => {
    const account = await t.signUpVerified();
    const from = newAddress();
    const answers = await Promise.all(Array.from({ length: 12 }, () => signIn(account, "wrong-password", from)));
    expect(answers.filter((r) => r.status === 401)).toHaveLength(4);
    expect(answers.filter((r) => r.status === 423)).toHaveLength(8);
  });

  test("an unknown email is counted and blocked exactly like a real one: blocks tell nobody which emails have accounts", async () => {
    const real = await t.signUpVerified();
    const ghost = { email: t.newEmail("ghost"), password: "whatever1" } as Account;
    const from = newAddress();
    const seen = async (account: Account) => {
      const out: unknown[] = [];
      for (let i = 0; i < FAILURES_PER_ADDRESS + 1; i++) {
        const res = await signIn(account, "wrong-password", from);
        out.push([res.status, res.body.message, res.headers.get("retry-after")]);
      }
      return out;
    };
    const expected = [
      ...Array.from({ length: 4 }, () => [401, "Invalid credentials", null]),
      [423, lockedMessage(1), "60"],
      [423, lockedMessage(1), "60"],
    ];
    expect(await seen(real)).toEqual(expected);
    expect(await seen(ghost)).toEqual(expected);
  });

  test("the block is per account: another account from the same address signs in", async () => {
    const locked = await t.signUpVerified();
    const other = await t.signUpVerified();
    const from = newAddress();
    expect((await block(locked, from)).status).toBe(423);
    expect((await signIn(other, other.password, from)).status).toBe(200);
  });
});

describe("across addresses", () => {
  test("one address alone never blocks the owner elsewhere, however long it keeps guessing", async () => {
    const account = await t.signUpVerified();
    const attacker = newAddress();
    expect((await block(account, attacker)).status).toBe(423);
    for (let i = 0; i < 30; i++) {
      const res = await signIn(account, "wrong-password", attacker);
      if (res.status === 423) clock = Date.parse(res.body.lockedUntil);
    }
    expect((await signIn(account, account.password, newAddress())).status).toBe(200);
  });

  test("50 failures spread over 10 addresses block the account everywhere for 1 minute, then 2 after the next", async () => {
    const account = await t.signUpVerified();
    for (let a = 0; a < FAILURES_PER_ACCOUNT / FAILURES_PER_ADDRESS - 1; a++) expect((await block(account, newAddress())).status).toBe(423);
    // The 50th counted failure.
    const last = newAddress();
    for (let i = 1; i <= FAILURES_PER_ADDRESS; i++) {
      const res = await signIn(account, "wrong-password", last);
      expect(res.status).toBe(i === FAILURES_PER_ADDRESS ? 423 : 401);
    }
    expect(t.logs).toContain(`sign-in blocked for ${account.email} from every address after 50 failed attempts (1 min)`);

    const owner = newAddress();
    const refused = await signIn(account, account.password, owner);
    expect(refused.status).toBe(423);
    expect(refused.body.message).toBe(lockedMessage(1));

    clock += MINUTE;
    expect((await signIn(account, "wrong-password", newAddress())).body.message).toBe(lockedMessage(2));
    clock += 2 * MINUTE;
    const back = await signIn(account, account.password, owner);
    expect(back.status).toBe(200);
  });
});

describe("the shared password step", () => {
  test("resetting the password by email lifts every block: the new password signs in at once from the blocked address", async () => {
    const account = await t.signUpVerified();
    const from = newAddress();
    expect((await block(account, from)).status).toBe(423);

    expect((await t.api("/api/auth/forgot-password", { body: { email: account.email } })).status).toBe(200);
    const token = await t.resetLink(account.email);
    const reset = await t.api("/api/auth/reset-password", { body: { token, password: "a-brand-new-secret" } });
    expect(reset.status).toBe(200);

    const res = await signIn(account, "a-brand-new-secret", from);
    expect(res.status).toBe(200);
    expect(res.body.token).toBeString();
  });
});

describe("the table's sweep", () => {
  // attemptPassword on the server's database, on a clock of its own; a hash this cheap lets hundreds of emails fail
  // in a second. Its own context object: the sweep is counted per context (per process).
  let now = 0;
  let ctx: AppContext;
  let cheapHash: string;
  beforeAll(async () => {
    ctx = { ...t.ctx, now: () => now, log: () => undefined };
    cheapHash = await Bun.password.hash("right-password", { algorithm: "argon2id", memoryCost: 8, timeCost: 1 });
  });
  const attempt = (email: string, from: string, password = "wrong-password") =>
    attemptPassword(ctx, email, cheapHash, password, from).then(
      (ok) => (ok ? 200 : 401),
      (e: HttpError) => e.status,
    );
  const rowsOf = (email: string) => ctx.records.$rows(`SELECT address, failures FROM sign_in_failures WHERE email = ? ORDER BY address`, [email]);

  test("a count untouched for a day is deleted by the sweep; a block is kept whatever else fails", async () => {
    // Every row the other tests left is more than a day old on this clock, and none of them blocks any more: the
    // sweep leaves the 491 fillers' rows (each an address's and the email's) and the target's.
    now = clock + 400 * 24 * 60 * MINUTE;
    for (let i = 0; i < FAILURES_PER_ADDRESS - 1; i++) expect(await attempt("counted@example.com", "192.0.2.1")).toBe(401);
    expect(await rowsOf("counted@example.com")).toEqual([
      { address: "", failures: 4 },
      { address: "192.0.2.1", failures: 4 },
    ]);
    now += FORGET_AFTER_MS;
    for (let i = 0; i < FAILURES_PER_ADDRESS - 1; i++) expect(await attempt("target@example.com", "192.0.2.9")).toBe(401);
    expect(await attempt("target@example.com", "192.0.2.9")).toBe(423);
    // 9 attempts so far; the 500th runs the sweep first.
    for (let i = 0; i < SWEEP_EVERY - 2 * FAILURES_PER_ADDRESS; i++) expect(await attempt(`filler-${i}@example.com`, "192.0.2.9")).toBe(401);
    expect(await rowsOf("counted@example.com")).toHaveLength(2);
    expect(await attempt("filler-last@example.com", "192.0.2.9")).toBe(401);
    expect(await rowsOf("counted@example.com")).toEqual([]);
    expect((await ctx.records.$rows(`SELECT count(*) AS n FROM sign_in_failures`))[0]).toEqual({ n: 2 * (SWEEP_EVERY - 2 * FAILURES_PER_ADDRESS + 1) + 2 });
    expect(await rowsOf("target@example.com")).toEqual([
      { address: "", failures: 5 },
      { address: "192.0.2.9", failures: 5 },
    ]);
    expect(await attempt("target@example.com", "192.0.2.9", "right-password")).toBe(423);
  });
});
