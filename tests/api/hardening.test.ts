/**
 * Three defects against "bad input gets a clear error and a 4xx, never a 500, and nothing already stored is lost"
 * and "plan limits counted for real": NUL characters in text (refused by the JSON API, stripped from a provider's
 * webhook and from CSV cells), strings sent for object fields (were turned into {} and accepted), and the plan's
 * monthly SMS (were counted per message, not per segment, and keyword replies were sent past the limit).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { messages } from "../../db/schema";
import { grantLicense } from "../../src/licenses/licenses";
import { usageFor } from "../../src/licenses/limits";
import { recordInbound } from "../../src/inbound/receive";
import { findProviderById } from "../../src/providers/accounts";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

const call = (acc: Account, method: string, path: string, body?: unknown) => t.api(path, { method, token: acc.token, body });
const sql = <T>(query: string, ...args: unknown[]) => t.ctx.db.$client.query(query).all(...(args as never[])) as T[];

/** An account with the simulator and one sender number; `webhook` is its keyed inbound URL on the test server. */
async function simulatorAccount() {
  const acc = await t.signUpVerified();
  const provider = await call(acc, "POST", "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  expect(provider.status).toBe(201);
  const number = "+14155550110";
  expect((await call(acc, "POST", "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: number })).status).toBe(201);
  const account = (await findProviderById(t.ctx, provider.body.id))!;
  let seq = 0;
  const text = (from: string, body: string) => recordInbound(t.ctx, account, { type: "inbound", providerMessageId: `h-${acc.user.id}-${++seq}`, from, to: number, body });
  return { acc, providerId: provider.body.id as string, number, text, webhook: (provider.body.webhookUrl as string).replace(t.ctx.config.publicUrl, t.url) };
}

describe("NUL characters", () => {
  test("the JSON API refuses text holding NUL with 400 naming the field, and stores nothing", async () => {
    const acc = await t.signUpVerified();
    const refused = async (method: string, path: string, body: unknown, field: string) => {
      const res = await call(acc, method, path, body);
      expect([path, res.status, res.body.message, res.body.code]).toEqual([path, 400, `Invalid ${field}: must not contain NUL characters`, "validation"]);
    };
    await refused("POST", "/api/contacts", { firstName: "An\u0000n", phone: "+14155550120" }, "firstName");
    await refused("POST", "/api/contacts", { firstName: "Ann", phone: "+14155550120", customFields: { city: "Os\u0000lo" } }, "customFields.city");
    await refused("POST", "/api/templates", { name: "Welcome", content: "Hi\u0000 there" }, "content");
    await refused("POST", "/api/keywords", { keyword: "JOIN", autoReply: "Thanks!", tags: ["vip", "n\u0000ew"] }, "tags.1");
    await refused("POST", "/api/campaigns", { name: "Sale", type: "sms", content: "50% off\u0000", recipients: ["+14155550121"] }, "content");
    expect(sql(`SELECT id FROM contacts WHERE user_id = ?`, acc.user.id)).toEqual([]);
    expect(sql(`SELECT id FROM templates WHERE user_id = ?`, acc.user.id)).toEqual([]);

    // A change refused keeps what was stored.
    const ann = await call(acc, "POST", "/api/contacts", { firstName: "Ann", lastName: "Lee", phone: "+14155550122" });
    expect(ann.status).toBe(201);
    await refused("PUT", `/api/contacts/${ann.body.id}`, { firstName: "Ann", lastName: "L\u0000ee", phone: "+14155550122" }, "lastName");
    expect((await call(acc, "GET", `/api/contacts/${ann.body.id}`)).body).toMatchObject({ firstName: "Ann", lastName: "Lee" });
  });

  test("a provider's inbound webhook with NUL in the text is taken, the NUL dropped (a refusal would be retried forever)", async () => {
    const { acc, number, webhook } = await simulatorAccount();
    const res = await fetch(webhook, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ events: [{ type: "inbound", id: "NUL-1", from: "+14155550130", to: number, body: "Hel\u0000lo\u0000" }] }),
    });
    expect(res.status).toBe(200);
    expect(sql(`SELECT phone, content FROM messages WHERE user_id = ? AND direction = 'inbound'`, acc.user.id)).toEqual([{ phone: "+14155550130", content: "Hello" }]);
  });

  test("a CSV import drops NUL characters from its cells", async () => {
    const acc = await t.signUpVerified();
    const csv = "first_name,last_name,phone,email\r\nAn\u0000n,Le\u0000e,+1415555\u00000140,ann@example.com\u0000\r\n";
    const start = await t.api("/api/contacts/import/csv", { method: "POST", token: acc.token, body: csv, headers: { "content-type": "text/csv" } });
    expect(start.status).toBe(202);
    const job = await waitFor(
      async () => (await call(acc, "GET", `/api/contacts/import/${start.body.id}`)).body,
      (j) => j.state === "done" || j.state === "failed",
    );
    expect(job).toMatchObject({ state: "done", created: 1, invalid: 0 });
    expect(sql(`SELECT first_name, last_name, phone, email FROM contacts WHERE user_id = ?`, acc.user.id)).toEqual([
      { first_name: "Ann", last_name: "Lee", phone: "+14155550140", email: "ann@example.com" },
    ]);
  });
});

describe("a string, number or array sent for an object field", () => {
  test("answers 400 naming the field (was turned into {} and accepted), and changes nothing", async () => {
    const { acc, providerId } = await simulatorAccount();
    await grantLicense(t.ctx, acc.user.id, "professional", 30);
    await t.confirm(acc);
    const before = (await call(acc, "GET", `/api/sms-providers/${providerId}`)).body;
    for (const settings of ['"y"', "5", "[]"]) {
      const res = await t.api(`/api/sms-providers/${providerId}`, { method: "PATCH", token: acc.token, body: `{"settings":${settings}}` });
      expect([settings, res.status, res.body.message]).toEqual([settings, 400, "Invalid settings: Expected object"]);
    }
    expect((await call(acc, "GET", `/api/sms-providers/${providerId}`)).body).toEqual(before);

    const rule = { name: "Welcome", trigger: "opt_in", actions: { sendMessage: "Hi" } };
    for (const [field, message] of [
      ["triggerConfig", "Invalid triggerConfig: Expected object"],
      ["actions", "Invalid actions: Expected object"],
    ]) {
      const res = await call(acc, "POST", "/api/automation-rules", { ...rule, [field!]: "x" });
      expect([field, res.status, res.body.message]).toEqual([field, 400, message]);
    }
    expect((await call(acc, "GET", "/api/automation-rules")).body.data).toEqual([]);

    const drip = await call(acc, "POST", "/api/drip-campaigns", { name: "Onboarding", steps: ["x"] });
    expect([drip.status, drip.body.message]).toEqual([400, "Invalid steps.0: Expected object"]);

    const campaign = await call(acc, "POST", "/api/campaigns", { name: "Sale", type: "sms", content: "Hi", audience: "x" });
    expect(campaign.status).toBe(400);

    const key = (await call(acc, "POST", "/api/api-keys", { name: "Test", permissions: ["contacts:write"] })).body.key;
    const apiContact = await t.api("/api/v1/contacts", { method: "POST", token: key, origin: false, body: { phone: "+14155550150", customFields: "abc" } });
    expect([apiContact.status, apiContact.body.message]).toEqual([400, "customFields maps at most 50 names to text values"]);
    expect(sql(`SELECT id FROM contacts WHERE user_id = ?`, acc.user.id)).toEqual([]);
  });
});

describe("the plan's monthly SMS", () => {
  /** Outbound messages this month of `segments` SMS each, as sent. */
  const sentThisMonth = (acc: Account, n: number, segments: number) => {
    const rows = Array.from({ length: n }, () => ({
      id: crypto.randomUUID(),
      userId: acc.user.id,
      phone: "+14155550199",
      content: "earlier",
      direction: "outbound" as const,
      status: "delivered" as const,
      segments,
      createdAt: new Date(),
    }));
    for (let i = 0; i < rows.length; i += 500) t.ctx.db.insert(messages).values(rows.slice(i, i + 500)).run();
  };
  const LONG = "x".repeat(200); // 2 SMS (GSM-7: 153 characters a part past 160)

  const refusal = (used: string, adding: string) =>
    `Your Starter plan allows 5,000 SMS per month; you have sent ${used} this month and tried to send ${adding} (a text longer than one SMS counts each part). Upgrade your plan or redeem a license code.`;

  test("are counted in segments: the usage, the notice and the one-off send", async () => {
    const { acc } = await simulatorAccount();
    sentThisMonth(acc, 1000, 3);
    sentThisMonth(acc, 996, 1);
    expect((await usageFor(t.ctx, acc.user.id)).messages).toEqual({ used: 3996, limit: 5000, unlimited: false, notice: null });
    const send = (content: string) => call(acc, "POST", "/api/messages/send", { phone: "+14155550160", content });
    const first = await send(LONG);
    expect([first.status, first.body.notice]).toEqual([202, null]);
    expect((await usageFor(t.ctx, acc.user.id)).messages.used).toBe(3998);
    const second = await send(LONG);
    expect([second.status, second.body.notice]).toEqual([
      202,
      "You have used 80% of your Starter plan's 5,000 SMS this month (4,000). Upgrade your plan or redeem a license code before you reach the limit.",
    ]);
    sentThisMonth(acc, 999, 1);
    const over = await send(LONG);
    expect([over.status, over.body.message, over.body.used, over.body.adding]).toEqual([402, refusal("4,999", "2"), 4999, 2]);
    // One SMS still fits: exactly reaching the limit is allowed.
    expect((await send("Hi")).status).toBe(202);
    expect((await usageFor(t.ctx, acc.user.id)).messages.used).toBe(5000);
  });

  test("a campaign is checked against its messages' segments, merge fields and opt-out line included", async () => {
    const { acc, number } = await simulatorAccount();
    sentThisMonth(acc, 4994, 1);
    const create = async (recipients: string[]) => {
      const res = await call(acc, "POST", "/api/campaigns", { type: "sms", name: "Long", content: LONG, recipients, fromNumber: number });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    // 200 characters and "\nReply STOP to opt out": 2 SMS each; 4 recipients are 8 of the 6 left.
    const refused = await call(acc, "POST", `/api/campaigns/${await create(["+14155550161", "+14155550162", "+14155550163", "+14155550164"])}/send`);
    expect([refused.status, refused.body.message]).toEqual([402, refusal("4,994", "8")]);
    const sent = await call(acc, "POST", `/api/campaigns/${await create(["+14155550161", "+14155550162", "+14155550163"])}/send`);
    expect(sent.status).toBe(202);
    expect((await usageFor(t.ctx, acc.user.id)).messages.used).toBe(5000);
  });

  test("a large campaign (written in chunks) is checked by one message's segments times its audience", async () => {
    const { acc, number } = await simulatorAccount();
    sentThisMonth(acc, 3000, 1);
    const recipients = Array.from({ length: 1001 }, (_, i) => `+1415200${String(i).padStart(4, "0")}`);
    const res = await call(acc, "POST", "/api/campaigns", { type: "sms", name: "Large", content: LONG, recipients, fromNumber: number });
    expect(res.status).toBe(201);
    // 1,001 messages of 2 SMS: 2,002 of the 2,000 left (counted per message, 1,001 fitted).
    const refused = await call(acc, "POST", `/api/campaigns/${res.body.id}/send`);
    expect([refused.status, refused.body.message]).toEqual([402, refusal("3,000", "2,002")]);
  });

  test("at the limit a keyword subscribes nobody and replies nothing; STOP is still confirmed, and counted", async () => {
    const { acc, text } = await simulatorAccount();
    expect((await call(acc, "POST", "/api/keywords", { keyword: "JOIN", autoReply: "Thanks for joining!" })).status).toBe(201);
    const member = await call(acc, "POST", "/api/contacts", { firstName: "Bo", phone: "+14155550171" });
    expect(member.status).toBe(201);
    sentThisMonth(acc, 5000, 1);

    await text("+14155550170", "JOIN");
    // Kept as any number that texts in (source inbound, no marketing consent), not subscribed by the keyword.
    expect(sql(`SELECT source, opt_in_date FROM contacts WHERE user_id = ? AND phone = '+14155550170'`, acc.user.id)).toEqual([{ source: "inbound", opt_in_date: null }]);
    expect(sql(`SELECT status FROM keyword_opt_ins WHERE user_id = ?`, acc.user.id)).toEqual([]);
    expect(sql(`SELECT direction, content FROM messages WHERE user_id = ? AND phone = '+14155550170'`, acc.user.id)).toEqual([{ direction: "inbound", content: "JOIN" }]);

    await text("+14155550171", "STOP");
    expect(sql(`SELECT status FROM contacts WHERE id = ?`, member.body.id)).toEqual([{ status: "opted_out" }]);
    const replies = sql<{ kind: string; segments: number }>(`SELECT kind, segments FROM messages WHERE user_id = ? AND phone = '+14155550171' AND direction = 'outbound'`, acc.user.id);
    expect(replies).toEqual([{ kind: "compliance", segments: 1 }]);
    expect((await usageFor(t.ctx, acc.user.id)).messages.used).toBe(5001);
  });

  test("at the limit an automation rule's message is not sent, and its other actions still run", async () => {
    const { acc } = await simulatorAccount();
    const rule = await call(acc, "POST", "/api/automation-rules", { name: "Welcome", trigger: "contact_created", actions: { sendMessage: "Welcome, {firstName}!", addTags: ["welcomed"] } });
    expect(rule.status).toBe(201);
    sentThisMonth(acc, 5000, 1);
    const created = await call(acc, "POST", "/api/contacts", { firstName: "Cy", phone: "+14155550180" });
    expect(created.status).toBe(201);
    const runs = await waitFor(
      async () => (await call(acc, "GET", `/api/automation-rules/${rule.body.id}/runs`)).body.data as { outcome: string; detail: string[] }[],
      (r) => r.length > 0,
    );
    expect(runs.map((r) => [r.outcome, r.detail])).toEqual([["done", [`Message not sent: ${refusal("5,000", "1")}`, "Tags added: welcomed"]]]);
    expect(sql(`SELECT id FROM messages WHERE user_id = ? AND phone = '+14155550180'`, acc.user.id)).toEqual([]);
    expect(sql(`SELECT tags FROM contacts WHERE id = ?`, created.body.id)).toEqual([{ tags: '["welcomed"]' }]);
  });
});
