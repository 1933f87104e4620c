import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { generateSync } from "otplib";
import { describeDevice } from "../../src/auth/sessions";
import { createOrPromoteAdmin } from "../../src/auth/admins";
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
  clock += 60_000;
});

const totp = (secret: string) => generateSync({ secret, epoch: Math.floor(clock / 1000) });
const CHROME_LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

const status = async (token: string) => (await t.api("/api/auth/user", { token })).status;

/** A second sign-in of the same account, from another browser. */
async function signInAgain(account: Account, userAgent = CHROME_LINUX) {
  const res = await t.api("/api/auth/login", { body: { email: account.email, password: account.password }, headers: { "user-agent": userAgent } });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

async function enable2FA(account: Account) {
  await t.confirm(account);
  const setup = await t.api("/api/auth/2fa/setup", { method: "POST", token: account.token });
  const secret = setup.body.secret as string;
  const res = await t.api("/api/auth/2fa/enable", { body: { token: totp(secret) }, token: account.token });
  expect(res.status).toBe(200);
  clock += 30_000;
  return { secret, backupCodes: res.body.backupCodes as string[] };
}

describe("the sessions list", () => {
  test("lists the account's working sessions with device, address, times and which one is this", async () => {
    const account = await t.signUpVerified();
    clock += 1_000; // signed in after the first, so listed after it when both are seen at once
    const phone = await signInAgain(account, SAFARI_IPHONE);
    clock += 120_000;
    expect(await status(phone)).toBe(200); // marks the phone seen now

    const res = await t.api("/api/auth/sessions", { token: account.token });
    expect(res.status).toBe(200);
    const sessions = res.body.sessions as any[];
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.current)).toEqual([false, true]); // most recently seen first: the phone
    expect(sessions[0]).toMatchObject({ device: "Safari on iOS", ip: "127.0.0.1", lastSeenAt: new Date(clock).toISOString() });
    expect(sessions[0].id).toMatch(/^\S{20,100}$/);
    expect(Object.keys(sessions[0]).sort()).toEqual(["createdAt", "credentials", "current", "device", "id", "ip", "lastSeenAt"]);
    // The id names the session but is not its token.
    expect(await status(sessions[0].id)).toBe(401);
    expect((await t.api("/api/auth/sessions")).status).toBe(401);
  });

  test("lastSeenAt is written at most once a minute per session", async () => {
    const account = await t.signUpVerified();
    const seen = async () => (await t.ctx.records.$rows<{ at: number }>("select last_seen_at as at from sessions where user_id = ?", [account.user.id]))[0]!;
    clock += 61_000;
    await status(account.token);
    const first = (await seen()).at;
    expect(first).toBe(clock);
    clock += 30_000;
    await status(account.token);
    expect((await seen()).at).toBe(first);
    clock += 31_000;
    await status(account.token);
    expect((await seen()).at).toBe(clock);
  });

  test("DELETE /api/auth/sessions/:id signs one session out; another user's session answers 404", async () => {
    const account = await t.signUpVerified();
    const other = await signInAgain(account);
    const list = (await t.api("/api/auth/sessions", { token: account.token })).body.sessions as any[];
    const target = list.find((s) => !s.current)!;
    const stranger = await t.signUpVerified();
    const foreign = await t.api(`/api/auth/sessions/${encodeURIComponent(target.id)}`, { method: "DELETE", token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe("Session not found");
    expect(await status(other)).toBe(200);

    const res = await t.api(`/api/auth/sessions/${encodeURIComponent(target.id)}`, { method: "DELETE", token: account.token });
    expect(res.status).toBe(200);
    expect(await status(other)).toBe(401);
    expect(await status(account.token)).toBe(200);
    expect((await t.api("/api/auth/sessions", { token: account.token })).body.sessions).toHaveLength(1);
  });

  test("revoke-others signs out every other session and keeps this one", async () => {
    const account = await t.signUpVerified();
    const a = await signInAgain(account);
    const b = await signInAgain(account, SAFARI_IPHONE);
    const res = await t.api("/api/auth/sessions/revoke-others", { method: "POST", token: account.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, revoked: 2, credentials: { revoked: [], kept: [], summary: "" } });
    expect([await status(a), await status(b), await status(account.token)]).toEqual([401, 401, 200]);
  });

  test("devices are named from the user agent", () => {
    expect(describeDevice(CHROME_LINUX)).toBe("Chrome on Linux");
    expect(describeDevice(SAFARI_IPHONE)).toBe("Safari on iOS");
    expect(describeDevice("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe("Firefox on Windows");
    expect(
      describeDevice("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"),
    ).toBe("Edge on macOS");
    expect(describeDevice("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36")).toBe("Chrome on Linux");
    expect(describeDevice("curl/8.5.0")).toBe("curl");
    expect(describeDevice(null)).toBe("Unknown device");
  });
});

describe("security changes end the other sessions", () => {
  test("changing the password: other sessions end, this one stays; the current password is required", async () => {
    const account = await t.signUpVerified();
    const other = await signInAgain(account);
    const wrong = await t.api("/api/user/password", { body: { currentPassword: "nope-nope", newPassword: "brand-new-1" }, token: account.token });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Your current password is incorrect");
    const short = await t.api("/api/user/password", { body: { currentPassword: account.password, newPassword: "abc" }, token: account.token });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe("Password must be at least 6 characters long");
    expect(await status(other)).toBe(200);

    const res = await t.api("/api/user/password", {
      body: { currentPassword: account.password, newPassword: "brand-new-1", confirmPassword: "brand-new-1" },
      token: account.token,
    });
    expect(res.status).toBe(200);
    expect(await status(other)).toBe(401);
    expect(await status(account.token)).toBe(200);
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: account.password } })).status).toBe(401);
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: "brand-new-1" } })).status).toBe(200);
  });

  test("resetting the password by email link ends every session", async () => {
    const account = await t.signUpVerified();
    const other = await signInAgain(account);
    await t.api("/api/auth/forgot-password", { body: { email: account.email } });
    const token = await t.resetLink(account.email);
    expect((await t.api("/api/auth/reset-password", { body: { token, password: "reset-pass-1" } })).status).toBe(200);
    expect([await status(account.token), await status(other)]).toEqual([401, 401]);
  });

  test("turning 2FA on, then off: each time the other sessions end and this one stays", async () => {
    const account = await t.signUpVerified();
    const before = await signInAgain(account);
    const { secret } = await enable2FA(account);
    expect(await status(before)).toBe(401);
    expect(await status(account.token)).toBe(200);

    // A second session through the code step, then 2FA off from the first.
    const step = await t.api("/api/auth/login", { body: { email: account.email, password: account.password } });
    const second = await t.api("/api/auth/login/2fa", { body: { pendingToken: step.body.pendingToken, token: totp(secret) } });
    expect(second.status).toBe(200);
    clock += 30_000;
    const off = await t.api("/api/auth/2fa/disable", { body: { token: totp(secret) }, token: account.token });
    expect(off.status).toBe(200);
    expect(await status(second.body.token)).toBe(401);
    expect(await status(account.token)).toBe(200);
  });

  test("an administrator's role change or 2FA reset ends every session of that user", async () => {
    const admin = await createOrPromoteAdmin(t.ctx, t.newEmail("admin"), "admin-password");
    const adminToken = (await t.confirm(await t.login(admin.email, "admin-password"))).token;

    const user = await t.signUpVerified();
    const promoted = await t.api(`/api/admin/users/${user.user.id}/make-admin`, { method: "POST", token: adminToken });
    expect(promoted.status).toBe(200);
    expect(await status(user.token)).toBe(401);

    const again = (await t.login(user.email)).token;
    await t.api(`/api/admin/users/${user.user.id}/remove-admin`, { method: "POST", token: adminToken });
    expect(await status(again)).toBe(401);

    const withCode = await t.signUpVerified();
    await enable2FA(withCode);
    const reset = await t.api(`/api/admin/users/${withCode.user.id}/reset-2fa`, { method: "POST", token: adminToken });
    expect(reset.status).toBe(200);
    expect(await status(withCode.token)).toBe(401);
    expect(await status(adminToken)).toBe(200);
  });

  test("createOrPromoteAdmin on an existing account ends its sessions and keeps nothing its holder set up", async () => {
    const squatter = await t.signUpVerified(t.newEmail("ops"), "squatter-pass");
    await enable2FA(squatter);
    const stepToken = (await t.api("/api/auth/login", { body: { email: squatter.email, password: "squatter-pass" } })).body.pendingToken;
    expect(await status(squatter.token)).toBe(200);

    const admin = await createOrPromoteAdmin(t.ctx, squatter.email, "the-real-admin-pass");
    expect(admin.id).toBe(squatter.user.id);
    expect(admin.role).toBe("admin");
    expect(await status(squatter.token)).toBe(401);
    // The squatter's password, pending sign-in and second factor are gone; the given password alone opens it.
    expect((await t.api("/api/auth/login", { body: { email: squatter.email, password: "squatter-pass" } })).status).toBe(401);
    const pending = await t.api("/api/auth/login/2fa", { body: { pendingToken: stepToken, token: "123456" } });
    expect(pending.status).toBe(401);
    expect(pending.body.message).toBe("Your sign-in has expired. Please sign in again.");
    const login = await t.api("/api/auth/login", { body: { email: squatter.email, password: "the-real-admin-pass" } });
    expect(login.status).toBe(200);
    expect(login.body.requires2FA).toBe(false);
    expect(login.body.user.role).toBe("admin");
  });
});

describe("re-authentication for sensitive changes", () => {
  test("new backup codes and a new passkey need the password or a current code", async () => {
    const account = await t.signUpVerified();
    const { secret } = await enable2FA(account);

    const bare = await t.api("/api/auth/2fa/regenerate-backup-codes", { method: "POST", token: account.token });
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({ message: "Please enter a verification code or your password to create new backup codes", reauthRequired: true, code: "validation" });
    const wrong = await t.api("/api/auth/2fa/regenerate-backup-codes", { body: { password: "not-it" }, token: account.token });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Incorrect password");
    const byPassword = await t.api("/api/auth/2fa/regenerate-backup-codes", { body: { password: account.password }, token: account.token });
    expect(byPassword.status).toBe(200);
    expect(byPassword.body.backupCodes).toHaveLength(10);
    const byCode = await t.api("/api/auth/2fa/regenerate-backup-codes", { body: { token: totp(secret) }, token: account.token });
    expect(byCode.status).toBe(200);

    const passkeyBare = await t.api("/api/webauthn/register/begin", { method: "POST", token: account.token });
    expect(passkeyBare.status).toBe(400);
    expect(passkeyBare.body.message).toBe("Please enter a verification code or your password to add a passkey");
    const passkey = await t.api("/api/webauthn/register/begin", { body: { password: account.password }, token: account.token });
    expect(passkey.status).toBe(200);
    expect(passkey.body.challenge).toBeString();
  });

  test("an account without 2FA is asked for its password only", async () => {
    const account = await t.signUpVerified();
    const bare = await t.api("/api/webauthn/register/begin", { method: "POST", token: account.token });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toBe("Please enter your password to add a passkey");
    expect((await t.api("/api/webauthn/register/begin", { body: { password: account.password }, token: account.token })).status).toBe(200);
  });

  test("wrong codes count against the account: the 10th in a row closes the code step for 15 minutes", async () => {
    const account = await t.signUpVerified();
    const { secret } = await enable2FA(account);
    for (let i = 0; i < 9; i++) {
      const res = await t.api("/api/auth/2fa/regenerate-backup-codes", { body: { token: String(100000 + i) }, token: account.token });
      expect(res.status).toBe(400);
    }
    const tenth = await t.api("/api/auth/2fa/regenerate-backup-codes", { body: { token: "999999" }, token: account.token });
    expect(tenth.status).toBe(429);
    expect(tenth.body.message).toBe("Too many wrong verification codes. Try again in 15 minutes.");
    // Even the right code, in the sign-in step too, until the time has passed.
    const step = await t.api("/api/auth/login", { body: { email: account.email, password: account.password } });
    const locked = await t.api("/api/auth/login/2fa", { body: { pendingToken: step.body.pendingToken, token: totp(secret) } });
    expect(locked.status).toBe(429);
    clock += 15 * 60_000;
    const step2 = await t.api("/api/auth/login", { body: { email: account.email, password: account.password } });
    expect((await t.api("/api/auth/login/2fa", { body: { pendingToken: step2.body.pendingToken, token: totp(secret) } })).status).toBe(200);
  });
});

describe("hostile input to the auth calls", () => {
  test("a malformed session cookie is no session: 401, not 500", async () => {
    for (const path of ["/api/auth/user", "/api/auth/sessions", "/api/contacts"]) {
      const res = await t.api(path, { headers: { cookie: "smsdesk_session=%E0%A4%A" } });
      expect(res.status).toBe(401);
    }
    const logout = await t.api("/api/auth/logout", { method: "POST", headers: { cookie: "smsdesk_session=%E0%A4%A" } });
    expect(logout.status).toBe(200);
    const account = await t.signUpVerified();
    const cookie = "smsdesk_session=%E0%A4%A; smsdesk_pending_2fa=%E0%A4%A";
    const login = await t.api("/api/auth/login", { body: { email: account.email, password: account.password }, headers: { cookie } });
    expect(login.status).toBe(200);
    const step = await t.api("/api/auth/login/2fa", { body: { token: "123456" }, headers: { cookie } });
    expect(step.status).toBe(401);
    expect(step.body.message).toBe("Your sign-in has expired. Please sign in again.");
  });

  test("an oversized passkey field answers 400 at once", async () => {
    const huge = "A".repeat(900_000); // under the 1 MB body limit, far over any real field
    const credential = { id: "abc", rawId: "abc", type: "public-key", response: { clientDataJSON: huge, authenticatorData: "AA", signature: "AA" } };
    const started = performance.now();
    const res = await t.api("/api/webauthn/authenticate/complete", { body: { credential } });
    expect(res.status).toBe(400);
    const account = await t.signUpVerified();
    const reg = await t.api("/api/webauthn/register/complete", {
      body: { credential: { ...credential, response: { clientDataJSON: "AA", attestationObject: huge } } },
      token: account.token,
    });
    expect(reg.status).toBe(400);
    const extra = await t.api("/api/webauthn/authenticate/complete", { body: { credential: { ...credential, response: { clientDataJSON: "AA" }, junk: huge } } });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toBe("Invalid passkey response");
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
