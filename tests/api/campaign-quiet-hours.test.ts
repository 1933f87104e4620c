// Quiet hours the user controls (issue 28 item 7), on the server's fake clock: a held campaign's "send held messages
// now", quiet hours turned off or moved letting go what they held, transactional one-off texts never held, and held
// messages shown in a thread as waiting until the end of quiet hours on the recipient's clock.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { trialFrom } from "../support/trial";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
let realNow: () => number;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  realNow = t.ctx.now;
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
};

// 2026-03-10, 11:15 UTC: 07:15 in New York, 06:15 in Chicago, 04:15 in Los Angeles (quiet hours, 21:00-08:00),
// 11:15 in London (awake).
const MORNING = "2026-03-10T11:15:00.000Z";
const NY = "+12125550101";
const CHICAGO = "+13125550102";
const LA = "+14155550103";
const LONDON = "+447911123456";

const post = (acc: Account, path: string, body: unknown = {}) => t.api(path, { method: "POST", token: acc.token, body });
const get = (acc: Account, path: string) => t.api(path, { token: acc.token });
const patchSettings = (acc: Account, body: unknown) => t.api("/api/user/settings", { method: "PATCH", token: acc.token, body });

/** An account sending through the simulator from one unthrottled number, quiet hours at their default (21:00-08:00). */
async function sender() {
  const acc = await t.signUpVerified();
  await trialFrom(t.ctx, acc.user.id, new Date("2026-03-01T00:00:00.000Z"));
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await t.api(`/api/sms-providers/${provider.body.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 20 } } });
  const numbers = await get(acc, `/api/providers/${provider.body.id}/available-numbers`);
  const number = await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 0 });
  expect(number.status).toBe(201);
  return acc;
}

async function sendNow(acc: Account, recipients: string[], extra: Record<string, unknown> = {}) {
  const created = await post(acc, "/api/campaigns", { type: "sms", name: "Tulips", content: "Tulips are in", recipients, ...extra });
  expect(created.status).toBe(201);
  const sent = await post(acc, `/api/campaigns/${created.body.id}/send`);
  expect(sent.status).toBe(202);
  return created.body.id as string;
}

const campaign = (acc: Account, id: string) => get(acc, `/api/campaigns/${id}`).then((r) => r.body);

/** The messages of a campaign by phone: status, kind and calls made (a message sent twice would show 2). */
function outbox(campaignId: string) {
  const rows = t.ctx.db.$client
    .query(`SELECT phone, status, kind, attempts FROM messages WHERE campaign_id = ? ORDER BY phone`)
    .all(campaignId) as { phone: string; status: string; kind: string; attempts: number }[];
  return Object.fromEntries(rows.map((r) => [r.phone, `${r.status} ${r.kind} ${r.attempts}`]));
}

/** The last message of the thread with `phone`. */
async function lastInThread(acc: Account, phone: string) {
  const list = await get(acc, `/api/conversations?pageSize=100&filter=all&q=${encodeURIComponent(phone.slice(2))}`);
  const c = list.body.data.find((x: { phone: string }) => x.phone === phone);
  const thread = await get(acc, `/api/messages/${c.id}`);
  return thread.body.at(-1);
}

describe("send held messages now", () => {
  test("a held campaign's messages go at once, each exactly once; the thread said they waited until 8:00 AM the recipient's time", async () => {
    const acc = await sender();
    clockAt(MORNING);
    const id = await sendNow(acc, [NY, CHICAGO, LA, LONDON]);
    const held = await waitFor(() => campaign(acc, id), (c) => c.quietWait?.count === 3 && c.counts.delivered === 1);
    expect(held.quietWait).toEqual({ count: 3, byLaw: 0, resumesAt: "8:00 AM", lastResumeAt: "2026-03-10T15:00:00.000Z" });
    expect(held.anyHourSince).toBeNull();

    // /chat: waiting for quiet hours until 8:00 on each recipient's clock, not sent.
    const ny = await lastInThread(acc, NY);
    expect({ status: ny.status, quietHold: ny.quietHold }).toEqual({ status: "queued", quietHold: { until: "2026-03-10T12:00:00.000Z", clock: "8:00 AM", reason: "Held: your quiet hours allow texts 8 AM–9 PM (Sending settings)" } });
    expect((await lastInThread(acc, LA)).quietHold).toEqual({ until: "2026-03-10T15:00:00.000Z", clock: "8:00 AM", reason: "Held: your quiet hours allow texts 8 AM–9 PM (Sending settings)" });
    const london = await waitFor(() => lastInThread(acc, LONDON), (m) => m.status === "delivered");
    expect(london.quietHold).toBeNull();

    const before = t.ctx.now();
    const res = await post(acc, `/api/campaigns/${id}/send-held`);
    const after = t.ctx.now();
    expect(res.status).toBe(200);
    expect(res.body.released).toBe(3);
    // When the user chose it, on the server's clock.
    const since = Date.parse(res.body.campaign.anyHourSince);
    expect(since >= before && since <= after).toBe(true);

    // Still 07:15 in New York: they went anyway, because the user chose so.
    const done = await waitFor(() => campaign(acc, id), (c) => c.status === "completed" && c.counts.delivered === c.counts.recipients, 10_000);
    expect(done.counts).toMatchObject({ recipients: 4, delivered: 4, pending: 0 });
    expect(done.quietWait).toBeNull();
    expect(outbox(id)).toEqual({
      [NY]: "delivered campaign 1",
      [CHICAGO]: "delivered campaign 1",
      [LA]: "delivered campaign 1",
      [LONDON]: "delivered campaign 1",
    });
    const sentNy = await lastInThread(acc, NY);
    expect({ status: sentNy.status, quietHold: sentNy.quietHold }).toEqual({ status: "delivered", quietHold: null });

    // Finished, it has nothing left to send.
    const again = await post(acc, `/api/campaigns/${id}/send-held`);
    expect({ status: again.status, message: again.body.message }).toEqual({ status: 409, message: "Only a sending campaign has held messages to send now" });
  });

  test("only the owner's sending campaign: a draft is refused, another account's is not found", async () => {
    const acc = await sender();
    const draft = await post(acc, "/api/campaigns", { type: "sms", name: "Draft", content: "Hi", recipients: [NY] });
    const res = await post(acc, `/api/campaigns/${draft.body.id}/send-held`);
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 409, message: "Only a sending campaign has held messages to send now" });
    const other = await t.signUpVerified();
    const theirs = await post(other, `/api/campaigns/${draft.body.id}/send-held`);
    expect({ status: theirs.status, message: theirs.body.message }).toEqual({ status: 404, message: "Campaign not found" });
    expect((await t.api(`/api/campaigns/${draft.body.id}/send-held`, { method: "POST", body: {} })).status).toBe(401);
  });
});

describe("quiet hours changed in the settings", () => {
  test("turned off: the messages they held go now, and the answer says how many", async () => {
    const acc = await sender();
    clockAt(MORNING);
    const id = await sendNow(acc, [NY, LA, LONDON]);
    await waitFor(() => campaign(acc, id), (c) => c.quietWait?.count === 2 && c.counts.delivered === 1);
    const res = await patchSettings(acc, { quietHoursEnabled: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ quietHoursEnabled: false, releasedHeld: 2 });
    const done = await waitFor(() => campaign(acc, id), (c) => c.status === "completed" && c.counts.delivered === c.counts.recipients, 10_000);
    expect(done.counts).toMatchObject({ recipients: 3, delivered: 3 });
    expect(outbox(id)).toEqual({ [NY]: "delivered campaign 1", [LA]: "delivered campaign 1", [LONDON]: "delivered campaign 1" });
    // The campaign itself was not told to ignore quiet hours: the account's setting did it.
    expect(done.anyHourSince).toBeNull();
    // A change that touches no quiet hours lets nothing go.
    expect((await patchSettings(acc, { appendOptOut: false })).body.releasedHeld).toBe(0);
  });

  test("moved to end at 07:00: New York (07:15) goes, Los Angeles (04:15) waits until 07:00 its time", async () => {
    const acc = await sender();
    clockAt(MORNING);
    const id = await sendNow(acc, [NY, LA]);
    await waitFor(() => campaign(acc, id), (c) => c.quietWait?.count === 2);
    const res = await patchSettings(acc, { quietHoursEnd: "07:00" });
    expect(res.body).toMatchObject({ quietHoursEnabled: true, quietHoursEnd: "07:00", releasedHeld: 2 });
    const c = await waitFor(() => campaign(acc, id), (c) => c.counts.delivered === 1 && c.quietWait?.count === 1);
    expect(c.quietWait).toEqual({ count: 1, byLaw: 0, resumesAt: "7:00 AM", lastResumeAt: "2026-03-10T14:00:00.000Z" });
    expect(outbox(id)[NY]).toBe("delivered campaign 1");
    expect((await lastInThread(acc, LA)).quietHold).toEqual({ until: "2026-03-10T14:00:00.000Z", clock: "7:00 AM", reason: "Held: your quiet hours allow texts 7 AM–9 PM (Sending settings)" });
  });
});

describe("transactional one-off texts", () => {
  test("are not held by quiet hours: written as one-off messages, sent at 04:15 in Los Angeles", async () => {
    const acc = await sender();
    clockAt(MORNING);
    const preview = await post(acc, "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: [NY, LA], content: "Your order shipped", transactional: true });
    expect(preview.body).toMatchObject({ total: 2, inQuietHours: 0, resumesAt: null });
    const marketing = await post(acc, "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: [NY, LA], content: "Your order shipped" });
    expect(marketing.body).toMatchObject({ total: 2, inQuietHours: 2, resumesAt: "8:00 AM" });

    const id = await sendNow(acc, [NY, LA], { transactional: true, content: "Your order shipped" });
    const done = await waitFor(() => campaign(acc, id), (c) => c.status === "completed" && c.counts.delivered === c.counts.recipients, 10_000);
    expect(done).toMatchObject({ transactional: true, quietWait: null, counts: { recipients: 2, delivered: 2 } });
    expect(outbox(id)).toEqual({ [NY]: "delivered single 1", [LA]: "delivered single 1" });
  });

  test("only to numbers typed in; the flag is a boolean", async () => {
    const acc = await sender();
    const segment = await post(acc, "/api/segments", { name: "VIP", conditions: { tags: { contains: "vip" } } });
    for (const audience of [{ kind: "all" }, { kind: "segment", segmentId: segment.body.id }]) {
      const res = await post(acc, "/api/campaigns", { type: "sms", name: "Sale", content: "Sale", audience, transactional: true });
      expect({ status: res.status, message: res.body.message }).toEqual({
        status: 400,
        message: "Only a message to numbers typed in can be transactional: a list or a segment is marketing",
      });
    }
    // Made transactional to typed numbers, it cannot then be pointed at a list.
    const typed = await post(acc, "/api/campaigns", { type: "sms", name: "Order", content: "Shipped", recipients: [NY], transactional: true });
    expect(typed.body.transactional).toBe(true);
    const moved = await t.api(`/api/campaigns/${typed.body.id}`, { method: "PUT", token: acc.token, body: { audience: { kind: "all" } } });
    expect({ status: moved.status, message: moved.body.message }).toEqual({
      status: 400,
      message: "Only a message to numbers typed in can be transactional: a list or a segment is marketing",
    });
    const bad = await post(acc, "/api/campaigns", { type: "sms", name: "Order", content: "Shipped", recipients: [NY], transactional: "yes" });
    expect({ status: bad.status, message: bad.body.message }).toEqual({ status: 400, message: "transactional must be true or false" });
    const plain = await post(acc, "/api/campaigns", { type: "sms", name: "Sale", content: "Sale", recipients: [NY] });
    expect(plain.body.transactional).toBe(false);
  });
});
