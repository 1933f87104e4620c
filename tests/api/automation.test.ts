// Automation rules (issue 15 item 1): every trigger fires exactly once per event (the clock's on a fake clock),
// conditions and segments filter, each action's effect, the calls and their checks, tenancy, and a keyword rule
// that fires once per inbound message through a restart of the server on the same data folder.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processEvents, runClockTriggers } from "../../src/automation/runner";
import { codesOf } from "../../src/links/links";
import { loadConfig } from "../../src/config";
import { onEventsCommitted } from "../../src/events/events";
import { recordInbound } from "../../src/inbound/receive";
import { findProviderById } from "../../src/providers/accounts";
import { startServer, type RunningServer } from "../../src/server";
import { findUserByEmail } from "../../src/users/queries";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

// The owner's email goes out from the jobs table, whose runner looks every 5 seconds.
setDefaultTimeout(20_000);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(async () => {
  await t?.stop();
});

const call = (acc: Account, method: string, path: string, body?: unknown) => t.api(path, { method, token: acc.token, body });
const post = (acc: Account, path: string, body?: unknown) => call(acc, "POST", path, body ?? {});
const sql = <T>(query: string, ...args: unknown[]) => t.ctx.db.$client.query(query).all(...(args as never[])) as T[];

async function simulatorAccount() {
  const acc = await t.signUpVerified();
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  expect(provider.status).toBe(201);
  const number = "+14155550110";
  expect((await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: number })).status).toBe(201);
  const account = (await findProviderById(t.ctx, provider.body.id))!;
  let seq = 0;
  const text = (from: string, body: string) =>
    recordInbound(t.ctx, account, { type: "inbound", providerMessageId: `auto-${acc.user.id}-${++seq}`, from, to: number, body });
  return { acc, text };
}

async function rule(acc: Account, body: Record<string, unknown>) {
  const res = await post(acc, "/api/automation-rules", { name: "Rule", ...body });
  expect(res.status).toBe(201);
  return res.body as { id: string; triggerCount: number; isActive: boolean };
}

type Run = { contactId: string | null; outcome: string; detail: string[]; eventId: number | null };
const runs = async (acc: Account, id: string) => (await call(acc, "GET", `/api/automation-rules/${id}/runs`)).body.data as Run[];
/** Waits for the rule's runs to reach `n` (they run right after the triggering transaction commits). */
const runsReach = (acc: Account, id: string, n: number) => waitFor(() => runs(acc, id), (r) => r.length >= n);
const ruleOf = async (acc: Account, id: string) => ((await call(acc, "GET", "/api/automation-rules")).body.data as any[]).find((r) => r.id === id);
const contactByPhone = (acc: Account, phone: string) =>
  sql<{ id: string; tags: string; status: string }>(`SELECT id, tags, status FROM contacts WHERE user_id = ? AND phone = ?`, acc.user.id, phone)[0]!;
const outbound = (acc: Account, phone: string) =>
  sql<{ content: string; kind: string }>(`SELECT content, kind FROM messages WHERE user_id = ? AND phone = ? AND direction = 'outbound' ORDER BY seq`, acc.user.id, phone);
async function contact(acc: Account, body: Record<string, unknown>) {
  const res = await post(acc, "/api/contacts", body);
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe("automation rule calls", () => {
  test("create answers the spec's fields, active by default with a zero count; edit, toggle, delete; bad input is a 400 with the reason", async () => {
    const acc = await t.signUpVerified();
    const created = await post(acc, "/api/automation-rules", {
      name: "  Welcome  ",
      trigger: "opt_in",
      conditions: { tags: { eq: "vip" } },
      actions: { sendMessage: " Hi {firstName|there}! ", addTags: ["new", " new ", ""] },
    });
    expect(created.status).toBe(201);
    const { id, createdAt } = created.body;
    expect(created.body).toEqual({
      id,
      name: "Welcome",
      trigger: "opt_in",
      triggerConfig: {},
      conditions: { tags: { eq: "vip" } },
      segmentId: null,
      actions: { sendMessage: "Hi {firstName|there}!", addTags: ["new"] },
      isActive: true,
      triggerCount: 0,
      createdAt,
    });
    const toggled = await post(acc, `/api/automation-rules/${id}/toggle`, { isActive: false });
    expect(toggled.body.isActive).toBe(false);
    expect((await post(acc, `/api/automation-rules/${id}/toggle`)).body.isActive).toBe(true);
    const edited = await call(acc, "PUT", `/api/automation-rules/${id}`, { name: "Hours", trigger: "reply", triggerConfig: { words: ["Hours"] }, actions: { sendMessage: "9 to 5" } });
    expect([edited.status, edited.body.trigger, edited.body.triggerConfig, edited.body.isActive]).toEqual([200, "reply", { words: ["Hours"] }, true]);

    const bad = async (body: Record<string, unknown>, message: string) => {
      const res = await post(acc, "/api/automation-rules", body);
      expect([res.status, res.body.message]).toEqual([400, message]);
    };
    await bad({ trigger: "opt_in", actions: { sendMessage: "x" } }, "Rule name is required");
    await bad({ name: "x", trigger: "sunrise", actions: { sendMessage: "x" } }, "Unknown trigger sunrise. Use opt_in, keyword_received, reply, contact_created, tag_added, birthday, inactive, purchase, manual, link_clicked");
    await bad({ name: "x", trigger: "opt_in", actions: {} }, "A rule needs at least one action: a message, tags, a drip, an email or an opt-out");
    await bad({ name: "x", trigger: "opt_in", actions: { enrolDripId: "nope" } }, "Drip campaign not found");
    await bad({ name: "x", trigger: "reply", actions: { sendMessage: "x" } }, "A reply trigger needs at least one word to look for");
    await bad({ name: "x", trigger: "birthday", actions: { sendMessage: "x" } }, "A birthday trigger needs the custom field holding the date");
    await bad({ name: "x", trigger: "opt_in", conditions: { shoeSize: { eq: 3 } }, actions: { sendMessage: "x" } }, "Unknown segment field: shoeSize. Use totalSpent, optInDate, lastEngaged, lastClicked, clickedCampaign, tags, source, engagementScore, purchases90d or customFields.<name>");
    await bad({ name: "x", trigger: "opt_in", segmentId: "nope", actions: { sendMessage: "x" } }, "Segment not found");

    expect((await call(acc, "DELETE", `/api/automation-rules/${id}`)).body).toEqual({ success: true });
    expect((await call(acc, "GET", "/api/automation-rules")).body.data).toEqual([]);
  });

  test("tenancy: another account's rule is not found and its events fire none of yours", async () => {
    const a = await t.signUpVerified();
    const b = await t.signUpVerified();
    const ra = await rule(a, { trigger: "contact_created", actions: { addTags: ["a"] } });
    const rb = await rule(b, { trigger: "contact_created", actions: { addTags: ["b"] } });
    for (const [method, path] of [
      ["PUT", `/api/automation-rules/${ra.id}`],
      ["DELETE", `/api/automation-rules/${ra.id}`],
      ["POST", `/api/automation-rules/${ra.id}/toggle`],
      ["GET", `/api/automation-rules/${ra.id}/runs`],
      ["POST", `/api/automation-rules/${ra.id}/run`],
    ] as const) {
      const res = await call(b, method, path, method === "GET" || method === "DELETE" ? undefined : { name: "x", trigger: "manual", actions: { optOut: true }, contactIds: ["x"] });
      expect([path, res.status, res.body.message]).toEqual([path, 404, "Automation rule not found"]);
    }
    expect((await call(b, "GET", "/api/automation-rules")).body.data.map((r: any) => r.id)).toEqual([rb.id]);
    await contact(a, { firstName: "Ann", phone: "+14155550301" });
    await runsReach(a, ra.id, 1);
    await processEvents(t.ctx);
    expect(await runs(b, rb.id)).toEqual([]);
    const other = await post(b, "/api/automation/events", { type: "purchase", phone: "+14155550301" });
    expect([other.status, other.body.message]).toEqual([400, "Contact not found"]);
  });
});

describe("triggers fire once per event", () => {
  test("contact created, tag added (any or a given tag), purchase, manual; a second pass fires nothing more", async () => {
    const acc = await t.signUpVerified();
    const created = await rule(acc, { trigger: "contact_created", actions: { addTags: ["fresh"] } });
    const anyTag = await rule(acc, { trigger: "tag_added", actions: { removeTags: ["cold"] } });
    const vipTag = await rule(acc, { trigger: "tag_added", triggerConfig: { tag: "vip" }, actions: { addTags: ["welcomed"] } });
    const purchase = await rule(acc, { trigger: "purchase", actions: { addTags: ["buyer"] } });
    const manual = await rule(acc, { trigger: "manual", actions: { addTags: ["picked"] } });

    const c = await contact(acc, { firstName: "Ann", phone: "+14155550401", tags: ["cold"] });
    // contact.created -> +fresh (a tag event: the any-tag rule removes cold), then +vip -> welcomed.
    await runsReach(acc, created.id, 1);
    await runsReach(acc, anyTag.id, 1);
    expect((await post(acc, "/api/contacts/bulk-tag", { contactIds: [c.id], tags: ["vip"] })).status).toBe(200);
    await runsReach(acc, vipTag.id, 1);
    const p = await post(acc, "/api/automation/events", { type: "purchase", contactId: c.id, data: { total: 4200 } });
    expect(p.status).toBe(201);
    await runsReach(acc, purchase.id, 1);
    const m = await post(acc, `/api/automation-rules/${manual.id}/run`, { contactIds: [c.id, c.id] });
    expect(m.body).toEqual({ ran: 1 });
    // One run per tag event: fresh, vip, welcomed, buyer, picked.
    const anyRuns = await waitFor(() => runs(acc, anyTag.id), (r) => r.length === 5);
    expect(await processEvents(t.ctx)).toBe(0);
    const tags = JSON.parse(contactByPhone(acc, "+14155550401").tags);
    expect(tags).toEqual(["fresh", "vip", "welcomed", "buyer", "picked"]);
    expect((await runs(acc, created.id)).map((r) => [r.contactId, r.outcome, r.detail])).toEqual([[c.id, "done", ["Tags added: fresh"]]]);
    expect(new Set(anyRuns.map((r) => r.eventId)).size).toBe(5);
    expect((await runs(acc, vipTag.id)).length).toBe(1);
    expect((await ruleOf(acc, purchase.id)).triggerCount).toBe(1);
    expect((await ruleOf(acc, manual.id)).triggerCount).toBe(1);
    expect((await ruleOf(acc, anyTag.id)).triggerCount).toBe(5);
  });

  test("keyword opt-in (any or a given keyword), keyword received, a reply's words; a paused rule does nothing", async () => {
    const { acc, text } = await simulatorAccount();
    expect((await post(acc, "/api/keywords", { keyword: "JOIN", autoReply: "Welcome!", tags: ["joined"] })).status).toBe(201);
    expect((await post(acc, "/api/keywords", { keyword: "DEALS", autoReply: "Deals!" })).status).toBe(201);
    const anyOptIn = await rule(acc, { trigger: "opt_in", actions: { addTags: ["in"] } });
    const joinOptIn = await rule(acc, { trigger: "opt_in", triggerConfig: { keyword: "join" }, actions: { addTags: ["via-join"] } });
    const deals = await rule(acc, { trigger: "keyword_received", triggerConfig: { keyword: "DEALS" }, actions: { sendMessage: "Today's deal, {firstName|friend}: 2 for 1" } });
    const hours = await rule(acc, { trigger: "reply", triggerConfig: { words: ["hours", "open"] }, actions: { sendMessage: "We are open 9 to 5" } });
    const paused = await rule(acc, { trigger: "reply", triggerConfig: { words: ["hours"] }, actions: { optOut: true }, isActive: false });

    await text("+14155550501", "join");
    await text("+14155550502", "DEALS");
    await text("+14155550501", "What are your hours?");
    await text("+14155550501", "hourly? no");
    await text("+14155550502", "deals");
    await runsReach(acc, hours.id, 1);
    await runsReach(acc, deals.id, 2);
    expect(await processEvents(t.ctx)).toBe(0);

    expect((await runs(acc, anyOptIn.id)).length).toBe(2);
    expect((await runs(acc, joinOptIn.id)).map((r) => r.contactId)).toEqual([contactByPhone(acc, "+14155550501").id]);
    expect(JSON.parse(contactByPhone(acc, "+14155550501").tags)).toEqual(["joined", "in", "via-join"]);
    expect(JSON.parse(contactByPhone(acc, "+14155550502").tags)).toEqual(["in"]);
    expect(outbound(acc, "+14155550502")).toEqual([
      { content: "Deals!", kind: "compliance" },
      { content: "Today's deal, friend: 2 for 1", kind: "single" },
      { content: "Deals!", kind: "compliance" },
      { content: "Today's deal, friend: 2 for 1", kind: "single" },
    ].filter((_, i) => i !== 2));
    expect(outbound(acc, "+14155550501").map((m) => m.content)).toEqual(["Welcome!", "We are open 9 to 5"]);
    expect(await runs(acc, paused.id)).toEqual([]);
    expect(contactByPhone(acc, "+14155550501").status).toBe("subscribed");
  });

  test("birthday at the chosen hour in the contact's zone, once a year (fake clock)", async () => {
    const { acc } = await simulatorAccount();
    // The fake clock goes back to July, before the trial began: its messages need a license in force then (the plan's SMS).
    t.ctx.db.$client.run("UPDATE licenses SET starts_at = ? WHERE user_id = ?", [Date.parse("2026-07-01T00:00:00Z"), acc.user.id]);
    const realNow = t.ctx.now;
    try {
      const bday = await rule(acc, { trigger: "birthday", triggerConfig: { field: "birthday", hour: 9 }, actions: { sendMessage: "Happy birthday {firstName}!" } });
      await contact(acc, { firstName: "Lou", phone: "+14155550601", customFields: { birthday: "1990-07-04", timezone: "America/Los_Angeles" } });
      await contact(acc, { firstName: "Ny", phone: "+14155550602", customFields: { birthday: "07/04/1985" } });
      // 08:00 in Los Angeles, 11:00 in New York (the account's zone): only Ny's hour has come.
      t.ctx.now = () => Date.parse("2026-07-04T15:00:00Z");
      await runClockTriggers(t.ctx);
      expect((await runs(acc, bday.id)).length).toBe(1);
      t.ctx.now = () => Date.parse("2026-07-04T16:00:00Z");
      await runClockTriggers(t.ctx);
      await runClockTriggers(t.ctx);
      expect((await runs(acc, bday.id)).length).toBe(2);
      expect(outbound(acc, "+14155550601").map((m) => m.content)).toEqual(["Happy birthday Lou!"]);
      expect(outbound(acc, "+14155550602").map((m) => m.content)).toEqual(["Happy birthday Ny!"]);
      t.ctx.now = () => Date.parse("2026-07-05T16:00:00Z");
      await runClockTriggers(t.ctx);
      expect((await runs(acc, bday.id)).length).toBe(2);
    } finally {
      t.ctx.now = realNow;
    }
  });

  test("the clock's triggers wait for another caller's transaction open on the connection: a run neither joins it nor rolls back with it", async () => {
    const { acc } = await simulatorAccount();
    t.ctx.db.$client.run("UPDATE licenses SET starts_at = ? WHERE user_id = ?", [Date.parse("2026-07-01T00:00:00Z"), acc.user.id]);
    const realNow = t.ctx.now;
    try {
      const bday = await rule(acc, { trigger: "birthday", triggerConfig: { field: "birthday", hour: 9 }, actions: { sendMessage: "Happy birthday {firstName}!" } });
      await contact(acc, { firstName: "Bo", phone: "+14155550603", customFields: { birthday: "07/04/1980" } });
      t.ctx.now = () => Date.parse("2026-07-04T16:00:00Z");
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // A request's records between their awaits, which then fail: their transaction rolls back.
      const other = t.ctx
        .withTransaction(async () => {
          t.ctx.db.$client.run("INSERT INTO system_settings (key, value, updated_at) VALUES ('clock-interleave', '1', 0)");
          await held;
          throw new Error("rolled back");
        })
        .catch((err: Error) => err.message);
      const clock = runClockTriggers(t.ctx);
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      expect(await other).toBe("rolled back");
      // Before, the run was claimed and its text queued in a savepoint of the open transaction, and both were rolled
      // back with it: no run, no text.
      expect(await clock).toBe(1);
      expect((await runs(acc, bday.id)).map((r) => r.outcome)).toEqual(["done"]);
      expect(outbound(acc, "+14155550603").map((m) => m.content)).toEqual(["Happy birthday Bo!"]);
      expect(sql("SELECT key FROM system_settings WHERE key = 'clock-interleave'")).toEqual([]);
    } finally {
      t.ctx.now = realNow;
    }
  });

  test("inactive: no message either way for N days, once per quiet spell; a contact never texted either way does not fire (fake clock)", async () => {
    const { acc, text } = await simulatorAccount();
    const realNow = t.ctx.now;
    const DAYS = 86_400_000;
    try {
      // Just after the sign-up, while the account's trial lets it send.
      const start = Math.ceil(realNow() / 1000) * 1000 + 1000;
      const [a, b, never] = ["+14155550611", "+14155550612", "+14155550613"];
      await contact(acc, { firstName: "In", phone: a });
      await contact(acc, { firstName: "Out", phone: b });
      await contact(acc, { firstName: "Never", phone: never });
      // B wrote 10 days before the start and was written to at the start: its quiet spell starts at the start.
      t.ctx.now = () => start - 10 * DAYS;
      await text(b, "hello");
      t.ctx.now = () => start;
      const quiet = await rule(acc, { trigger: "inactive", triggerConfig: { days: 30 }, actions: { addTags: ["dormant"] } });
      await text(a, "hi");
      const shipped = await post(acc, "/api/messages/send", { phone: b, content: "Your order shipped" });
      expect([shipped.status, shipped.body.message]).toEqual([202, undefined]);
      // Read on the real clock: the session would have expired on the fake one.
      const ruleRuns = async () => {
        const fake = t.ctx.now;
        t.ctx.now = realNow;
        try {
          return await runs(acc, quiet.id);
        } finally {
          t.ctx.now = fake;
        }
      };
      const fired = async () => (await ruleRuns()).map((r) => r.contactId).sort();
      // The job runner may run the clock's triggers too (its hourly job is due on this clock): runs are counted in
      // the rule's history, once per contact and spell whoever made them.
      const runsOf = async (phone: string) => (await ruleRuns()).filter((r) => r.contactId === contactByPhone(acc, phone).id).length;
      // 25 days after B's inbound alone would be 35: the outbound counts, so nobody yet.
      t.ctx.now = () => start + 25 * DAYS;
      await runClockTriggers(t.ctx);
      t.ctx.now = () => start + 30 * DAYS - 1;
      await runClockTriggers(t.ctx);
      expect(await fired()).toEqual([]);
      t.ctx.now = () => start + 30 * DAYS;
      await runClockTriggers(t.ctx);
      await runClockTriggers(t.ctx);
      expect(await fired()).toEqual([contactByPhone(acc, a).id, contactByPhone(acc, b).id].sort());
      // A writes again: a new spell, which fires 30 days later; B's spell goes on and fires nothing more.
      t.ctx.now = () => start + 40 * DAYS;
      await text(a, "back");
      t.ctx.now = () => start + 70 * DAYS - 1;
      await runClockTriggers(t.ctx);
      expect([await runsOf(a), await runsOf(b)]).toEqual([1, 1]);
      t.ctx.now = () => start + 70 * DAYS;
      await runClockTriggers(t.ctx);
      expect([await runsOf(a), await runsOf(b)]).toEqual([2, 1]);
      expect(JSON.parse(contactByPhone(acc, never).tags)).toEqual([]);
      expect(JSON.parse(contactByPhone(acc, a).tags)).toEqual(["dormant"]);
    } finally {
      t.ctx.now = realNow;
    }
  });
});

describe("conditions and actions", () => {
  test("conditions and a segment filter (the skip says why, the count does not move); send, tags, email, opt-out", async () => {
    const { acc } = await simulatorAccount();
    const seg = await post(acc, "/api/segments", { name: "Big spenders", conditions: { "customFields.city": { eq: "SF" } } });
    expect(seg.status).toBe(201);
    const vip = await rule(acc, {
      trigger: "contact_created",
      conditions: { tags: { eq: "vip" } },
      segmentId: seg.body.id,
      actions: { sendMessage: "Hi {firstName}, {city|your city} loves you", addTags: ["greeted"], removeTags: ["vip"], emailOwner: "A VIP joined", optOut: true },
    });
    const plain = await contact(acc, { firstName: "Pat", phone: "+14155550701", customFields: { city: "SF" } });
    const elsewhere = await contact(acc, { firstName: "Lee", phone: "+14155550702", tags: ["vip"], customFields: { city: "LA" } });
    const yes = await contact(acc, { firstName: "Ann", phone: "+14155550703", tags: ["vip"], customFields: { city: "SF" } });
    const all = await runsReach(acc, vip.id, 3);
    const byContact = new Map(all.map((r) => [r.contactId, [r.outcome, r.detail]]));
    expect(byContact.get(plain.id)).toEqual(["skipped", ["Conditions not met"]]);
    expect(byContact.get(elsewhere.id)).toEqual(["skipped", ["Not in segment Big spenders"]]);
    expect(byContact.get(yes.id)).toEqual([
      "done",
      ["Message queued: Hi Ann, SF loves you", "Tags added: greeted", "Tags removed: vip", `Email to ${acc.email}`, "Opted out"],
    ]);
    expect((await ruleOf(acc, vip.id)).triggerCount).toBe(1);
    expect(outbound(acc, "+14155550703")).toEqual([{ content: "Hi Ann, SF loves you", kind: "single" }]);
    expect(outbound(acc, "+14155550701")).toEqual([]);
    const ann = contactByPhone(acc, "+14155550703");
    expect([JSON.parse(ann.tags), ann.status]).toEqual([["greeted"], "opted_out"]);
    const mail = await t.waitForEmail(acc.email, 10_000, { match: /^Automation rule/ });
    expect([mail.subject, mail.text.trim()]).toEqual(['Automation rule "Rule": Ann', "A VIP joined"]);
  });

  test("a message's links go out as short links of its contact (redirecting to the link), and as written with shortenLinks false", async () => {
    const { acc } = await simulatorAccount();
    const settings = (await call(acc, "GET", "/api/user/settings")).body as { linkDomain: string | null; linkDomainDefault: string };
    const domain = settings.linkDomain ?? settings.linkDomainDefault;
    const short = await rule(acc, { trigger: "manual", actions: { sendMessage: "Hi {firstName|there}, spring deals: https://shop.example.com/spring?ref=rule." } });
    const written = await rule(acc, { trigger: "manual", actions: { sendMessage: "Autumn deals: https://shop.example.com/autumn", shortenLinks: false } });
    expect((await ruleOf(acc, short.id)).actions).toEqual({ sendMessage: "Hi {firstName|there}, spring deals: https://shop.example.com/spring?ref=rule." });
    expect((await ruleOf(acc, written.id)).actions).toEqual({ sendMessage: "Autumn deals: https://shop.example.com/autumn", shortenLinks: false });
    const bad = await post(acc, "/api/automation-rules", { name: "x", trigger: "manual", actions: { sendMessage: "x", shortenLinks: "no" } });
    expect([bad.status, bad.body.message]).toEqual([400, "shortenLinks must be true or false"]);

    const ann = await contact(acc, { firstName: "Ann", phone: "+14155550711" });
    expect((await post(acc, `/api/automation-rules/${short.id}/run`, { contactIds: [ann.id] })).body).toEqual({ ran: 1 });
    const [run] = await runsReach(acc, short.id, 1);
    const [sent] = outbound(acc, "+14155550711");
    const m = new RegExp(`^Hi Ann, spring deals: ${domain.replace(/[.:/]/g, "\\$&")}/l/([0-9A-Za-z]{7})\\.$`).exec(sent!.content);
    expect(m).not.toBeNull();
    expect([run!.outcome, run!.detail]).toEqual(["done", [`Message queued: ${sent!.content}`]]);
    const [message] = sql<{ id: string }>(`SELECT id FROM messages WHERE user_id = ? AND phone = ? AND direction = 'outbound'`, acc.user.id, "+14155550711");
    // The rule's link (a row of links, its source the rule) and this message's short link of it, whose code is the one sent.
    const made = sql<{ id: number }>(`SELECT s.id FROM short_links s JOIN links l ON l.id = s.link_id WHERE l.user_id = ?`, acc.user.id);
    expect(made).toHaveLength(1);
    expect((await codesOf(t.ctx, [made[0]!.id])).get(made[0]!.id)).toBe(m![1]);
    expect(sql(`SELECT l.user_id, l.campaign_id, l.source, s.message_id, m.contact_id, m.phone, l.url, l.target FROM short_links s JOIN links l ON l.id = s.link_id JOIN messages m ON m.id = s.message_id WHERE s.id = ?`, made[0]!.id)).toEqual([
      { user_id: acc.user.id, campaign_id: null, source: `automation:${short.id}`, message_id: message!.id, contact_id: ann.id, phone: "+14155550711", url: "https://shop.example.com/spring?ref=rule", target: "https://shop.example.com/spring?ref=rule" },
    ]);
    const hit = await fetch(`${t.url}/l/${m![1]}`, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Safari/604.1" } });
    expect([hit.status, hit.headers.get("location")]).toEqual([302, "https://shop.example.com/spring?ref=rule"]);

    const lee = await contact(acc, { firstName: "Lee", phone: "+14155550712" });
    expect((await post(acc, `/api/automation-rules/${written.id}/run`, { contactIds: [lee.id] })).body).toEqual({ ran: 1 });
    await runsReach(acc, written.id, 1);
    expect(outbound(acc, "+14155550712")).toEqual([{ content: "Autumn deals: https://shop.example.com/autumn", kind: "single" }]);
    expect(sql(`SELECT count(*) AS n FROM short_links s JOIN links l ON l.id = s.link_id WHERE l.user_id = ?`, acc.user.id)).toEqual([{ n: 1 }]);
  });

  test("a message to a contact without a sender fails the run with the reason and undoes its other actions", async () => {
    const acc = await t.signUpVerified();
    const r = await rule(acc, { trigger: "contact_created", actions: { addTags: ["x"], sendMessage: "Hello" } });
    await contact(acc, { firstName: "No", phone: "+14155550801" });
    const [run] = await runsReach(acc, r.id, 1);
    expect([run!.outcome, run!.detail]).toEqual(["failed", ["Message not sent: no SMS provider or phone number is set up"]]);
    expect(JSON.parse(contactByPhone(acc, "+14155550801").tags)).toEqual([]);
    expect((await ruleOf(acc, r.id)).triggerCount).toBe(0);
  });
});

describe("events the rules pass over", () => {
  test("a CSV import does not trigger 'Contact created', and the rules keep running after it", async () => {
    const acc = await t.signUpVerified();
    const r = await rule(acc, { trigger: "contact_created", actions: { addTags: ["fresh"] } });
    const start = await t.api("/api/contacts/import/csv", {
      method: "POST",
      token: acc.token,
      body: "first_name,phone\nA,+14155550901\nB,+14155550902\n",
      headers: { "content-type": "text/csv" },
    });
    expect(start.status).toBe(202);
    await waitFor(async () => (await t.api(`/api/contacts/import/${start.body.id}`, { token: acc.token })).body.state, (s) => s === "done");
    // Before: the import's event (naming the import, not a contact) threw in the reader and held its cursor for good.
    const c = await contact(acc, { firstName: "After", phone: "+14155550903" });
    const [run] = await runsReach(acc, r.id, 1);
    expect([run!.contactId, run!.outcome]).toEqual([c.id, "done"]);
    expect(await processEvents(t.ctx)).toBe(0);
    expect((await runs(acc, r.id)).length).toBe(1);
    expect(JSON.parse(contactByPhone(acc, "+14155550901").tags)).toEqual([]);
    expect(JSON.parse(contactByPhone(acc, "+14155550903").tags)).toEqual(["fresh"]);
  });

  test("a reply deleted before its rule reads it is passed over; the events behind it still run", async () => {
    const { acc, text } = await simulatorAccount();
    const r = await rule(acc, { trigger: "reply", triggerConfig: { words: ["pizza"] }, actions: { addTags: ["hungry"] } });
    // Both inbound messages are recorded before the reader runs; the first is deleted in between.
    await t.ctx.withTransaction(async () => {
      await text("+14155550911", "pizza please");
      await text("+14155550912", "pizza now");
      t.ctx.db.$client.query(`DELETE FROM messages WHERE user_id = ? AND phone = ?`).run(acc.user.id, "+14155550911");
    });
    const [run] = await runsReach(acc, r.id, 1);
    expect([run!.contactId, run!.outcome]).toEqual([contactByPhone(acc, "+14155550912").id, "done"]);
    expect(JSON.parse(contactByPhone(acc, "+14155550912").tags)).toEqual(["hungry"]);
  });
});

describe("drip actions", () => {
  test("enrol in a drip (once: the drip's re-entry rule says why not again) and remove from it", async () => {
    const { acc } = await simulatorAccount();
    const d = await post(acc, "/api/drip-campaigns", { name: "Welcome", trigger: "manual", steps: [{ delay: 1, unit: "days", content: "Day 1" }] });
    expect(d.status).toBe(201);
    const enrol = await rule(acc, { trigger: "manual", actions: { enrolDripId: d.body.id } });
    const remove = await rule(acc, { trigger: "manual", actions: { removeDripId: d.body.id } });
    const c = await contact(acc, { firstName: "Ann", phone: "+14155551001" });
    expect((await post(acc, `/api/automation-rules/${enrol.id}/run`, { contactIds: [c.id] })).body).toEqual({ ran: 1 });
    expect((await post(acc, `/api/automation-rules/${enrol.id}/run`, { contactIds: [c.id] })).body).toEqual({ ran: 1 });
    expect((await runs(acc, enrol.id)).map((r) => r.detail)).toEqual([["Not enrolled in Welcome: Already in this drip"], ["Enrolled in Welcome"]]);
    expect((await post(acc, `/api/automation-rules/${remove.id}/run`, { contactIds: [c.id] })).body).toEqual({ ran: 1 });
    expect((await runs(acc, remove.id)).map((r) => r.detail)).toEqual([["Removed from Welcome"]]);
    const enrolments = (await call(acc, "GET", `/api/drip-campaigns/${d.body.id}/enrolments`)).body.data as any[];
    expect(enrolments.map((e) => [e.contactId, e.state, e.exitReason])).toEqual([[c.id, "exited", "Removed by automation rule Rule"]]);

    // The lists' limit: a bad one is named, with its bounds; a good one is kept.
    for (const [path, max] of [
      [`/api/automation-rules/${enrol.id}/runs`, 500],
      [`/api/drip-campaigns/${d.body.id}/enrolments`, 1000],
    ] as const) {
      for (const limit of ["0", "abc", String(max + 1), "1.5"]) {
        const res = await call(acc, "GET", `${path}?limit=${limit}`);
        expect([limit, res.status, res.body]).toEqual([limit, 400, { message: `limit must be a whole number from 1 to ${max}`, code: "validation" }]);
      }
      expect((await call(acc, "GET", `${path}?limit=1`)).body.data.length).toBe(1);
    }
  });
});

describe("through a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-automation-"));
  const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "", ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "automation-pass" };
  let server: RunningServer | null = null;
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function api(path: string, token?: string, body?: unknown) {
    const res = await fetch(server!.url + path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", origin: new URL(server!.ctx.config.publicUrl).origin, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  test("a keyword_received rule that tags fires once per inbound message: none lost while it was down, none replayed after", async () => {
    server = await startServer(loadConfig(env, []), () => {});
    let token = (await api("/api/auth/login", undefined, { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD })).body.token as string;
    const provider = (await api("/api/sms-providers", token, { provider: "simulator", displayName: "Simulator" })).body;
    expect((await api("/api/phone-numbers", token, { providerId: provider.id, phoneNumber: "+14155550110" })).status).toBe(201);
    expect((await api("/api/keywords", token, { keyword: "JOIN", autoReply: "Welcome!" })).status).toBe(201);
    // The later JOINs are replies: a drip that does not exit on reply keeps the contact, so they find it still in.
    const drip = (await api("/api/drip-campaigns", token, { name: "Welcome", trigger: "manual", exitOnReply: false, steps: [{ delay: 1, unit: "days", content: "Day 1" }] })).body;
    const r = (await api("/api/automation-rules", token, { name: "Tag joiners", trigger: "keyword_received", actions: { addTags: ["automated"], enrolDripId: drip.id } })).body;
    let n = 0;
    const account = (await findProviderById(server!.ctx, provider.id))!;
    const text = (body: string) =>
      recordInbound(server!.ctx, account, { type: "inbound", providerMessageId: `restart-${++n}`, from: "+14155550901", to: "+14155550110", body });
    const ruleRuns = async () => (await api(`/api/automation-rules/${r.id}/runs`, token)).body.data as Run[];

    await text("JOIN");
    await waitFor(ruleRuns, (x) => x.length === 1);
    // The process is about to die: the rules no longer hear commits, and a JOIN lands before the restart.
    onEventsCommitted(server.ctx, null, "automation");
    await text("join");
    await server.stop();

    server = await startServer(loadConfig(env, []), () => {});
    token = (await api("/api/auth/login", undefined, { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD })).body.token as string;
    await waitFor(ruleRuns, (x) => x.length === 2);
    await text("Join!");
    const all = await waitFor(ruleRuns, (x) => x.length === 3);
    expect(await processEvents(server.ctx)).toBe(0);
    expect(all.every((x) => x.outcome === "done")).toBe(true);
    expect(new Set(all.map((x) => x.eventId)).size).toBe(3);
    const user = (await findUserByEmail(server.ctx, env.ADMIN_EMAIL))!;
    const rules = (await api("/api/automation-rules", token)).body.data;
    expect(rules[0].triggerCount).toBe(3);
    const row = server.ctx.db.$client.query(`SELECT tags FROM contacts WHERE user_id = ? AND phone = ?`).get(user.id, "+14155550901") as { tags: string };
    expect(JSON.parse(row.tags)).toEqual(["automated"]);
    // The first JOIN enrolled; the others found the contact still in the drip.
    expect(all.map((x) => x.detail).reverse()).toEqual([
      ["Tags added: automated", "Enrolled in Welcome"],
      ["Tags added: automated", "Not enrolled in Welcome: Already in this drip"],
      ["Tags added: automated", "Not enrolled in Welcome: Already in this drip"],
    ]);
    expect(((await api(`/api/drip-campaigns/${drip.id}/enrolments`, token)).body.data as any[]).length).toBe(1);
  });
});
