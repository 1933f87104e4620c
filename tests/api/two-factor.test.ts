import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { generateSync } from "otplib";
import { backupCodes, users, userSecurity } from "../../db/schema";
import { isTwoFactorEnabled, resetTwoFactor, verifySecondFactor } from "../../src/auth/two-factor";
import { safeEqual } from "../../src/auth/secure-compare";
import { type Account, startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
// The server's clock, moved by the tests: each TOTP time step (30 s) can be used once per user.
let clock = Date.now();

beforeAll(async () => {
  t = await startTestServer();
  t.ctx.now = () => clock;
});
afterAll(() => t.stop());
beforeEach(() => {
  clock += 60_000; // a fresh time step for every test
});

const totp = (secret: string, offsetSteps = 0) => generateSync({ secret, epoch: Math.floor(clock / 1000) + offsetSteps * 30 });
const nextStep = () => (clock += 30_000);

async function setUp(account: Account) {
  await t.confirm(account);
  const res = await t.api("/api/auth/2fa/setup", { method: "POST", token: account.token });
  expect(res.status).toBe(200);
  return res.body as { secret: string; qrCodeUrl: string; manualEntryKey: string };
}

/** A verified account with 2FA on: its secret and backup codes. */
async function accountWith2FA() {
  const account = await t.signUpVerified();
  const { secret } = await setUp(account);
  const res = await t.api("/api/auth/2fa/enable", { body: { token: totp(secret), secret }, token: account.token });
  expect(res.status).toBe(200);
  nextStep();
  return { ...account, secret, backupCodes: res.body.backupCodes as string[] };
}

async function passwordStep(account: Account) {
  const res = await t.api("/api/auth/login", { body: { email: account.email, password: account.password } });
  expect(res.status).toBe(200);
  return res;
}

describe("2FA settings", () => {
  test("status of a new account: off, no backup codes; needs a session", async () => {
    const account = await t.signUpVerified();
    const res = await t.api("/api/auth/2fa/status", { token: account.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enabled: false, backupCodesCount: 0 });
    expect((await t.api("/api/auth/2fa/status")).status).toBe(401);
    for (const path of ["setup", "enable", "disable", "regenerate-backup-codes"]) {
      expect((await t.api(`/api/auth/2fa/${path}`, { method: "POST", body: {} })).status).toBe(401);
    }
  });

  test("setup answers the secret, a local PNG QR code and the key in groups of 4; stored encrypted, not yet on", async () => {
    const account = await t.signUpVerified();
    const setup = await setUp(account);
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.qrCodeUrl).toStartWith("data:image/png;base64,");
    expect(Buffer.from(setup.qrCodeUrl.split(",")[1]!, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(setup.manualEntryKey).toBe(setup.secret.match(/.{4}/g)!.join(" "));

    const row = (await t.ctx.records.select().from(userSecurity).where(eq(userSecurity.userId, account.user.id)).get())!;
    expect(row.totpSecretEncrypted).toStartWith("v1.");
    expect(row.totpSecretEncrypted).not.toContain(setup.secret);
    expect(row.totpEnabledAt).toBeNull();

    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body).toEqual({ enabled: false, backupCodesCount: 0 });
    // A pending setup does not change sign-in.
    expect((await passwordStep(account)).body.token).toBeString();
  });

  test("enable: the code must be 6 digits and right; the setup must exist and be the one shown", async () => {
    const account = await t.signUpVerified();
    const before = await t.api("/api/auth/2fa/enable", { body: { token: "123456" }, token: account.token });
    expect(before.status).toBe(400);
    expect(before.body.message).toBe("Please start the two-factor setup first");

    const { secret } = await setUp(account);
    for (const token of ["", "12345", "1234567", "abcdef"]) {
      const res = await t.api("/api/auth/2fa/enable", { body: { token, secret }, token: account.token });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Please enter the 6-digit verification code");
    }
    const wrongCode = String((Number(totp(secret)) + 1) % 1_000_000).padStart(6, "0");
    const wrong = await t.api("/api/auth/2fa/enable", { body: { token: wrongCode, secret }, token: account.token });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Invalid verification code. Please try again.");

    const otherSecret = await t.api("/api/auth/2fa/enable", { body: { token: totp(secret), secret: "JBSWY3DPEHPK3PXP" }, token: account.token });
    expect(otherSecret.status).toBe(400);
    expect(otherSecret.body.message).toBe("This setup has been replaced. Please start the two-factor setup again.");

    // A code made from a secret other than the stored one does not enable it.
    const foreign = await t.api("/api/auth/2fa/enable", { body: { token: totp("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP") }, token: account.token });
    expect(foreign.status).toBe(400);
    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body.enabled).toBe(false);
  });

  test("enable answers 10 backup codes like ABCD-EFGH, stored only hashed; setup is then refused", async () => {
    const account = await t.signUpVerified();
    const { secret } = await setUp(account);
    const res = await t.api("/api/auth/2fa/enable", { body: { token: totp(secret), secret }, token: account.token });
    expect(res.status).toBe(200);
    const codes = res.body.backupCodes as string[];
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(new Set(codes).size).toBe(10);

    const stored = await t.ctx.records.select().from(backupCodes).where(eq(backupCodes.userId, account.user.id)).all();
    expect(stored).toHaveLength(10);
    for (const row of stored) for (const code of codes) {
      expect(row.codeHash).not.toContain(code);
      expect(row.codeHash).not.toContain(code.replace("-", ""));
    }

    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body).toEqual({ enabled: true, backupCodesCount: 10 });
    const again = await t.api("/api/auth/2fa/setup", { method: "POST", token: account.token });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("Two-factor authentication is already enabled");
  });

  test("regenerate-backup-codes: 10 new codes, the old ones stop working", async () => {
    const account = await accountWith2FA();
    const bare = await t.api("/api/auth/2fa/regenerate-backup-codes", { method: "POST", token: account.token });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toBe("Please enter a verification code or your password to create new backup codes");
    const res = await t.api("/api/auth/2fa/regenerate-backup-codes", { body: { password: account.password }, token: account.token });
    expect(res.status).toBe(200);
    const fresh = res.body.backupCodes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => account.backupCodes.includes(c))).toBe(false);

    const { body } = await passwordStep(account);
    const old = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: account.backupCodes[0] } });
    expect(old.status).toBe(401);
    const ok = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: fresh[0] } });
    expect(ok.status).toBe(200);
    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body.backupCodesCount).toBe(9);

    const plain = await t.signUpVerified();
    const refused = await t.api("/api/auth/2fa/regenerate-backup-codes", { body: { password: plain.password }, token: plain.token });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("Two-factor authentication is not enabled");
  });

  test("disable needs a current code or the password; then sign-in needs the password only", async () => {
    const account = await accountWith2FA();
    const bare = await t.api("/api/auth/2fa/disable", { method: "POST", token: account.token });
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({
      message: "Please enter a verification code or your password to disable two-factor authentication",
      reauthRequired: true,
    });

    const wrongCode = String((Number(totp(account.secret)) + 1) % 1_000_000).padStart(6, "0");
    const byWrongCode = await t.api("/api/auth/2fa/disable", { body: { token: wrongCode }, token: account.token });
    expect(byWrongCode.status).toBe(400);
    expect(byWrongCode.body.message).toBe("Invalid verification code. Please try again.");
    const byWrongPassword = await t.api("/api/auth/2fa/disable", { body: { password: "not-my-password" }, token: account.token });
    expect(byWrongPassword.status).toBe(400);
    expect(byWrongPassword.body.message).toBe("Incorrect password");
    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body.enabled).toBe(true);

    const res = await t.api("/api/auth/2fa/disable", { body: { password: account.password }, token: account.token });
    expect(res.status).toBe(200);
    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body).toEqual({ enabled: false, backupCodesCount: 0 });
    expect(await t.ctx.records.select().from(backupCodes).where(eq(backupCodes.userId, account.user.id)).all()).toHaveLength(0);
    expect((await passwordStep(account)).body.token).toBeString();

    const again = await t.api("/api/auth/2fa/disable", { body: { password: account.password }, token: account.token });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("Two-factor authentication is not enabled");
  });

  test("disable with a current code from the app", async () => {
    const account = await accountWith2FA();
    const res = await t.api("/api/auth/2fa/disable", { body: { token: totp(account.secret) }, token: account.token });
    expect(res.status).toBe(200);
    expect(await isTwoFactorEnabled(t.ctx, account.user.id)).toBe(false);
  });
});

describe("signing in to a 2FA account", () => {
  test("a stolen password alone does not open a 2FA account; the 5th wrong code burns the pending sign-in", async () => {
    const account = await accountWith2FA();
    const res = await passwordStep(account);
    expect(res.body).toEqual({ requires2FA: true, userId: account.user.id, pendingToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(res.body.token).toBeUndefined();
    expect(res.headers.get("set-cookie") ?? "").not.toContain("smsdesk_session=");
    // Stored only as a keyed hash.
    const stored = await t.ctx.records.$rows<{ id: string; challenge: string }>("select id, challenge from auth_challenges where kind = 'login-2fa' and user_id = ?", [account.user.id]);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).not.toContain(res.body.pendingToken);
    expect(stored[0]!.challenge).toBe("");

    // Guessing codes: wrong ones are refused, and the 5th voids the password step.
    for (let i = 0; i < 5; i++) {
      const guess = await t.api("/api/auth/login/2fa", { body: { pendingToken: res.body.pendingToken, token: String(100000 + i) } });
      expect(guess.status).toBe(401);
      expect(guess.body).toEqual({ message: "Invalid verification code", code: "unauthorized" });
    }
    const sixth = await t.api("/api/auth/login/2fa", { body: { pendingToken: res.body.pendingToken, token: totp(account.secret) } });
    expect(sixth.status).toBe(401);
    expect(sixth.body.message).toBe("Your sign-in has expired. Please sign in again.");
    expect(sixth.body.token).toBeUndefined();
  });

  test("the code step needs the pending token of a password step: a userId (with a right code) is refused", async () => {
    const account = await accountWith2FA();
    const step = await passwordStep(account);
    // The old flow: the userId of a password step that just happened, and a right code.
    const byUserId = await t.api("/api/auth/login/2fa", { body: { userId: account.user.id, token: totp(account.secret) } });
    expect(byUserId.status).toBe(401);
    expect(byUserId.body.message).toBe("Your sign-in has expired. Please sign in again.");
    expect(byUserId.body.token).toBeUndefined();
    const forged = await t.api("/api/auth/login/2fa", { body: { userId: account.user.id, pendingToken: "x".repeat(43), token: totp(account.secret) } });
    expect(forged.status).toBe(401);
    expect(forged.body.message).toBe("Your sign-in has expired. Please sign in again.");

    // Another user's pending sign-in does not open this account: it opens the other one's.
    const other = await accountWith2FA();
    const otherStep = await passwordStep(other);
    const cross = await t.api("/api/auth/login/2fa", { body: { userId: account.user.id, pendingToken: otherStep.body.pendingToken, token: totp(account.secret) } });
    expect(cross.status).toBe(401);

    // The untouched, right pending token still works.
    const ok = await t.api("/api/auth/login/2fa", { body: { pendingToken: step.body.pendingToken, token: totp(account.secret) } });
    expect(ok.status).toBe(200);
    expect(ok.body.user.id).toBe(account.user.id);
  });

  test("password then a current code: token and user; the step works once", async () => {
    const account = await accountWith2FA();
    const { body } = await passwordStep(account);
    const res = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: totp(account.secret) } });
    expect(res.status).toBe(200);
    expect(res.body.token).toBeString();
    expect(res.body.user.email).toBe(account.email);
    expect(res.headers.get("set-cookie") ?? "").toContain("smsdesk_session=");
    const me = await t.api("/api/auth/user", { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(account.user.id);

    nextStep();
    const replayStep = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: totp(account.secret) } });
    expect(replayStep.status).toBe(401);
    expect(replayStep.body.message).toBe("Your sign-in has expired. Please sign in again.");
  });

  test("the code must look like a 6-digit code or a backup code", async () => {
    const account = await accountWith2FA();
    const { body } = await passwordStep(account);
    for (const token of ["", "12345", "1234567", "abc", "ABCD-EFGH-IJ", "12 34 56"]) {
      const res = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Please enter a valid 6-digit code");
    }
    const missing = await t.api("/api/auth/login/2fa", { body: { userId: body.userId } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("Please enter a valid 6-digit code");
  });

  test("a wrong code answers 401 'Invalid verification code' and the right one still works after it", async () => {
    const account = await accountWith2FA();
    const { body } = await passwordStep(account);
    const wrongCode = String((Number(totp(account.secret)) + 1) % 1_000_000).padStart(6, "0");
    const wrong = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: wrongCode } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe("Invalid verification code");
    const right = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: totp(account.secret) } });
    expect(right.status).toBe(200);
  });

  test("the password step lasts 5 minutes", async () => {
    const account = await accountWith2FA();
    const { body } = await passwordStep(account);
    clock += 5 * 60_000 + 1000;
    const res = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: totp(account.secret) } });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("Your sign-in has expired. Please sign in again.");

    const again = (await passwordStep(account)).body;
    clock += 4 * 60_000;
    const inTime = await t.api("/api/auth/login/2fa", { body: { pendingToken: again.pendingToken, token: totp(account.secret) } });
    expect(inTime.status).toBe(200);
  });

  test("a code from the previous or next 30 s step is accepted, not one from two steps away; each step once", async () => {
    const account = await accountWith2FA();
    clock += 60_000; // past the step used to enable it
    const signIn = async (token: string) => {
      const { body } = await passwordStep(account);
      return (await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token } })).status;
    };
    expect(await signIn(totp(account.secret, -2))).toBe(401);
    expect(await signIn(totp(account.secret, 2))).toBe(401);
    expect(await signIn(totp(account.secret, -1))).toBe(200);
    nextStep();
    expect(await signIn(totp(account.secret, 1))).toBe(200);
    // The same code again (or an older step) is a replay.
    expect(await signIn(totp(account.secret, 1))).toBe(401);
    expect(await signIn(totp(account.secret, 0))).toBe(401);
  });

  test("a backup code signs in once (dash and case optional)", async () => {
    const account = await accountWith2FA();
    const [first, second] = account.backupCodes;
    const signIn = async (token: string) => {
      const { body } = await passwordStep(account);
      return t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token } });
    };
    const ok = await signIn(first!);
    expect(ok.status).toBe(200);
    expect(ok.body.token).toBeString();
    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body).toEqual({ enabled: true, backupCodesCount: 9 });

    const reused = await signIn(first!);
    expect(reused.status).toBe(401);
    expect(reused.body.message).toBe("Invalid verification code");

    expect((await signIn(second!.replace("-", "").toLowerCase())).status).toBe(200);
    expect((await t.api("/api/auth/2fa/status", { token: account.token })).body.backupCodesCount).toBe(8);
    const used = (await t.ctx.records.select().from(backupCodes).where(eq(backupCodes.userId, account.user.id)).all()).filter((r) => r.usedAt);
    expect(used).toHaveLength(2);
  });

  test("a disabled account gets no session even with the right code", async () => {
    const account = await accountWith2FA();
    const { body } = await passwordStep(account);
    await t.ctx.records.update(users).set({ disabled: true }).where(eq(users.id, account.user.id)).run();
    const res = await t.api("/api/auth/login/2fa", { body: { pendingToken: body.pendingToken, token: totp(account.secret) } });
    expect(res.status).toBe(403);
    expect(res.body.token).toBeUndefined();
  });
});

describe("the functions other domains call", () => {
  test("isTwoFactorEnabled, verifySecondFactor (TOTP once, backup code once), resetTwoFactor", async () => {
    const account = await accountWith2FA();
    const id = account.user.id;
    expect(await isTwoFactorEnabled(t.ctx, id)).toBe(true);
    expect((await verifySecondFactor(t.ctx, id, "000000")) && (await verifySecondFactor(t.ctx, id, "999999"))).toBe(false);
    const code = totp(account.secret);
    expect(await verifySecondFactor(t.ctx, id, code)).toBe(true);
    expect(await verifySecondFactor(t.ctx, id, code)).toBe(false);
    expect(await verifySecondFactor(t.ctx, id, account.backupCodes[3]!)).toBe(true);
    expect(await verifySecondFactor(t.ctx, id, account.backupCodes[3]!)).toBe(false);
    expect(await verifySecondFactor(t.ctx, id, "not a code")).toBe(false);

    await resetTwoFactor(t.ctx, id);
    expect(await isTwoFactorEnabled(t.ctx, id)).toBe(false);
    // Without a session to keep (an administrator's reset), every session ends.
    expect((await t.api("/api/auth/user", { token: account.token })).status).toBe(401);
    nextStep();
    expect(await verifySecondFactor(t.ctx, id, totp(account.secret))).toBe(false);
    const token = (await passwordStep(account)).body.token;
    expect(token).toBeString();
    // A fresh setup works after a reset.
    const { secret } = await setUp({ ...account, token });
    expect((await t.api("/api/auth/2fa/enable", { body: { token: totp(secret) }, token })).status).toBe(200);
  });

  test("codes are compared in constant time (safeEqual)", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
  });
});
