// Issue 27 item 5: what a session makes that outlives it (API keys, webhooks) is recorded against that session and
// told to the owner by email (src/auth/session-credentials.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { grantLicense } from "../../src/licenses/licenses";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
// 2026-07-01 12:00 UTC: 8:00 AM in New York, the accounts' default zone.
const T0 = Date.parse("2026-07-01T12:00:00Z");
let clock = T0;
beforeAll(async () => {
  t = await startTestServer();
  t.ctx.now = () => clock;
});
afterAll(() => t?.stop());
beforeEach(() => {
  clock = T0;
});

const CHROME_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** A Professional account (API access) signed in from Chrome on macOS, its session confirmed. */
async function owner(): Promise<Account> {
  const account = await t.signUpVerified();
  await grantLicense(t.ctx, account.user.id, "professional", 30);
  const res = await t.api("/api/auth/login", { body: { email: account.email, password: account.password }, headers: { "user-agent": CHROME_MAC } });
  expect(res.status).toBe(200);
  return t.confirm({ ...account, token: res.body.token });
}

/** The session the account's token holds, as the sessions list names it. */
async function sessionOf(account: Account): Promise<{ id: string; ip: string }> {
  const listed = (await t.api("/api/auth/sessions", { token: account.token })).body.sessions as { id: string; ip: string; current: boolean }[];
  return listed.find((s) => s.current)!;
}

describe("made by a session", () => {
  test("an API key records the session that made it, and its owner is emailed what, when and from where", async () => {
    const account = await owner();
    const session = await sessionOf(account);
    clock = T0 + 5 * 60_000;
    const afterSeq = t.lastSeq();
    const res = await t.api("/api/api-keys", {
      token: account.token,
      body: { name: "Zapier", service: "Zapier", permissions: ["contacts:read", "messages:send"] },
    });
    expect(res.status).toBe(201);
    expect(await t.ctx.records.$rows("SELECT created_by_session FROM api_keys WHERE id = ?", [res.body.id])).toEqual([{ created_by_session: session.id }]);

    const mail = await t.waitForEmail(account.email, 5000, { afterSeq, match: /^New API key/ });
    expect(mail.subject).toBe("New API key on your smsdesk account");
    expect(mail.text).toBe(
      [
        "A new API key was set up on your smsdesk account.",
        "",
        `API key: Zapier (Zapier), ${res.body.maskedKey}`,
        "Permissions: contacts:read, messages:send",
        "Expires: never",
        "When: Jul 1, 2026, 8:05 AM (America/New_York)",
        `From: Chrome on macOS, IP address ${session.ip}, a session signed in Jul 1, 2026, 8:00 AM (America/New_York)`,
        "",
        "If this was you, there is nothing to do.",
        "",
        `If it was not you, change your password and sign out of your other sessions at ${t.ctx.config.publicUrl}/settings/security : the API keys and webhooks those sessions set up are revoked with them.`,
      ].join("\n"),
    );
    expect(mail.text).not.toContain(res.body.key);
  });

  test("a webhook records its session; a new URL or secret records the session that set it, and a new URL is emailed", async () => {
    const account = await owner();
    const first = await sessionOf(account);
    const afterSeq = t.lastSeq();
    const made = await t.api("/api/webhooks", {
      token: account.token,
      body: { name: "CRM", url: "https://93.184.216.34/in", events: ["message_delivered", "contact_created"] },
    });
    expect(made.status).toBe(201);
    const madeBy = async () => (await t.ctx.records.$rows<{ s: string }>("SELECT created_by_session AS s FROM webhook_endpoints WHERE id = ?", [made.body.id]))[0]!;
    expect((await madeBy()).s).toBe(first.id);
    const mail = await t.waitForEmail(account.email, 5000, { afterSeq, match: /^New webhook on/ });
    expect(mail.text.split("\n").slice(0, 7)).toEqual([
      "A new webhook was set up on your smsdesk account.",
      "",
      "Webhook: CRM",
      "URL: https://93.184.216.34/in",
      "Events: message_delivered, contact_created",
      "When: Jul 1, 2026, 8:00 AM (America/New_York)",
      `From: Chrome on macOS, IP address ${first.ip}, a session signed in Jul 1, 2026, 8:00 AM (America/New_York)`,
    ]);

    // A rename from another session keeps who made it; a new URL from it makes it that session's.
    clock = T0 + 60_000;
    const other = await t.confirm(await t.login(account.email, account.password));
    const second = await sessionOf(other);
    const put = (body: Record<string, unknown>) => t.api(`/api/webhooks/${made.body.id}`, { method: "PUT", token: other.token, body });
    expect((await put({ name: "CRM (EU)" })).status).toBe(200);
    expect((await madeBy()).s).toBe(first.id);
    const beforeMove = t.lastSeq();
    expect((await put({ url: "https://93.184.216.35/in" })).status).toBe(200);
    expect((await madeBy()).s).toBe(second.id);
    const moved = await t.waitForEmail(account.email, 5000, { afterSeq: beforeMove, match: /^New webhook URL/ });
    expect(moved.text.split("\n").slice(2, 5)).toEqual([
      "Webhook: CRM (EU)",
      "URL: https://93.184.216.35/in (was https://93.184.216.34/in)",
      "Events: message_delivered, contact_created",
    ]);

    // A rotated secret signs what the receiver trusts: the endpoint is then the rotating session's.
    const third = await t.confirm(await t.login(account.email, account.password));
    expect((await t.api(`/api/webhooks/${made.body.id}/rotate-secret`, { method: "POST", token: third.token })).status).toBe(200);
    expect((await madeBy()).s).toBe((await sessionOf(third)).id);
  });
});

/** Sets up the scene of the issue: the owner's session and a thief's (both confirmed), and what each made. */
async function ownerAndThief() {
  const account = await owner();
  const thief = await t.confirm(await t.login(account.email, account.password));
  const thiefSession = (await sessionOf(thief)).id;
  const key = async (who: Account, name: string) => {
    const res = await t.api("/api/api-keys", { token: who.token, body: { name, permissions: ["contacts:read"] } });
    expect(res.status).toBe(201);
    return res.body as { id: string; key: string };
  };
  const ownKey = await key(account, "Shop sync");
  const stolenKey = await key(thief, "Backdoor");
  const hook = await t.api("/api/webhooks", { token: thief.token, body: { name: "Exfil", url: "https://93.184.216.34/in", events: ["message_delivered"] } });
  expect(hook.status).toBe(201);
  return { account, thief, thiefSession, ownKey, stolenKey, hookId: hook.body.id as string };
}

const keyWorks = async (key: string) => {
  const res = await t.api("/api/v1/contacts", { token: key, origin: false });
  return res.status === 200 ? "works" : res.body.message;
};
const hookState = async (id: string) => (await t.ctx.records.$rows("SELECT active, disabled_reason AS reason FROM webhook_endpoints WHERE id = ?", [id]))[0];

describe("ending sessions ends what they made (issue 27 item 5)", () => {
  test("the sessions list shows what each session set up", async () => {
    const { account, thief, thiefSession, stolenKey, hookId } = await ownerAndThief();
    const list = (await t.api("/api/auth/sessions", { token: account.token })).body.sessions as any[];
    const thiefs = list.find((s) => s.id === thiefSession);
    expect(thiefs.credentials).toEqual([
      { kind: "api_key", id: stolenKey.id, name: "Backdoor" },
      { kind: "webhook", id: hookId, name: "Exfil" },
    ]);
    expect(list.find((s) => s.current).credentials).toEqual([{ kind: "api_key", id: expect.any(String), name: "Shop sync" }]);
    // The sign-up's session made nothing.
    expect(list.filter((s) => !s.current && s.id !== thiefSession).map((s) => s.credentials)).toEqual([[]]);
    expect((await t.api("/api/auth/sessions", { token: thief.token })).status).toBe(200);
  });

  test("a password change revokes the keys and webhooks the other sessions made, by default; the answer names them", async () => {
    const { account, thief, ownKey, stolenKey, hookId } = await ownerAndThief();
    const res = await t.api("/api/user/password", { token: account.token, body: { currentPassword: account.password, newPassword: "a-brand-new-pass" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Your password has been changed. Your other sessions have been signed out. Revoked what those sessions set up: API key "Backdoor", webhook "Exfil".',
      credentials: {
        revoked: [
          { kind: "api_key", id: stolenKey.id, name: "Backdoor" },
          { kind: "webhook", id: hookId, name: "Exfil" },
        ],
        kept: [],
        summary: 'Revoked what those sessions set up: API key "Backdoor", webhook "Exfil".',
      },
    });
    expect((await t.api("/api/auth/user", { token: thief.token })).status).toBe(401);
    expect(await keyWorks(stolenKey.key)).toBe("This API key has been revoked");
    expect(await hookState(hookId)).toEqual({ active: 0, reason: "Revoked when the password was changed: the session that set it up was signed out" });
    expect(await keyWorks(ownKey.key)).toBe("works");
  });

  test("a password change with keepCredentials keeps them, and says so", async () => {
    const { account, stolenKey, hookId } = await ownerAndThief();
    const res = await t.api("/api/user/password", {
      token: account.token,
      body: { currentPassword: account.password, newPassword: "a-brand-new-pass", keepCredentials: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(
      'Your password has been changed. Your other sessions have been signed out. Kept what those sessions set up: API key "Backdoor", webhook "Exfil".',
    );
    expect(res.body.credentials.revoked).toEqual([]);
    expect(res.body.credentials.kept.map((c: { name: string }) => c.name)).toEqual(["Backdoor", "Exfil"]);
    expect(await keyWorks(stolenKey.key)).toBe("works");
    expect(await hookState(hookId)).toEqual({ active: 1, reason: null });
    const bad = await t.api("/api/user/password", { token: account.token, body: { currentPassword: "a-brand-new-pass", newPassword: "another-one-1", keepCredentials: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("keepCredentials is true or false");
  });

  test("'sign out of all other sessions' revokes what they made unless kept", async () => {
    const { account, stolenKey, hookId, ownKey } = await ownerAndThief();
    const res = await t.api("/api/auth/sessions/revoke-others", { method: "POST", token: account.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      revoked: 2, // the sign-up's session and the thief's
      credentials: {
        revoked: [
          { kind: "api_key", id: stolenKey.id, name: "Backdoor" },
          { kind: "webhook", id: hookId, name: "Exfil" },
        ],
        kept: [],
        summary: 'Revoked what those sessions set up: API key "Backdoor", webhook "Exfil".',
      },
    });
    expect(await keyWorks(stolenKey.key)).toBe("This API key has been revoked");
    expect(await hookState(hookId)).toEqual({ active: 0, reason: "Revoked when you signed out of your other sessions: the session that set it up was signed out" });
    expect(await keyWorks(ownKey.key)).toBe("works");

    const kept = await ownerAndThief();
    const keep = await t.api("/api/auth/sessions/revoke-others", { token: kept.account.token, body: { keepCredentials: true } });
    expect(keep.body.credentials.kept.map((c: { name: string }) => c.name)).toEqual(["Backdoor", "Exfil"]);
    expect(await keyWorks(kept.stolenKey.key)).toBe("works");
  });

  test("a password reset ends every session and revokes everything they made, unless kept; keys older than the record stay", async () => {
    const { account, ownKey, stolenKey, hookId } = await ownerAndThief();
    const older = await t.api("/api/api-keys", { token: account.token, body: { name: "Legacy", permissions: ["contacts:read"] } });
    await t.ctx.records.$run("UPDATE api_keys SET created_by_session = NULL WHERE id = ?", [older.body.id]);
    await t.api("/api/auth/forgot-password", { body: { email: account.email } });
    const token = await t.resetLink(account.email);
    const res = await t.api("/api/auth/reset-password", { body: { token, password: "reset-new-pass", confirmPassword: "reset-new-pass" } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(
      'Your password has been reset. You can now sign in. Revoked what those sessions set up: API key "Shop sync", API key "Backdoor", webhook "Exfil".',
    );
    expect(res.body.credentials.revoked.map((c: { id: string }) => c.id)).toEqual([ownKey.id, stolenKey.id, hookId]);
    expect([await keyWorks(ownKey.key), await keyWorks(stolenKey.key), await keyWorks(older.body.key)]).toEqual([
      "This API key has been revoked",
      "This API key has been revoked",
      "works",
    ]);
    expect(await hookState(hookId)).toEqual({ active: 0, reason: "Revoked when the password was reset: the session that set it up was signed out" });

    const again = await ownerAndThief();
    await t.api("/api/auth/forgot-password", { body: { email: again.account.email } });
    const kept = await t.api("/api/auth/reset-password", {
      body: { token: await t.resetLink(again.account.email), password: "reset-new-pass", keepCredentials: true },
    });
    expect(kept.body.message).toBe(
      'Your password has been reset. You can now sign in. Kept what those sessions set up: API key "Shop sync", API key "Backdoor", webhook "Exfil".',
    );
    expect(await keyWorks(again.stolenKey.key)).toBe("works");
  });
});
