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
  grantLicense(t.ctx, account.user.id, "professional", 30);
  const res = await t.api("/api/auth/login", { body: { email: account.email, password: account.password }, headers: { "user-agent": CHROME_MAC } });
  expect(res.status).toBe(200);
  return t.confirm({ ...account, token: res.body.token });
}

const sessionOf = (account: Account) =>
  (t.ctx.db.$client.query("SELECT id, ip FROM sessions WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1").get(account.user.id) as {
    id: string;
    ip: string;
  });

describe("made by a session", () => {
  test("an API key records the session that made it, and its owner is emailed what, when and from where", async () => {
    const account = await owner();
    const session = sessionOf(account);
    clock = T0 + 5 * 60_000;
    const afterSeq = t.lastSeq();
    const res = await t.api("/api/api-keys", {
      token: account.token,
      body: { name: "Zapier", service: "Zapier", permissions: ["contacts:read", "messages:send"] },
    });
    expect(res.status).toBe(201);
    expect(t.ctx.db.$client.query("SELECT created_by_session FROM api_keys WHERE id = ?").get(res.body.id)).toEqual({ created_by_session: session.id });

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
    const first = sessionOf(account);
    const afterSeq = t.lastSeq();
    const made = await t.api("/api/webhooks", {
      token: account.token,
      body: { name: "CRM", url: "https://93.184.216.34/in", events: ["message_delivered", "contact_created"] },
    });
    expect(made.status).toBe(201);
    const madeBy = () => t.ctx.db.$client.query("SELECT created_by_session AS s FROM webhook_endpoints WHERE id = ?").get(made.body.id) as { s: string };
    expect(madeBy().s).toBe(first.id);
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
    const second = sessionOf(account);
    const put = (body: Record<string, unknown>) => t.api(`/api/webhooks/${made.body.id}`, { method: "PUT", token: other.token, body });
    expect((await put({ name: "CRM (EU)" })).status).toBe(200);
    expect(madeBy().s).toBe(first.id);
    const beforeMove = t.lastSeq();
    expect((await put({ url: "https://93.184.216.35/in" })).status).toBe(200);
    expect(madeBy().s).toBe(second.id);
    const moved = await t.waitForEmail(account.email, 5000, { afterSeq: beforeMove, match: /^New webhook URL/ });
    expect(moved.text.split("\n").slice(2, 5)).toEqual([
      "Webhook: CRM (EU)",
      "URL: https://93.184.216.35/in (was https://93.184.216.34/in)",
      "Events: message_delivered, contact_created",
    ]);

    // A rotated secret signs what the receiver trusts: the endpoint is then the rotating session's.
    const third = await t.confirm(await t.login(account.email, account.password));
    expect((await t.api(`/api/webhooks/${made.body.id}/rotate-secret`, { method: "POST", token: third.token })).status).toBe(200);
    expect(madeBy().s).toBe(sessionOf(account).id);
  });
});
