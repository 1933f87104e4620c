import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { messages } from "../../db/schema";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
let admin: Account;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  const email = t.newEmail("admin");
  await createOrPromoteAdmin(t.ctx, email, "admin-password");
  admin = await t.confirm(await t.login(email, "admin-password"));
});
afterAll(() => t?.stop());

const DAY = 86_400_000;
const OPT_OUT = "\nReply STOP to opt out";

const get = (acc: Account, path: string) => t.api(path, { token: acc.token });
const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body: body ?? {} });
const put = (acc: Account, path: string, body: unknown) => t.api(path, { method: "PUT", token: acc.token, body });
const del = (acc: Account, path: string) => t.api(path, { method: "DELETE", token: acc.token });

/** A verified account whose campaigns go out at any hour (quiet hours would defer them at night). */
async function account(): Promise<Account> {
  const acc = await t.signUpVerified();
  const res = await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  expect(res.status).toBe(200);
  return acc;
}

/** An account sending through the simulator from one unthrottled number. */
async function sender() {
  const acc = await account();
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  expect(provider.status).toBe(201);
  await t.api(`/api/sms-providers/${provider.body.id}`, {
    method: "PATCH",
    token: acc.token,
    body: { settings: { deliveryDelayMs: 20 } },
  });
  const numbers = await get(acc, `/api/providers/${provider.body.id}/available-numbers`);
  const number = await post(acc, "/api/phone-numbers", {
    providerId: provider.body.id,
    phoneNumber: numbers.body.numbers[0].phoneNumber,
    messagesPerSecond: 0,
  });
  expect(number.status).toBe(201);
  return { acc, providerId: provider.body.id as string, fromNumber: number.body.phoneNumber as string };
}

async function create(acc: Account, body: Record<string, unknown>) {
  const res = await post(acc, "/api/campaigns", {
    type: "sms",
    name: "Spring sale",
    content: "Hello",
    recipients: ["+14155550101"],
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function contact(acc: Account, body: Record<string, unknown>) {
  const res = await post(acc, "/api/contacts", { firstName: "Pat", ...body });
  expect(res.status).toBe(201);
  return res.body;
}

const campaign = (acc: Account, id: string) => get(acc, `/api/campaigns/${id}`).then((r) => r.body);
const logs = (acc: Account, id: string) => get(acc, `/api/campaign-logs?campaignId=${id}&pageSize=200`).then((r) => r.body);
const texts = async (acc: Account, id: string) => {
  const res = await get(acc, `/api/messages?campaignId=${id}&pageSize=100`);
  return Object.fromEntries(res.body.data.map((m: any) => [m.phone, m.content])) as Record<string, string>;
};

/** Waits until every recipient has a final delivery outcome, then answers the logs. */
const settled = (acc: Account, id: string) =>
  waitFor(
    () => logs(acc, id),
    (l) => l.total > 0 && l.data.every((r: any) => ["delivered", "failed", "skipped", "expired", "cancelled"].includes(r.status)),
    15_000,
  );

const done = (acc: Account, id: string) =>
  waitFor(
    () => campaign(acc, id),
    (c) => ["completed", "failed"].includes(c.status),
    15_000,
  );

async function sendAndSettle(acc: Account, id: string) {
  const res = await post(acc, `/api/campaigns/${id}/send`);
  expect(res.status).toBe(202);
  await settled(acc, id);
  return { send: res.body, campaign: await done(acc, id), logs: await logs(acc, id) };
}

describe("creating a campaign", () => {
  test("the dialog's validation messages, in the spec's words", async () => {
    const acc = await account();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "   " }, "Campaign name is required"],
      [{ content: "" }, "Content is required"],
      [{ recipients: [] }, "Recipients are required"],
      [{ recipients: " , \n " }, "Recipients are required"],
      [{ recipients: ["+14155550101", "call me"] }, "Please enter valid phone numbers"],
      [{ recipients: "415-555-0101, 12345" }, "Please enter valid phone numbers"],
      [{ type: "fax" }, "Type must be email or sms"],
      [{ type: "email", recipients: ["+14155550101"] }, "Please enter valid email addresses"],
    ];
    for (const [body, message] of cases) {
      const res = await post(acc, "/api/campaigns", {
        type: "sms",
        name: "Spring sale",
        content: "Hello",
        recipients: ["+14155550101"],
        ...body,
      });
      expect({ body, status: res.status, message: res.body.message }).toEqual({ body, status: 400, message });
    }
    expect((await get(acc, "/api/campaigns")).body.total).toBe(0);
  });

  test("typed recipients of the wrong shape are refused with what is wrong, on create, edit and the delivery preview", async () => {
    const acc = await account();
    const LIST = "Invalid recipients: expected a list of numbers, or numbers in one text separated by commas or new lines";
    const cases: [unknown, string][] = [
      [5, LIST],
      [{ a: "+14155550101" }, LIST],
      [["+14155550101", 7], "Invalid recipients.1: expected a string"],
      [["+14155550101", "1".repeat(321)], "Invalid recipients.1: at most 320 characters"],
      ["1".repeat(4_000_001), "Invalid recipients: at most 4,000,000 characters"],
      [Array(100_001).fill("+14155550101"), "Please enter at most 100,000 recipients; use a contact list for more"],
      [["+1415555\u00000101"], "Invalid recipients.0: must not contain NUL characters"],
    ];
    const draft = await post(acc, "/api/campaigns", { name: "Kept", content: "Hello", recipients: ["+14155550101"] });
    for (const [recipients, message] of cases) {
      const created = await post(acc, "/api/campaigns", { name: "Sale", content: "Hello", recipients });
      const edited = await put(acc, `/api/campaigns/${draft.body.id}`, { recipients });
      const preview = await post(acc, "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients, content: "Hello" });
      const seen = [created, edited, preview].map((r) => [r.status, r.body.message]);
      expect({ recipients: String(recipients).slice(0, 40), seen }).toEqual({ recipients: String(recipients).slice(0, 40), seen: Array(3).fill([400, message]) });
    }
    expect((await campaign(acc, draft.body.id)).recipients).toEqual(["+14155550101"]);
    expect((await get(acc, "/api/campaigns")).body.total).toBe(1);
  });

  test("a long typed list is checked and kept whole, in order, across the slices it is checked in", async () => {
    const acc = await account();
    // 12,000 numbers: three slices of the checks (5,000 at a time between turns of the event loop).
    const typed = Array.from({ length: 12_000 }, (_, i) => `+1415${String(2_000_000 + i)}`);
    const bad = await post(acc, "/api/campaigns", { name: "Long", content: "Hello", recipients: [...typed, "call me"] });
    expect([bad.status, bad.body.message]).toEqual([400, "Please enter valid phone numbers"]);
    // Entries holding several numbers are split where they stand.
    const res = await post(acc, "/api/campaigns", { name: "Long", content: "Hello", recipients: [...typed.slice(0, 6_000), `${typed[6_000]}, ${typed[6_001]}`, ...typed.slice(6_002)] });
    expect(res.status).toBe(201);
    expect(res.body.recipients).toEqual(typed);
    expect((await campaign(acc, res.body.id)).recipients).toEqual(typed);
  });

  test("201 with the id at top level and the defaults; a userId in the body is ignored", async () => {
    const acc = await account();
    const other = await account();
    const res = await post(acc, "/api/campaigns", {
      type: "sms",
      name: "  Spring sale ",
      content: "Hello [Name]",
      recipients: "415-555-0101,\n(415) 555-0102\n",
      userId: other.user.id,
    });
    expect(res.status).toBe(201);
    expect(typeof res.body.id).toBe("string");
    expect(res.body).toMatchObject({
      name: "Spring sale",
      type: "sms",
      status: "draft",
      content: "Hello [Name]",
      recipients: ["415-555-0101", "(415) 555-0102"],
      audience: { kind: "manual" },
      appendOptOut: true,
      archived: false,
      scheduledAt: null,
      sentAt: null,
      totalSent: 0,
      successRate: null,
      counts: { recipients: 0, delivered: 0 },
    });
    expect((await get(acc, `/api/campaigns/${res.body.id}`)).status).toBe(200);
    expect((await get(other, `/api/campaigns/${res.body.id}`)).status).toBe(404);
    expect((await get(other, "/api/campaigns")).body.total).toBe(0);
  });

  test("appendOptOut defaults to the account's setting and can be set per campaign", async () => {
    const acc = await account();
    await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { appendOptOut: false } });
    expect((await create(acc, {})).appendOptOut).toBe(false);
    expect((await create(acc, { appendOptOut: true })).appendOptOut).toBe(true);
  });
});

describe("listing campaigns", () => {
  test("server paging, newest first", async () => {
    const acc = await account();
    for (let i = 1; i <= 5; i++) await create(acc, { name: `Campaign ${i}` });
    const page = await get(acc, "/api/campaigns?page=2&pageSize=2");
    expect(page.body).toMatchObject({ total: 5, page: 2, pageSize: 2 });
    expect(page.body.data.map((c: any) => c.name)).toEqual(["Campaign 3", "Campaign 2"]);
    expect((await get(acc, "/api/campaigns?page=3&pageSize=2")).body.data.map((c: any) => c.name)).toEqual(["Campaign 1"]);
  });

  test("q matches name, content and recipients", async () => {
    const acc = await account();
    const byName = await create(acc, { name: "Summer BBQ", content: "Come eat" });
    const byContent = await create(acc, { name: "Other", content: "Free barbecue tonight" });
    const byPhone = await create(acc, { name: "Third", content: "Hi", recipients: ["+14155550177"] });
    const ids = async (q: string) =>
      (await get(acc, `/api/campaigns?q=${encodeURIComponent(q)}`)).body.data.map((c: any) => c.id).sort();
    expect(await ids("bbq")).toEqual([byName.id]);
    expect(await ids("BARBECUE")).toEqual([byContent.id]);
    expect(await ids("5550177")).toEqual([byPhone.id]);
    expect(await ids("nothing like this")).toEqual([]);
    expect(await ids("%")).toEqual([]);
  });

  test("bulk archive, the archived filter, and restoring", async () => {
    const acc = await account();
    const [a, b, c] = [await create(acc, { name: "A" }), await create(acc, { name: "B" }), await create(acc, { name: "C" })];
    const res = await post(acc, "/api/campaigns/bulk-archive", { campaignIds: [a.id, b.id], archive: true });
    expect(res.status).toBe(200);
    const names = async (archived: string) =>
      (await get(acc, `/api/campaigns?archived=${archived}`)).body.data.map((x: any) => x.name).sort();
    expect(await names("true")).toEqual(["A", "B"]);
    expect(await names("false")).toEqual(["C"]);
    expect((await campaign(acc, a.id)).archived).toBe(true);
    await post(acc, "/api/campaigns/bulk-archive", { campaignIds: [a.id], archive: false });
    expect(await names("true")).toEqual(["B"]);
    expect((await get(acc, "/api/campaigns")).body.total).toBe(3);
    expect(c.archived).toBe(false);
  });

  test("another user's campaign answers 404 everywhere and bulk actions never touch it", async () => {
    const { acc: owner } = await sender();
    const stranger = await account();
    const mine = await create(owner, { name: "Owner's draft" });
    const theirs = await create(stranger, { name: "Stranger's" });
    const id = mine.id;
    expect((await get(stranger, `/api/campaigns/${id}`)).status).toBe(404);
    expect((await put(stranger, `/api/campaigns/${id}`, { name: "Hijacked" })).status).toBe(404);
    expect((await del(stranger, `/api/campaigns/${id}`)).status).toBe(404);
    for (const action of ["send", "pause", "resume", "cancel", "duplicate"]) {
      expect({ action, status: (await post(stranger, `/api/campaigns/${id}/${action}`)).status }).toEqual({
        action,
        status: 404,
      });
    }
    expect((await get(stranger, "/api/campaigns")).body.data.map((c: any) => c.id)).toEqual([theirs.id]);
    expect((await get(stranger, `/api/campaign-logs?campaignId=${id}`)).body.total).toBe(0);

    const bulkDelete = await post(stranger, "/api/campaigns/bulk-delete", { campaignIds: [id, theirs.id] });
    expect(bulkDelete.body.deleted).toBe(1);
    await post(stranger, "/api/campaigns/bulk-archive", { campaignIds: [id], archive: true });
    const after = await campaign(owner, id);
    expect(after).toMatchObject({ name: "Owner's draft", status: "draft", archived: false });
    expect((await get(owner, "/api/campaigns")).body.total).toBe(1);

    // Another user's contacts and segments are never an audience.
    const foreign = await contact(stranger, { firstName: "Not yours", phone: "+14155550160" });
    const foreignSegment = await post(stranger, "/api/segments", { name: "Theirs", conditions: { source: { eq: "manual" } } });
    const viaContacts = await create(owner, { recipients: [], audience: { kind: "contacts", contactIds: [foreign.id] } });
    expect((await post(owner, `/api/campaigns/${viaContacts.id}/send`)).body.message).toBe("No recipients selected");
    const viaSegment = await create(owner, { recipients: [], audience: { kind: "segment", segmentId: foreignSegment.body.id } });
    const res = await post(owner, `/api/campaigns/${viaSegment.id}/send`);
    expect(res.status).toBe(400);
    expect((await logs(owner, viaSegment.id)).total).toBe(0);
  });
});

describe("editing, deleting and duplicating", () => {
  test("a draft can be edited and deleted; a sent campaign answers 409 to both", async () => {
    const { acc } = await sender();
    const draft = await create(acc, { name: "Draft" });
    const edited = await put(acc, `/api/campaigns/${draft.id}`, {
      name: "Renamed",
      content: "New text",
      recipients: ["+14155550102"],
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      id: draft.id,
      name: "Renamed",
      content: "New text",
      recipients: ["+14155550102"],
      status: "draft",
    });
    expect((await put(acc, `/api/campaigns/${draft.id}`, { name: "" })).body.message).toBe("Campaign name is required");
    expect((await put(acc, `/api/campaigns/${draft.id}`, { recipients: ["nope"] })).body.message).toBe(
      "Please enter valid phone numbers",
    );
    expect((await put(acc, `/api/campaigns/${draft.id}`, { recipients: [] })).body.message).toBe("Recipients are required");
    expect((await put(acc, `/api/campaigns/${draft.id}`, { audience: { kind: "manual" }, recipients: "" })).body.message).toBe(
      "Recipients are required",
    );
    expect((await campaign(acc, draft.id)).recipients).toEqual(["+14155550102"]);
    const toAll = await put(acc, `/api/campaigns/${draft.id}`, { audience: { kind: "all" }, recipients: [] });
    expect(toAll.body).toMatchObject({ audience: { kind: "all" }, recipients: [] });
    await put(acc, `/api/campaigns/${draft.id}`, { audience: { kind: "manual" }, recipients: ["+14155550102"] });

    const sent = await create(acc, { name: "Sent one" });
    await sendAndSettle(acc, sent.id);
    const edit = await put(acc, `/api/campaigns/${sent.id}`, { name: "Too late" });
    expect(edit.status).toBe(409);
    expect(edit.body.message).toBe("Only draft and scheduled campaigns can be edited");
    const remove = await del(acc, `/api/campaigns/${sent.id}`);
    expect(remove.status).toBe(409);
    expect(remove.body).toEqual({ message: "Only draft campaigns can be deleted", code: "conflict" });
    expect((await campaign(acc, sent.id)).name).toBe("Sent one");

    expect((await del(acc, `/api/campaigns/${draft.id}`)).status).toBe(200);
    expect((await get(acc, `/api/campaigns/${draft.id}`)).status).toBe(404);
  });

  test("duplicate makes a draft 'Copy of ...' with the same message and recipients", async () => {
    const { acc } = await sender();
    const original = await create(acc, {
      name: "Launch",
      content: "We are open",
      recipients: ["+14155550103", "+14155550104"],
      appendOptOut: false,
    });
    await sendAndSettle(acc, original.id);
    const copy = await post(acc, `/api/campaigns/${original.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body.id).not.toBe(original.id);
    expect(copy.body).toMatchObject({
      name: "Copy of Launch",
      status: "draft",
      content: "We are open",
      recipients: ["+14155550103", "+14155550104"],
      appendOptOut: false,
      sentAt: null,
      counts: { recipients: 0 },
    });
    expect((await get(acc, "/api/campaigns")).body.total).toBe(2);
  });
});

describe("audience presets", () => {
  test("exact counts of all, recent, new and loyal subscribed contacts", async () => {
    const { acc, providerId } = await sender();
    const realNow = t.ctx.now;
    const at = async (daysAgo: number, fn: () => Promise<unknown>) => {
      t.ctx.now = () => Date.now() - daysAgo * DAY;
      try {
        await fn();
      } finally {
        t.ctx.now = realNow;
      }
    };
    // Adding contacts "60 days ago" needs a plan in force then (the trial starts at sign-up).
    await at(61, async () => {
      const grant = await post(admin, `/api/admin/users/${acc.user.id}/license`, { planId: "starter", durationDays: 120 });
      expect(grant.status).toBe(200);
    });
    // New (today): one added by hand, two imported.
    await contact(acc, { firstName: "Ann", phone: "+14155551001" });
    const imported = await post(acc, "/api/contacts/import", {
      contacts: [
        { phone: "+14155551002", firstName: "Bo" },
        { phone: "+14155551003", firstName: "Cy" },
      ],
    });
    expect(imported.body.results.created).toBe(2);
    // Recent but not new.
    await at(10, () => contact(acc, { firstName: "Dee", phone: "+14155551004" }));
    // Old ones: one plain, one tagged loyal after import, one with three replies, one with two.
    let oldImport: any;
    await at(60, async () => {
      oldImport = await post(acc, "/api/contacts/import", {
        contacts: [
          { phone: "+14155551005", firstName: "Ed" },
          { phone: "+14155551006", firstName: "Flo" },
        ],
      });
    });
    expect(oldImport.body.results.created).toBe(2);
    const flo = (await get(acc, "/api/contacts?q=4155551006")).body.data[0];
    await post(acc, "/api/contacts/bulk-tag", { contactIds: [flo.id], tags: ["Loyal"], action: "add" });
    await at(60, () => contact(acc, { firstName: "Gus", phone: "+14155551007" }));
    await at(60, () => contact(acc, { firstName: "Hal", phone: "+14155551008" }));
    // Never counted: opted out (even though new and tagged loyal), and no phone.
    const out = await contact(acc, { firstName: "Ivy", phone: "+14155551009", tags: ["loyal"] });
    await post(acc, `/api/contacts/${out.id}/opt-out`);
    await contact(acc, { firstName: "Jo", email: "jo@example.com" });

    const reply = (from: string, body: string) => post(acc, `/api/sms-providers/${providerId}/simulate-inbound`, { from, body });
    const inbound = (n: number) =>
      waitFor(
        () => get(acc, "/api/messages?direction=inbound").then((r) => r.body.total),
        (total) => total === n,
      );
    // Hal's first reply is older than 90 days, so his three replies do not make him loyal.
    await at(100, async () => {
      await reply("+14155551008", "long ago");
      await inbound(1);
    });
    for (let i = 0; i < 3; i++) await reply("+14155551007", `thanks ${i}`);
    for (let i = 0; i < 2; i++) await reply("+14155551008", `hi ${i}`);
    for (let i = 0; i < 3; i++) await reply("+14155551009", `hey ${i}`);
    await inbound(9);

    const counts = await get(acc, "/api/campaigns/audiences");
    expect(counts.status).toBe(200);
    // all: Ann Bo Cy Dee Ed Flo Gus Hal; recent: Ann Bo Cy Dee; new: Ann Bo Cy; loyal: Flo (tag), Gus (3 replies).
    expect(counts.body).toEqual({ all: 8, recent: 4, new: 3, loyal: 2 });
  });
});

describe("sending", () => {
  test("manual recipients: duplicates, invalid and opted-out numbers are skipped and counted; the rest are delivered", async () => {
    const { acc, fromNumber } = await sender();
    await contact(acc, { firstName: "Ann", phone: "+14155550111" });
    const gone = await contact(acc, { firstName: "Gone", phone: "+14155550112" });
    await post(acc, `/api/contacts/${gone.id}/opt-out`);
    const c = await create(acc, {
      name: "Manual",
      content: "Hi [Name]!",
      recipients: ["(415) 555-0111", "+1 415 555 0111", "415-555-0113", "+1 (415) 555-0112", "000-000-0000"],
    });
    const res = await post(acc, `/api/campaigns/${c.id}/send`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ queued: 2, skipped: { optedOut: 1, invalid: 1, duplicate: 1 }, notice: null });
    expect(res.body.campaign).toMatchObject({ id: c.id, status: "sending", fromNumber });
    expect(res.body.campaign.sentAt).not.toBeNull();

    const l = await settled(acc, c.id);
    expect(l.total).toBe(2);
    const byPhone = Object.fromEntries(l.data.map((r: any) => [r.recipientPhone, r]));
    expect(byPhone["+14155550111"]).toMatchObject({
      campaignId: c.id,
      campaignName: "Manual",
      contactName: "Ann",
      status: "delivered",
      errorCode: null,
    });
    expect(byPhone["+14155550113"]).toMatchObject({ contactName: null, status: "delivered" });
    for (const r of l.data) {
      expect(r.sentAt).not.toBeNull();
      expect(r.deliveredAt).not.toBeNull();
    }
    expect(await texts(acc, c.id)).toEqual({ "+14155550111": `Hi Ann!${OPT_OUT}`, "+14155550113": `Hi there!${OPT_OUT}` });

    const finished = await done(acc, c.id);
    expect(finished).toMatchObject({
      status: "completed",
      counts: { recipients: 2, pending: 0, sending: 0, delivered: 2, failed: 0 },
      skipped: { optedOut: 1, invalid: 1, duplicate: 1 },
      totalSent: 2,
      totalDelivered: 2,
      totalBounced: 0,
      successRate: 100,
    });
    expect(finished.completedAt).not.toBeNull();
  });

  test("merge fields and the opt-out line, and none when appendOptOut is false", async () => {
    const { acc } = await sender();
    await t.api("/api/user/onboarding", {
      method: "PUT",
      token: acc.token,
      body: { businessName: "Joe's Pizza", industry: "Restaurant & Food", customerType: "local", goals: ["sales"] },
    });
    const ann = await contact(acc, { firstName: "Ann", lastName: "Lee", phone: "+14155550121", customFields: { code: "A1" } });
    const bob = await contact(acc, { firstName: "Bob", lastName: "", phone: "+14155550122" });
    const content = "Hi [Name] ({firstName} {lastName}), [Business] has code {code} for you.";
    const withLine = await create(acc, {
      name: "Merge",
      content,
      recipients: [],
      audience: { kind: "contacts", contactIds: [ann.id, bob.id] },
    });
    const sent = await sendAndSettle(acc, withLine.id);
    expect(sent.send.queued).toBe(2);
    expect(await texts(acc, withLine.id)).toEqual({
      "+14155550121": `Hi Ann (Ann Lee), Joe's Pizza has code A1 for you.${OPT_OUT}`,
      "+14155550122": `Hi Bob (Bob ), Joe's Pizza has code  for you.${OPT_OUT}`,
    });

    // Only opt-out instructions already in the text make the line redundant, not the word "stop" in prose.
    const prose = await create(acc, {
      name: "Prose",
      content: "Stop by today, [Name]!",
      audience: { kind: "contacts", contactIds: [ann.id] },
    });
    await sendAndSettle(acc, prose.id);
    expect(await texts(acc, prose.id)).toEqual({ "+14155550121": `Stop by today, Ann!${OPT_OUT}` });
    const own = await create(acc, {
      name: "Own line",
      content: "Sale today. Reply STOP to unsubscribe",
      audience: { kind: "contacts", contactIds: [ann.id] },
    });
    await sendAndSettle(acc, own.id);
    expect(await texts(acc, own.id)).toEqual({ "+14155550121": "Sale today. Reply STOP to unsubscribe" });

    const without = await create(acc, {
      name: "No line",
      content: "Pizza night, [Name]!",
      appendOptOut: false,
      audience: { kind: "contacts", contactIds: [ann.id] },
    });
    await sendAndSettle(acc, without.id);
    expect(await texts(acc, without.id)).toEqual({ "+14155550121": "Pizza night, Ann!" });
  });

  test("audience all goes to every subscribed contact, never to opted-out ones", async () => {
    const { acc } = await sender();
    await contact(acc, { firstName: "A", phone: "+14155550131" });
    await contact(acc, { firstName: "B", phone: "+14155550132" });
    const out = await contact(acc, { firstName: "C", phone: "+14155550133" });
    await post(acc, `/api/contacts/${out.id}/opt-out`);
    await contact(acc, { firstName: "D", email: "d@example.com" });
    const c = await create(acc, { name: "Everyone", recipients: [], audience: { kind: "all" } });
    const { send, campaign: finished, logs: l } = await sendAndSettle(acc, c.id);
    expect(send.queued).toBe(2);
    expect(l.data.map((r: any) => r.recipientPhone).sort()).toEqual(["+14155550131", "+14155550132"]);
    expect(l.data.every((r: any) => r.status === "delivered")).toBe(true);
    expect(finished).toMatchObject({ status: "completed", audience: { kind: "all" }, counts: { recipients: 2, delivered: 2 } });
  });

  test("chosen contacts and a segment", async () => {
    const { acc } = await sender();
    const a = await contact(acc, { firstName: "A", phone: "+14155550141", tags: ["vip"] });
    const b = await contact(acc, { firstName: "B", phone: "+14155550142" });
    await contact(acc, { firstName: "C", phone: "+14155550143", tags: ["vip"] });
    const out = await contact(acc, { firstName: "D", phone: "+14155550144", tags: ["vip"] });
    await post(acc, `/api/contacts/${out.id}/opt-out`);

    const chosen = await create(acc, {
      name: "Chosen",
      recipients: [],
      audience: { kind: "contacts", contactIds: [a.id, b.id, out.id] },
    });
    const r1 = await sendAndSettle(acc, chosen.id);
    expect(r1.logs.data.map((r: any) => r.recipientPhone).sort()).toEqual(["+14155550141", "+14155550142"]);

    const segment = await post(acc, "/api/segments", { name: "VIPs", conditions: { tags: { eq: "vip" } } });
    expect(segment.status).toBe(201);
    const seg = await create(acc, { name: "Segment", recipients: [], audience: { kind: "segment", segmentId: segment.body.id } });
    const r2 = await sendAndSettle(acc, seg.id);
    expect(r2.logs.data.map((r: any) => r.recipientPhone).sort()).toEqual(["+14155550141", "+14155550143"]);
    expect(r2.campaign).toMatchObject({ status: "completed", counts: { recipients: 2, delivered: 2 } });
  });

  test("failures count as bounced; logs filter by status; /api/stats sums every campaign", async () => {
    const { acc } = await sender();
    const c = await create(acc, { name: "Mixed", recipients: ["+14155550105", "+14155550106", "+14155550150"] });
    const { campaign: finished } = await sendAndSettle(acc, c.id);
    expect(finished).toMatchObject({
      status: "completed",
      counts: { recipients: 3, delivered: 2, failed: 1 },
      totalSent: 3,
      totalDelivered: 2,
      totalBounced: 1,
      successRate: 66.7,
    });
    const failed = await get(acc, `/api/campaign-logs?campaignId=${c.id}&status=failed`);
    expect(failed.body.total).toBe(1);
    expect(failed.body.data[0]).toMatchObject({ recipientPhone: "+14155550150", status: "failed", errorCode: "30003" });
    expect(failed.body.data[0].errorMessage).toBe("Unreachable destination handset");
    expect((await get(acc, `/api/campaign-logs?campaignId=${c.id}&status=delivered`)).body.total).toBe(2);

    const second = await create(acc, { name: "Second", recipients: ["+14155550107"] });
    await sendAndSettle(acc, second.id);
    // A one-off message is not a campaign send.
    await post(acc, "/api/messages/send", { phone: "+14155550108", content: "one-off" });
    expect((await get(acc, "/api/campaign-logs")).body.total).toBe(4);
    expect((await get(acc, "/api/stats")).body).toEqual({ totalSent: 4, totalDelivered: 3, totalOpened: null, totalBounced: 1 });
  });

  test("a campaign whose every message the provider rejects ends failed", async () => {
    const { acc } = await sender();
    const c = await create(acc, { name: "Rejected", recipients: ["+14155550181", "+14155550182"] });
    const { campaign: finished, logs: l } = await sendAndSettle(acc, c.id);
    // Refused at the provider: failed, never sent, so nothing to rate.
    expect(finished).toMatchObject({ status: "failed", counts: { recipients: 2, failed: 2, refused: 2 }, totalSent: 0, totalBounced: 2, successRate: null });
    expect(l.data.map((r: any) => [r.status, r.errorCode])).toEqual([
      ["failed", "21211"],
      ["failed", "21211"],
    ]);
  });

  test("an empty audience answers 400 'No recipients selected' and the campaign stays a draft", async () => {
    const { acc } = await sender();
    const out = await contact(acc, { firstName: "Out", phone: "+14155550151" });
    await post(acc, `/api/contacts/${out.id}/opt-out`);
    const c = await create(acc, { name: "Nobody", recipients: [], audience: { kind: "all" } });
    const res = await post(acc, `/api/campaigns/${c.id}/send`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("No recipients selected");
    expect((await campaign(acc, c.id)).status).toBe("draft");
    const onlyOptedOut = await create(acc, { name: "Only opted out", recipients: ["+14155550151"] });
    expect((await post(acc, `/api/campaigns/${onlyOptedOut.id}/send`)).body.message).toBe("No recipients selected");
  });

  test("without a provider and number the answer points to Phone Settings", async () => {
    const acc = await account();
    const c = await create(acc, {});
    const res = await post(acc, `/api/campaigns/${c.id}/send`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: "No SMS provider or phone number is set up. Go to Phone Settings, add your provider's API credentials (or the simulator), then add at least one phone number.", needsProvider: true });
    expect((await campaign(acc, c.id)).status).toBe("draft");
    expect((await logs(acc, c.id)).total).toBe(0);
  });

  test("sending twice answers 409 and sends nothing more", async () => {
    const { acc } = await sender();
    const c = await create(acc, { recipients: ["+14155550109"] });
    await sendAndSettle(acc, c.id);
    const again = await post(acc, `/api/campaigns/${c.id}/send`);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("This campaign is completed and cannot be sent again");
    expect((await logs(acc, c.id)).total).toBe(1);
  });

  test("the plan's monthly messages: the 80% notice in the send answer, 402 past the limit", async () => {
    const { acc } = await sender();
    const sentThisMonth = (n: number) => {
      const rows = Array.from({ length: n }, () => ({
        id: crypto.randomUUID(),
        userId: acc.user.id,
        phone: "+14155550100",
        content: "earlier",
        direction: "outbound" as const,
        status: "delivered" as const,
        createdAt: new Date(),
      }));
      for (let i = 0; i < rows.length; i += 500)
        t.ctx.db
          .insert(messages)
          .values(rows.slice(i, i + 500))
          .run();
    };
    // A trial has the Starter plan's 5,000 messages a month.
    sentThisMonth(3998);
    const near = await create(acc, { name: "Near", recipients: ["+14155550114", "+14155550115"] });
    const res = await post(acc, `/api/campaigns/${near.id}/send`);
    expect(res.status).toBe(202);
    expect(res.body.notice).toBe(
      "You have used 80% of your Starter plan's 5,000 SMS this month (4,000). Upgrade your plan or redeem a license code before you reach the limit.",
    );
    await settled(acc, near.id);

    sentThisMonth(997);
    const over = await create(acc, {
      name: "Over",
      recipients: ["+14155550116", "+14155550117", "+14155550118", "+14155550119"],
    });
    const refused = await post(acc, `/api/campaigns/${over.id}/send`);
    expect(refused.status).toBe(402);
    expect(refused.body.message).toBe(
      "Your Starter plan allows 5,000 SMS per month; you have sent 4,997 this month and tried to send 4 (a text longer than one SMS counts each part). Upgrade your plan or redeem a license code.",
    );
    expect((await campaign(acc, over.id)).status).toBe("draft");
    expect((await logs(acc, over.id)).total).toBe(0);
    // Exactly reaching the limit is allowed.
    await put(acc, `/api/campaigns/${over.id}`, { recipients: ["+14155550116", "+14155550117", "+14155550118"] });
    expect((await post(acc, `/api/campaigns/${over.id}/send`)).status).toBe(202);
  });

  test("pause parks what has not gone out, resume sends it; cancel ends the rest", async () => {
    const { acc, providerId } = await sender();
    const simulator = (throttleRate: number) =>
      t.api(`/api/sms-providers/${providerId}`, {
        method: "PATCH",
        token: acc.token,
        body: { settings: { deliveryDelayMs: 20, throttleRate } },
      });
    // Every send is answered 429, so the messages stay queued.
    await simulator(1);
    const c = await create(acc, { name: "Held", recipients: ["+14155550145", "+14155550146"] });
    expect((await post(acc, `/api/campaigns/${c.id}/send`)).status).toBe(202);
    const paused = await post(acc, `/api/campaigns/${c.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: "paused", pauseReason: null });
    // One event, saying the owner paused it (the lifecycle's pause, as a failure run's, with by: "user").
    const events = t.ctx.db.$client.query(`SELECT payload FROM events WHERE type = 'campaign.paused' AND subject_id = ?`).all(c.id) as { payload: string }[];
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([{ reason: null, by: "user" }]);
    await simulator(0);
    await Bun.sleep(1500);
    expect(await campaign(acc, c.id)).toMatchObject({ status: "paused", counts: { pending: 2, delivered: 0 } });
    expect(await post(acc, `/api/campaigns/${c.id}/pause`)).toMatchObject({
      status: 409,
      body: { message: "Only a sending or scheduled campaign can be paused" },
    });

    const resumed = await post(acc, `/api/campaigns/${c.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe("sending");
    await settled(acc, c.id);
    expect(await done(acc, c.id)).toMatchObject({ status: "completed", counts: { delivered: 2 } });
    expect(await post(acc, `/api/campaigns/${c.id}/resume`)).toMatchObject({
      status: 409,
      body: { message: "Only a paused campaign can be resumed" },
    });
    expect(await post(acc, `/api/campaigns/${c.id}/cancel`)).toMatchObject({
      status: 409,
      body: { message: "Only a sending, paused or scheduled campaign can be cancelled" },
    });

    await simulator(1);
    const d = await create(acc, { name: "Stopped", recipients: ["+14155550147", "+14155550148"] });
    await post(acc, `/api/campaigns/${d.id}/send`);
    const cancelled = await post(acc, `/api/campaigns/${d.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "cancelled", counts: { pending: 0, delivered: 0 } });
    await simulator(0);
    // A message in the middle of its (refused) provider call when the cancel came is cancelled at its next turn.
    await waitFor(
      () => campaign(acc, d.id),
      (x) => x.counts.cancelled === 2,
    );
    await Bun.sleep(500);
    const l = await logs(acc, d.id);
    expect(l.data.map((r: any) => r.status)).toEqual(["cancelled", "cancelled"]);
    expect((await campaign(acc, d.id)).status).toBe("cancelled");
  });
});
