import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { userSecurity } from "../../db/schema";
import { LOCKOUT_MINUTES, MAX_FAILED_LOGINS, verifyLoginPassword } from "../../src/auth/lockout";
import { HttpError } from "../../src/http/errors";
import { findUserById } from "../../src/users/queries";
import { type Account, startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
let clock = Date.now();

beforeAll(async () => {
  t = await startTestServer();
  t.ctx.now = () => clock;
});
afterAll(() => t.stop());

const signIn = (account: Account, password: string) => t.api("/api/auth/login", { body: { email: account.email, password } });

async function lock(account: Account) {
  for (let i = 1; i < MAX_FAILED_LOGINS; i++) {
    const res = await signIn(account, "wrong-password");
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("Invalid credentials");
  }
  return signIn(account, "wrong-password");
}

describe("account lockout", () => {
  test("the limits are 5 wrong passwords and 15 minutes", () => {
    expect(MAX_FAILED_LOGINS).toBe(5);
    expect(LOCKOUT_MINUTES).toBe(15);
  });

  test("the 5th wrong password in a row locks the account: 423 'Account locked' with Retry-After", async () => {
    const account = await t.signUpVerified();
    const res = await lock(account);
    expect(res.status).toBe(423);
    expect(res.body.message).toStartWith("Account locked");
    expect(res.body.message).toBe("Account locked: too many failed sign-in attempts. Try again in 15 minutes.");
    expect(res.headers.get("retry-after")).toBe(String(15 * 60));
    expect(res.body.token).toBeUndefined();
  });

  test("a locked account stays locked for its 15 minutes even with the right password", async () => {
    const account = await t.signUpVerified();
    const lockedAt = clock;
    expect((await lock(account)).status).toBe(423);

    const right = await signIn(account, account.password);
    expect(right.status).toBe(423);
    expect(right.body.message).toStartWith("Account locked");
    expect(right.body.token).toBeUndefined();

    clock = lockedAt + 14 * 60_000;
    const later = await signIn(account, account.password);
    expect(later.status).toBe(423);
    expect(later.body.message).toBe("Account locked: too many failed sign-in attempts. Try again in 1 minute.");
    expect(later.headers.get("retry-after")).toBe("60");

    clock = lockedAt + 15 * 60_000 - 1000;
    expect((await signIn(account, account.password)).status).toBe(423);

    clock = lockedAt + 15 * 60_000 + 1;
    const after = await signIn(account, account.password);
    expect(after.status).toBe(200);
    expect(after.body.token).toBeString();
  });

  test("wrong passwords while locked do not extend the lock; after it the count starts again", async () => {
    const account = await t.signUpVerified();
    const lockedAt = clock;
    expect((await lock(account)).status).toBe(423);
    for (let i = 0; i < 3; i++) expect((await signIn(account, "wrong-password")).status).toBe(423);
    clock = lockedAt + 15 * 60_000 + 1;
    // One wrong password after the lock is one failure, not a new lock.
    expect((await signIn(account, "wrong-password")).status).toBe(401);
    expect((await signIn(account, account.password)).status).toBe(200);
  });

  test("a right password resets the count: only consecutive failures lock", async () => {
    const account = await t.signUpVerified();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) expect((await signIn(account, "wrong-password")).status).toBe(401);
      expect((await signIn(account, account.password)).status).toBe(200);
    }
    const row = t.ctx.db.select().from(userSecurity).where(eq(userSecurity.userId, account.user.id)).get()!;
    expect(row.failedLogins).toBe(0);
    expect(row.lockedUntil).toBeNull();
  });

  test("the lock is per account", async () => {
    const locked = await t.signUpVerified();
    const other = await t.signUpVerified();
    expect((await lock(locked)).status).toBe(423);
    expect((await signIn(other, other.password)).status).toBe(200);
  });

  test("an unknown email answers 'Invalid credentials', never 'Account locked'", async () => {
    const ghost = { email: t.newEmail("ghost") } as Account;
    for (let i = 0; i < MAX_FAILED_LOGINS + 2; i++) {
      const res = await signIn(ghost, "whatever1");
      expect(res.status).toBe(401);
      expect(res.body.message).toBe("Invalid credentials");
    }
  });

  test("verifyLoginPassword(ctx, user, password) is the function the admin login shares", async () => {
    const account = await t.signUpVerified();
    const user = findUserById(t.ctx, account.user.id)!;
    await verifyLoginPassword(t.ctx, user, account.password);
    const wrong = await verifyLoginPassword(t.ctx, user, "nope-nope").catch((e) => e);
    expect(wrong).toBeInstanceOf(HttpError);
    expect(wrong.status).toBe(401);
    for (let i = 0; i < MAX_FAILED_LOGINS - 2; i++) await verifyLoginPassword(t.ctx, user, "nope-nope").catch(() => undefined);
    const locked = await verifyLoginPassword(t.ctx, user, "nope-nope").catch((e) => e);
    expect(locked.status).toBe(423);
    const right = await verifyLoginPassword(t.ctx, user, account.password).catch((e) => e);
    expect(right.status).toBe(423);
    expect(right.message).toStartWith("Account locked");
  });
});

describe("lockout and password reset", () => {
  test("resetting the password by email lifts the lockout: the new password signs in at once", async () => {
    const account = await t.signUpVerified();
    expect((await lock(account)).status).toBe(423);

    expect((await t.api("/api/auth/forgot-password", { body: { email: account.email } })).status).toBe(200);
    const token = await t.resetLink(account.email);
    const reset = await t.api("/api/auth/reset-password", { body: { token, password: "a-brand-new-secret" } });
    expect(reset.status).toBe(200);

    const res = await signIn(account, "a-brand-new-secret");
    expect(res.status).toBe(200);
    expect(res.body.token).toBeString();
  });
});
