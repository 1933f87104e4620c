// State rules (issue 34 item 2), on the server's fake clock: Florida's and Oklahoma's 8 AM-8 PM and three marketing
// texts per 24 hours against California's federal-only 9 PM (the account's quiet hours, 21:00-08:00), at the edges;
// the held reason as the recipients list, the thread and the API say it; an administrator's line changing the
// outcome; a contact's own state winning over the area code; the table itself and its area codes.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { trialFrom } from "../support/trial";
import { NANP_ZONE_CODES } from "../../src/sending/recipient-zone";
import { BUILT_IN_STATE_RULES, holdFor, stateOfNumber, US_AREA_CODES } from "../../src/sending/state-rules";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
let realNow: () => number;
let admin: Account;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  realNow = t.ctx.now;
  admin = await t.signUpVerified();
  t.ctx.db.$client.run("UPDATE users SET role = 'admin' WHERE id = ?", [admin.user.id]);
});
afterEach(() => {
  t.ctx.now = realNow;
  t.ctx.sending.wake();
});
afterAll(() => t?.stop());

/** The server's clock reads `iso` now and runs on from there. */
const clockAt = (iso: string) => {
  const offset = Date.parse(iso) - Date.now();
  t.ctx.now = () => Date.now() + offset;
  t.ctx.sending.wake();
};

const FL_REASON = "Held: Florida law allows texts 8 AM–8 PM (Fla. Stat. § 501.616(6))";
const FL_CAP_REASON = "Held: Florida law allows 3 texts per 24 hours (Fla. Stat. § 501.616(6))";
const OK_REASON = "Held: Oklahoma law allows texts 8 AM–8 PM (Okla. Stat. tit. 15, § 775C (Telephone Solicitation Act of 2022))";
const QUIET_REASON = "Held: your quiet hours allow texts 8 AM–9 PM (Sending settings)";

const post = (acc: Account, path: string, body: unknown = {}) => t.api(path, { method: "POST", token: acc.token, body });
const get = (acc: Account, path: string) => t.api(path, { token: acc.token });

/** An account sending through the simulator from one unthrottled number, quiet hours at their default (21:00-08:00). */
async function sender() {
  const acc = await t.signUpVerified();
  await trialFrom(t.ctx, acc.user.id, new Date("2026-03-01T00:00:00.000Z"));
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
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
  return acc;
}

type Log = { status: string; heldReason: string | null; heldUntil: string | null; sentAt: string | null };

/**
 * A one-recipient campaign sent at `iso` on the server's clock: what became of it once the engine decided (delivered,
 * or held with its reason), as GET /api/campaign-logs answers.
 */
async function sendAt(acc: Account, iso: string, phone: string): Promise<Log> {
  clockAt(iso);
  const created = await post(acc, "/api/campaigns", {
    type: "sms",
    name: `To ${phone} at ${iso}`,
    content: "Tulips are in",
    recipients: [phone],
  });
  expect(created.status).toBe(201);
  expect((await post(acc, `/api/campaigns/${created.body.id}/send`)).status).toBe(202);
  const logs = await waitFor(
    () => get(acc, `/api/campaign-logs?campaignId=${created.body.id}`).then((r) => r.body.data as Log[]),
    (d) => d.length === 1 && (d[0]!.status === "delivered" || d[0]!.heldReason !== null),
  );
  const { status, heldReason, heldUntil, sentAt } = logs[0]!;
  return { status, heldReason, heldUntil, sentAt };
}

const sent = (l: Log) => ({ status: l.status, heldReason: l.heldReason });
const DELIVERED = { status: "delivered", heldReason: null };

// 2026-03-10 is after the change to summer time (8 March): New York UTC-4, Chicago UTC-5, Los Angeles UTC-7.
describe("hours", () => {
  test("Florida at 7:59 PM sent, at 8:00 PM held until 8 AM; Oklahoma the same; California sent at 8:00 PM and held at 9:00 PM", async () => {
    const acc = await sender();
    expect(sent(await sendAt(acc, "2026-03-10T23:59:00.000Z", "+13055550101"))).toEqual(DELIVERED);
    expect(await sendAt(acc, "2026-03-11T00:00:00.000Z", "+13055550102")).toEqual({
      status: "pending",
      heldReason: FL_REASON,
      heldUntil: "2026-03-11T12:00:00.000Z",
      sentAt: null,
    });
    expect(sent(await sendAt(acc, "2026-03-11T00:59:00.000Z", "+14055550103"))).toEqual(DELIVERED);
    expect(await sendAt(acc, "2026-03-11T01:00:00.000Z", "+14055550104")).toEqual({
      status: "pending",
      heldReason: OK_REASON,
      heldUntil: "2026-03-11T13:00:00.000Z",
      sentAt: null,
    });
    expect(sent(await sendAt(acc, "2026-03-11T03:00:00.000Z", "+14155550105"))).toEqual(DELIVERED);
    expect(sent(await sendAt(acc, "2026-03-11T03:59:00.000Z", "+14155550106"))).toEqual(DELIVERED);
    expect(await sendAt(acc, "2026-03-11T04:00:00.000Z", "+14155550107")).toEqual({
      status: "pending",
      heldReason: QUIET_REASON,
      heldUntil: "2026-03-11T15:00:00.000Z",
      sentAt: null,
    });

    // The campaign counts it as held by state law; the thread says the same, with the recipient's clock.
    const held = await get(acc, `/api/campaigns?type=sms&pageSize=50`);
    const fl = held.body.data.find((c: { name: string }) => c.name === "To +13055550102 at 2026-03-11T00:00:00.000Z");
    expect(fl.quietWait).toEqual({ count: 1, byLaw: 1, resumesAt: "8:00 AM", lastResumeAt: "2026-03-11T12:00:00.000Z" });
    const list = await get(acc, `/api/conversations?pageSize=100&filter=all&q=3055550102`);
    const thread = await get(acc, `/api/messages/${list.body.data[0].id}`);
    expect(thread.body.at(-1).quietHold).toEqual({ until: "2026-03-11T12:00:00.000Z", clock: "8:00 AM", reason: FL_REASON });

    // 8:00 AM in Florida: the held message goes, and says nothing of a hold any more.
    clockAt("2026-03-11T12:00:00.000Z");
    const logs = await waitFor(
      () => get(acc, `/api/campaign-logs?pageSize=50`).then((r) => r.body.data as ({ recipientPhone: string } & Log)[]),
      (d) => d.find((l) => l.recipientPhone === "+13055550102")?.status === "delivered",
    );
    expect(sent(logs.find((l) => l.recipientPhone === "+13055550102")!)).toEqual(DELIVERED);
    // Oklahoma's 8 AM is an hour later.
    expect(logs.find((l) => l.recipientPhone === "+14055550104")!.heldReason).toBe(OK_REASON);
  });

  test("the account's quiet hours turned off: Florida's law still holds at 8:00 PM, California's texts go at 11 PM", async () => {
    const acc = await sender();
    const off = await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
    expect(off.status).toBe(200);
    expect((await sendAt(acc, "2026-03-11T00:00:00.000Z", "+13055550111")).heldReason).toBe(FL_REASON);
    expect(sent(await sendAt(acc, "2026-03-11T06:00:00.000Z", "+14155550112"))).toEqual(DELIVERED);
  });
});

describe("the delivery preview", () => {
  test("at 8:00 PM in New York a Florida recipient waits until 8 AM, a New York one does not; a transactional text waits for neither", async () => {
    const acc = await sender();
    clockAt("2026-03-11T00:00:00.000Z");
    const preview = (body: Record<string, unknown>) =>
      post(acc, "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: ["+13055550151", "+12125550152"], ...body });
    expect((await preview({})).body).toMatchObject({
      total: 2,
      inQuietHours: 1,
      firstResumeAt: "2026-03-11T12:00:00.000Z",
      lastResumeAt: "2026-03-11T12:00:00.000Z",
    });
    expect((await preview({ transactional: true })).body).toMatchObject({ total: 2, inQuietHours: 0, firstResumeAt: null });
  });
});

describe("three texts per 24 hours", () => {
  test("the fourth marketing text in 24 hours to a Florida number is held until the first is 24 hours old, then sent; California has no cap", async () => {
    const acc = await sender();
    const FL = "+13055550121";
    const first = await sendAt(acc, "2026-03-10T14:00:00.000Z", FL);
    expect(sent(first)).toEqual(DELIVERED);
    expect(sent(await sendAt(acc, "2026-03-10T15:00:00.000Z", FL))).toEqual(DELIVERED);
    expect(sent(await sendAt(acc, "2026-03-10T16:00:00.000Z", FL))).toEqual(DELIVERED);
    const fourth = await sendAt(acc, "2026-03-10T17:00:00.000Z", FL);
    // Until the first one leaves the 24 hours: the instant it was sent, a day later.
    const due = new Date(Date.parse(first.sentAt!) + 24 * 3600_000).toISOString();
    expect(fourth).toEqual({ status: "pending", heldReason: FL_CAP_REASON, heldUntil: due, sentAt: null });

    // A moment before, it still waits; at the instant, the first one after 24 hours goes.
    clockAt(new Date(Date.parse(due) - 60_000).toISOString());
    const still = await get(acc, `/api/campaign-logs?status=pending`);
    expect(still.body.data.map((l: Log) => l.heldReason)).toEqual([FL_CAP_REASON]);
    clockAt(due);
    const all = await waitFor(
      () => get(acc, `/api/campaign-logs?pageSize=10`).then((r) => r.body.data as Log[]),
      (d) => d.every((l) => l.status === "delivered"),
    );
    expect(all.map(sent)).toEqual([DELIVERED, DELIVERED, DELIVERED, DELIVERED]);

    // California: four in an hour, all sent.
    for (const at of [
      "2026-03-12T17:00:00.000Z",
      "2026-03-12T17:10:00.000Z",
      "2026-03-12T17:20:00.000Z",
      "2026-03-12T17:30:00.000Z",
    ]) {
      expect(sent(await sendAt(acc, at, "+14155550122"))).toEqual(DELIVERED);
    }
  });

  test("Oklahoma's cap too: the fourth marketing text in 24 hours to an Oklahoma number is held until the first is 24 hours old", async () => {
    const acc = await sender();
    const OK = "+14055550121";
    const first = await sendAt(acc, "2026-03-10T14:00:00.000Z", OK);
    expect(sent(first)).toEqual(DELIVERED);
    expect(sent(await sendAt(acc, "2026-03-10T15:00:00.000Z", OK))).toEqual(DELIVERED);
    expect(sent(await sendAt(acc, "2026-03-10T16:00:00.000Z", OK))).toEqual(DELIVERED);
    const fourth = await sendAt(acc, "2026-03-10T17:00:00.000Z", OK);
    const due = new Date(Date.parse(first.sentAt!) + 24 * 3600_000).toISOString();
    expect(fourth).toEqual({
      status: "pending",
      heldReason: "Held: Oklahoma law allows 3 texts per 24 hours (Okla. Stat. tit. 15, § 775C (Telephone Solicitation Act of 2022))",
      heldUntil: due,
      sentAt: null,
    });
  });
});

describe("the table and the administrator's lines", () => {
  test("GET /api/state-rules is the table in force; an administrator's line for California holds 8 PM there, one without hours lets Florida's go; deleting it restores the built-in line", async () => {
    const table = await t.api("/api/state-rules");
    expect(table.status).toBe(200);
    expect(table.body.rules.map((r: { state: string; origin: string }) => `${r.state} ${r.origin}`)).toEqual([
      "FL built-in",
      "MD built-in",
      "OK built-in",
    ]);
    expect(table.body.rules[0]).toEqual({
      state: "FL",
      name: "Florida",
      window: { from: "08:00", until: "20:00" },
      capPer24h: 3,
      source: "Fla. Stat. § 501.616(6)",
      checked: "2026-12-07",
      hours: "8 AM–8 PM",
      origin: "built-in",
    });

    const acc = await sender();
    const line = {
      allowedFrom: "08:00",
      allowedUntil: "20:00",
      capPer24h: null,
      source: "Cal. test line",
      checked: "2026-12-07",
    };
    // Only an administrator changes it, and only with a sound line.
    expect((await t.api("/api/admin/state-rules/CA", { method: "PUT", token: acc.token, body: line })).status).toBe(403);
    const bad = async (state: string, body: unknown) => {
      const r = await t.api(`/api/admin/state-rules/${state}`, { method: "PUT", token: admin.token, body });
      return `${r.status} ${r.body.message}`;
    };
    expect(await bad("ZZ", line)).toBe("400 Unknown state: ZZ. Use a two-letter code such as FL");
    expect(await bad("CA", { ...line, allowedUntil: "07:00" })).toBe(
      "400 The allowed hours must start before they end, on the same day",
    );
    expect(await bad("CA", { ...line, allowedFrom: "8am" })).toBe(
      "400 Allowed hours are times of day as HH:MM, such as 08:00 and 20:00",
    );
    expect(await bad("CA", { ...line, allowedFrom: null })).toBe("400 Give both allowed hours, or neither");
    expect(await bad("CA", { ...line, source: " " })).toBe("400 Give the legal source of the rule");
    expect(await bad("CA", { ...line, checked: "yesterday" })).toBe("400 The date checked is a date as YYYY-MM-DD");

    const set = await t.api("/api/admin/state-rules/ca", { method: "PUT", token: admin.token, body: line });
    expect(set.status).toBe(200);
    expect(set.body.rules.map((r: { state: string; origin: string }) => `${r.state} ${r.origin}`)).toEqual([
      "CA added",
      "FL built-in",
      "MD built-in",
      "OK built-in",
    ]);
    const off = await t.api("/api/admin/state-rules/FL", {
      method: "PUT",
      token: admin.token,
      body: { allowedFrom: null, allowedUntil: null, capPer24h: null, source: "Repealed (test)", checked: "2026-12-07" },
    });
    expect(off.status).toBe(200);
    try {
      expect(await sendAt(acc, "2026-03-11T03:00:00.000Z", "+14155550131")).toEqual({
        status: "pending",
        heldReason: "Held: California law allows texts 8 AM–8 PM (Cal. test line)",
        heldUntil: "2026-03-11T15:00:00.000Z",
        sentAt: null,
      });
      expect(sent(await sendAt(acc, "2026-03-11T00:00:00.000Z", "+13055550132"))).toEqual(DELIVERED);
    } finally {
      expect((await t.api("/api/admin/state-rules/CA", { method: "DELETE", token: admin.token })).status).toBe(200);
      const restored = await t.api("/api/admin/state-rules/FL", { method: "DELETE", token: admin.token });
      expect(restored.body.rules.map((r: { state: string; origin: string }) => `${r.state} ${r.origin}`)).toEqual([
        "FL built-in",
        "MD built-in",
        "OK built-in",
      ]);
    }
    const again = await t.api("/api/admin/state-rules/FL", { method: "DELETE", token: admin.token });
    expect(`${again.status} ${again.body.message}`).toBe("404 No administrator's rule for this state");
    // Built-in again: Florida holds at 8 PM.
    expect((await sendAt(acc, "2026-03-11T00:00:00.000Z", "+13055550133")).heldReason).toBe(FL_REASON);
  });

  test("a contact's own state wins over the area code: a California number of a contact who lives in Florida is held at 8 PM her time", async () => {
    const acc = await sender();
    const contact = await post(acc, "/api/contacts", {
      firstName: "Rosa",
      phone: "+14155550141",
      customFields: { State: "Florida" },
    });
    expect(contact.status).toBe(201);
    expect((await sendAt(acc, "2026-03-11T03:00:00.000Z", "+14155550141")).heldReason).toBe(FL_REASON);
  });

  test("every US area code of the time-zone table has its state, and every state's code has a US zone", () => {
    const usZones = [
      "America/New_York",
      "America/Chicago",
      "America/Denver",
      "America/Boise",
      "America/Phoenix",
      "America/Los_Angeles",
      "America/Anchorage",
      "Pacific/Honolulu",
      "America/Puerto_Rico",
      "America/St_Thomas",
      "Pacific/Guam",
      "Pacific/Saipan",
      "Pacific/Pago_Pago",
    ];
    const zoned = new Set<string>();
    let zone = "";
    for (const token of NANP_ZONE_CODES.split(/\s+/)) {
      if (token.endsWith(":")) zone = token.slice(0, -1);
      else if (token && usZones.includes(zone)) zoned.add(token);
    }
    const stated = new Set(US_AREA_CODES.split(/\s+/).filter((x) => /^\d{3}$/.test(x)));
    expect([...zoned].filter((c) => !stated.has(c))).toEqual([]);
    expect([...stated].filter((c) => !zoned.has(c))).toEqual([]);
    expect(["+13055550000", "+14055550000", "+14105550000", "+14155550000", "+14165550000"].map(stateOfNumber)).toEqual([
      "FL",
      "OK",
      "MD",
      "CA",
      null,
    ]);
  });

  test("each built-in line has a source and a date; the stricter rule names itself", () => {
    for (const r of BUILT_IN_STATE_RULES) expect(r.source.length > 0 && /^\d{4}-\d{2}-\d{2}$/.test(r.checked)).toBe(true);
    const fl = BUILT_IN_STATE_RULES.find((r) => r.state === "FL")!;
    const quiet = { enabled: true, start: "21:00", end: "08:00" } as const;
    // 22:00 in New York: both hold until 8 AM; the law is named.
    expect(holdFor(Date.parse("2026-03-11T02:00:00.000Z"), "America/New_York", quiet, fl, [])).toEqual({
      until: Date.parse("2026-03-11T12:00:00.000Z"),
      reason: FL_REASON,
    });
    // Quiet hours until 10 AM outlast the law's 8 AM: the account's setting is named.
    const late = { enabled: true, start: "21:00", end: "10:00" } as const;
    expect(holdFor(Date.parse("2026-03-11T02:00:00.000Z"), "America/New_York", late, fl, [])).toEqual({
      until: Date.parse("2026-03-11T14:00:00.000Z"),
      reason: "Held: your quiet hours allow texts 10 AM–9 PM (Sending settings)",
    });
  });
});
