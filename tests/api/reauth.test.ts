import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { generateSync } from "otplib";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { SoftAuthenticator } from "../support/soft-authenticator";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

// Sudo mode (src/auth/reauth.ts): a change that outlives the session needs a confirmation (password, code or
// passkey) within the last 10 minutes of this session; a sign-in is not one. The server's clock is moved by the tests.
let t: TestServer;
let clock = Date.now();
let origin: string;
beforeAll(async () => {
  t = await startTestServer({ env: { PUBLIC_URL: "http://localhost:0" } });
  t.ctx.now = () => clock;
  origin = t.ctx.config.publicUrl;
});
afterAll(() => t?.stop());
beforeEach(async () => {
  clock += 60_000; // a fresh TOTP time step for every test
  await rateLimiterFor(t.ctx).reset();
});

const TEN_MINUTES = 10 * 60_000;
/** A signed-up account on a plan with API access. */
async function signUp() {
  const account = await t.signUpVerified();
  await grantLicense(t.ctx, account.user.id, "professional", 30);
  return account;
}
const newKey = (account: Account) =>
  t.api("/api/api-keys", { token: account.token, body: { name: "Zapier", permissions: ["contacts:read"] } });
const newWebhook = (account: Account, url = "https://93.184.216.34/in") =>
  t.api("/api/webhooks", { token: account.token, body: { name: "CRM", url, events: ["message_delivered"] } });
const confirm = (account: Account, body: Record<string, unknown>) => t.api("/api/auth/confirm", { token: account.token, body });
const iso = (ms: number) => new Date(ms).toISOString();

describe("creating an API key", () => {
  test("a fresh sign-in is not a confirmation: a session stolen in its first minute is asked (issue 27 item 5)", async () => {
    const account = await signUp();
    const fresh = await newKey(account);
    expect(fresh.status).toBe(403);
    expect(fresh.body).toEqual({ message: "Please confirm it's you to create an API key", code: "reauth_required", methods: ["password"] });
    const thief = await t.login(account.email, account.password);
    expect((await newKey(thief)).status).toBe(403);
    expect((await newWebhook(thief)).status).toBe(403);
    expect(await t.ctx.records.$rows("SELECT count(*) AS n FROM sessions WHERE user_id = ? AND confirmed_at IS NOT NULL", [account.user.id])).toEqual([{ n: 0 }]);
    expect((await t.api("/api/api-keys", { token: account.token })).body).toEqual([]);
  });

  test("a confirmation counts for 10 minutes", async () => {
    const account = await signUp();
    expect((await confirm(account, { password: account.password })).status).toBe(200);
    expect((await newKey(account)).status).toBe(201);
    clock += TEN_MINUTES - 1;
    expect((await newKey(account)).status).toBe(201);
    clock += 1;
    const stale = await newKey(account);
    expect(stale.status).toBe(403);
    expect(stale.body).toEqual({ message: "Please confirm it's you to create an API key", code: "reauth_required", methods: ["password"] });
    expect((await t.api("/api/api-keys", { token: account.token })).body).toHaveLength(2);
  });

  test("after 10 minutes the password confirms the session, and the retry goes through", async () => {
    const account = await signUp();
    clock += TEN_MINUTES;
    expect((await newKey(account)).status).toBe(403);

    const bare = await confirm(account, {});
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({ message: "Please enter your password to confirm it's you", reauthRequired: true, code: "validation" });
    const wrong = await confirm(account, { password: "not-my-password" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Incorrect password");
    expect((await newKey(account)).status).toBe(403);

    const ok = await confirm(account, { password: account.password });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true, confirmedUntil: iso(clock + TEN_MINUTES) });
    expect((await newKey(account)).status).toBe(201);
    clock += TEN_MINUTES;
    expect((await newKey(account)).status).toBe(403);
  });

  test("a confirmation holds for the session that made it only", async () => {
    const account = await signUp();
    const other = await t.login(account.email, account.password);
    clock += TEN_MINUTES;
    expect((await confirm(account, { password: account.password })).status).toBe(200);
    expect((await newKey(account)).status).toBe(201);
    expect((await newKey(other)).status).toBe(403);
  });

  test("the password given where a change asks for it every time (a new passkey) confirms the session too", async () => {
    const account = await signUp();
    clock += TEN_MINUTES;
    expect((await newKey(account)).status).toBe(403);
    expect((await t.api("/api/webauthn/register/begin", { token: account.token, body: { password: account.password } })).status).toBe(200);
    expect((await newKey(account)).status).toBe(201);
  });

  test("an account with 2FA confirms with a current code too, and is offered both", async () => {
    const account = await t.confirm(await signUp());
    const { secret } = (await t.api("/api/auth/2fa/setup", { method: "POST", token: account.token })).body;
    const code = () => generateSync({ secret, epoch: Math.floor(clock / 1000) });
    expect((await t.api("/api/auth/2fa/enable", { token: account.token, body: { token: code() } })).status).toBe(200);
    clock += TEN_MINUTES + 30_000;
    expect((await newKey(account)).body.methods).toEqual(["password", "code"]);
    expect((await confirm(account, { token: "000000" })).body.message).toBe("Invalid verification code. Please try again.");
    expect((await confirm(account, { token: code() })).status).toBe(200);
    expect((await newKey(account)).status).toBe(201);
  });

  test("a key the plan refuses answers 402 without asking to confirm first", async () => {
    const account = await t.signUpVerified(); // the Starter trial sells no API access
    clock += TEN_MINUTES;
    const res = await newKey(account);
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("plan_limit");
  });

  test("an account with nothing to confirm with (Google only, no passkey) is not asked", async () => {
    const account = await signUp();
    await t.ctx.records.$run("UPDATE users SET password_hash = NULL, auth_provider = 'google' WHERE id = ?", [account.user.id]);
    clock += TEN_MINUTES;
    expect((await newKey(account)).status).toBe(201);
  });
});

describe("webhooks", () => {
  test("adding one, or changing its URL, needs a recent confirmation; renaming it does not", async () => {
    const account = await t.confirm(await signUp());
    const made = await newWebhook(account);
    expect(made.status).toBe(201);
    clock += TEN_MINUTES;

    const add = await newWebhook(account);
    expect(add.status).toBe(403);
    expect(add.body).toMatchObject({ message: "Please confirm it's you to add a webhook", code: "reauth_required" });
    const put = (body: Record<string, unknown>) => t.api(`/api/webhooks/${made.body.id}`, { method: "PUT", token: account.token, body });
    expect((await put({ name: "CRM (old)", url: "https://93.184.216.34/in" })).status).toBe(200);
    expect((await put({ url: "http://127.0.0.1/in" })).body.code).toBe("validation"); // refused as such, not asked about
    const moved = await put({ url: "https://93.184.216.35/in" });
    expect(moved.status).toBe(403);
    expect(moved.body.message).toBe("Please confirm it's you to change a webhook's URL");
    expect((await t.api("/api/webhooks", { token: account.token })).body.data.map((w: { url: string }) => w.url)).toEqual(["https://93.184.216.34/in"]);

    expect((await confirm(account, { password: account.password })).status).toBe(200);
    expect((await put({ url: "https://93.184.216.35/in" })).body.url).toBe("https://93.184.216.35/in");
    expect((await newWebhook(account)).status).toBe(201);
  });

  test("choosing or rotating a webhook's secret needs a recent confirmation (it signs what the receiver trusts)", async () => {
    const account = await t.confirm(await signUp());
    const made = await newWebhook(account);
    clock += TEN_MINUTES;
    const secret = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;
    const put = await t.api(`/api/webhooks/${made.body.id}`, { method: "PUT", token: account.token, body: { secret } });
    expect(put.status).toBe(403);
    expect(put.body.message).toBe("Please confirm it's you to change a webhook's secret");
    const rotate = () => t.api(`/api/webhooks/${made.body.id}/rotate-secret`, { method: "POST", token: account.token });
    const refused = await rotate();
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("Please confirm it's you to change a webhook's secret");
    expect((await confirm(account, { password: account.password })).status).toBe(200);
    expect((await rotate()).body.secret).toStartWith("whsec_");
  });
});

describe("two-factor setup", () => {
  test("setting up 2FA needs a recent confirmation (a second factor the owner lacks would lock them out)", async () => {
    const account = await signUp();
    clock += TEN_MINUTES;
    const stale = await t.api("/api/auth/2fa/setup", { method: "POST", token: account.token });
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({ message: "Please confirm it's you to set up two-factor authentication", code: "reauth_required" });
    expect((await confirm(account, { password: account.password })).status).toBe(200);
    expect((await t.api("/api/auth/2fa/setup", { method: "POST", token: account.token })).status).toBe(200);
  });
});

describe("passkeys", () => {
  async function withPasskey() {
    const account = await signUp();
    const device = new SoftAuthenticator(origin);
    const options = (await t.api("/api/webauthn/register/begin", { token: account.token, body: { password: account.password } })).body;
    const registered = await t.api("/api/webauthn/register/complete", { token: account.token, body: { credential: await device.register(options) } });
    expect(registered.status).toBe(200);
    return { account, device, id: registered.body.authenticator.id as string };
  }
  const passkeyConfirm = async (account: Account, device: SoftAuthenticator) => {
    const options = (await t.api("/api/webauthn/authenticate/begin", { method: "POST" })).body;
    return t.api("/api/webauthn/confirm", { token: account.token, body: { credential: await device.authenticate(options) } });
  };

  test("removing one needs a recent confirmation, which one of the account's passkeys gives", async () => {
    const { account, device, id } = await withPasskey();
    clock += TEN_MINUTES;
    const remove = () => t.api(`/api/webauthn/authenticators/${id}`, { method: "DELETE", token: account.token });
    const stale = await remove();
    expect(stale.status).toBe(403);
    expect(stale.body).toEqual({ message: "Please confirm it's you to remove a passkey", code: "reauth_required", methods: ["password", "passkey"] });

    const ok = await passkeyConfirm(account, device);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ verified: true, confirmedUntil: iso(clock + TEN_MINUTES) });
    expect((await remove()).status).toBe(200);
  });

  test("another account's passkey confirms nothing", async () => {
    const mine = await withPasskey();
    const theirs = await withPasskey();
    clock += TEN_MINUTES;
    const res = await passkeyConfirm(mine.account, theirs.device);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ verified: false, message: "This passkey belongs to another account" });
    expect((await t.api(`/api/webauthn/authenticators/${mine.id}`, { method: "DELETE", token: mine.account.token })).status).toBe(403);
  });
});

describe("a stolen session after the owner's password change", () => {
  test("the password change ends every other session; a stolen one could mint no key before it", async () => {
    const owner = await signUp();
    const thief = await t.login(owner.email, owner.password);
    // The thief, holding only the token, cannot mint what would outlive it.
    expect((await newKey(thief)).status).toBe(403);
    expect((await newWebhook(thief)).status).toBe(403);
    const changed = await t.api("/api/user/password", { token: owner.token, body: { currentPassword: owner.password, newPassword: "a-brand-new-pass" } });
    expect(changed.status).toBe(200);
    expect((await t.api("/api/auth/user", { token: thief.token })).status).toBe(401);
    expect((await t.api("/api/auth/user", { token: owner.token })).status).toBe(200);
    expect((await t.api("/api/api-keys", { token: owner.token })).body).toEqual([]);
  });
});
