import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { campaigns } from "../../db/schema";
import { runDueJobs } from "../../src/campaigns/scheduler";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
let realNow: () => number;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  realNow = t.ctx.now;
});
afterAll(() => t?.stop());
afterEach(() => {
  t.ctx.now = realNow;
  // The clock went back: let the sending engine look for work at once rather than at its next idle pass.
  t.ctx.sending.wake();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The server's clock runs `ms` ahead of real time from now on (until the test ends). */
const clockAhead = (ms: number) => {
  t.ctx.now = () => Date.now() + ms;
};

const get = (acc: Account, path: string) => t.api(path, { token: acc.token });
const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body: body ?? {} });

async function sender(settings: Record<string, unknown> = {}) {
  const acc = await t.signUpVerified();
  const s = await t.api("/api/user/settings", {
    method: "PATCH",
    token: acc.token,
    body: { quietHoursEnabled: false, ...settings },
  });
  expect(s.status).toBe(200);
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

async function draft(acc: Account, body: Record<string, unknown> = {}) {
  const res = await post(acc, "/api/campaigns", {
    type: "sms",
    name: "Later",
    content: "See you soon",
    recipients: ["+14155550101", "+14155550102"],
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function schedule(acc: Account, id: string, at: number) {
  const res = await post(acc, `/api/campaigns/${id}/send`, { scheduledAt: new Date(at).toISOString() });
  expect(res.status).toBe(202);
  return res.body;
}

const campaign = (acc: Account, id: string) => get(acc, `/api/campaigns/${id}`).then((r) => r.body);
const logCount = (acc: Account, id: string) =>
  get(acc, `/api/campaign-logs?campaignId=${id}`).then((r) => r.body.total as number);
const messageCount = (acc: Account, id: string) => get(acc, `/api/messages?campaignId=${id}`).then((r) => r.body.total as number);

/** Waits (with whatever clock is set) until the campaign is completed with every recipient delivered. */
const delivered = (acc: Account, id: string, recipients = 2) =>
  waitFor(
    () => campaign(acc, id),
    (c) => c.status === "completed" && c.counts.delivered === recipients,
    15_000,
  );

/** Nothing has gone out: still scheduled, no messages, no logs. */
async function expectNotStarted(acc: Account, id: string, status = "scheduled") {
  expect((await campaign(acc, id)).status).toBe(status);
  expect(await messageCount(acc, id)).toBe(0);
  expect(await logCount(acc, id)).toBe(0);
}

/** "YYYY-MM-DDTHH:MM" as a wall clock in a time zone shows the instant `at`. */
function wallClock(at: number, timeZone: string): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    })
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

describe("scheduled campaigns", () => {
  test("a future scheduledAt makes it scheduled; nothing goes before its time; at its time it is sent", async () => {
    const acc = await sender();
    const c = await draft(acc);
    const at = Date.now() + HOUR;
    const res = await schedule(acc, c.id, at);
    expect(res).toMatchObject({
      queued: 0,
      campaign: { id: c.id, status: "scheduled", scheduledAt: new Date(at).toISOString(), sentAt: null },
    });
    await expectNotStarted(acc, c.id);

    await runDueJobs(t.ctx);
    await expectNotStarted(acc, c.id);
    clockAhead(HOUR - MINUTE);
    await runDueJobs(t.ctx);
    await expectNotStarted(acc, c.id);

    clockAhead(HOUR + 1000);
    await runDueJobs(t.ctx);
    // Read before anything yields to the engine, which could otherwise finish the two texts first: the start itself
    // makes the campaign "sending".
    const started = t.ctx.db.select().from(campaigns).where(eq(campaigns.id, c.id)).get()!;
    expect(started.status).toBe("sending");
    expect(started.sentAt!.getTime()).toBeGreaterThanOrEqual(at);
    const done = await delivered(acc, c.id);
    expect(done).toMatchObject({ counts: { recipients: 2, delivered: 2 }, pauseReason: null });
  });

  test("a schedule found less than an hour late still goes", async () => {
    const acc = await sender();
    const c = await draft(acc);
    await schedule(acc, c.id, Date.now() + HOUR);
    clockAhead(HOUR + 50 * MINUTE);
    await runDueJobs(t.ctx);
    await delivered(acc, c.id);
  });

  test("a date and time without an offset is read in the account's timezone", async () => {
    const acc = await sender({ timezone: "Asia/Tokyo" });
    const at = Math.floor((Date.now() + 2 * 24 * HOUR) / MINUTE) * MINUTE;
    const tokyo = wallClock(at, "Asia/Tokyo");
    const c = await draft(acc, { scheduledAt: tokyo });
    expect(c.scheduledAt).toBe(new Date(at).toISOString());
    expect(c.status).toBe("draft");

    // Sending without a time uses the campaign's.
    const res = await post(acc, `/api/campaigns/${c.id}/send`);
    expect(res.status).toBe(202);
    expect(res.body.campaign).toMatchObject({ status: "scheduled", scheduledAt: new Date(at).toISOString() });

    // A time given at send, in New York after the account moves there.
    await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { timezone: "America/New_York" } });
    const other = await draft(acc);
    const later = at + 3 * HOUR;
    const sent = await post(acc, `/api/campaigns/${other.id}/send`, {
      scheduledAt: `${wallClock(later, "America/New_York")}:00.000`,
    });
    expect(sent.body.campaign).toMatchObject({ status: "scheduled", scheduledAt: new Date(later).toISOString() });
    // An explicit offset wins over the account's timezone.
    const third = await draft(acc, { scheduledAt: "2031-03-04T05:06:00+09:00" });
    expect(third.scheduledAt).toBe("2031-03-03T20:06:00.000Z");
    const bad = await post(acc, "/api/campaigns", {
      type: "sms",
      name: "x",
      content: "x",
      recipients: ["+14155550101"],
      scheduledAt: "next tuesday",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Please choose a valid date and time");

    clockAhead(at - Date.now() - MINUTE);
    await runDueJobs(t.ctx);
    await expectNotStarted(acc, c.id);
    clockAhead(at - Date.now() + 1000);
    await runDueJobs(t.ctx);
    await delivered(acc, c.id);
    await expectNotStarted(acc, other.id);
  });

  test("a schedule missed by more than an hour is not sent late: paused with the reason, then sent on resume", async () => {
    const acc = await sender();
    const c = await draft(acc);
    await schedule(acc, c.id, Date.now() + HOUR);
    clockAhead(HOUR + HOUR + 5 * MINUTE);
    await runDueJobs(t.ctx);
    const paused = await campaign(acc, c.id);
    expect(paused.status).toBe("paused");
    expect(paused.pauseReason).toContain("It was not sent late");
    await expectNotStarted(acc, c.id, "paused");

    const resumed = await post(acc, `/api/campaigns/${c.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.pauseReason).toBeNull();
    // The answer is written in the same step as the resume, before the engine sends anything.
    expect(resumed.body.status).toBe("sending");
    await delivered(acc, c.id);
  });

  test("editing a scheduled campaign's time moves its start; clearing the time makes it a draft", async () => {
    const acc = await sender();
    const c = await draft(acc);
    const first = Date.now() + HOUR;
    await schedule(acc, c.id, first);
    const second = first + 2 * HOUR;
    const edit = await t.api(`/api/campaigns/${c.id}`, {
      method: "PUT",
      token: acc.token,
      body: { scheduledAt: new Date(second).toISOString(), content: "Moved" },
    });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ status: "scheduled", scheduledAt: new Date(second).toISOString(), content: "Moved" });

    const cleared = await draft(acc, { name: "Unscheduled" });
    await schedule(acc, cleared.id, first);
    const unset = await t.api(`/api/campaigns/${cleared.id}`, { method: "PUT", token: acc.token, body: { scheduledAt: null } });
    expect(unset.body).toMatchObject({ status: "draft", scheduledAt: null });

    clockAhead(HOUR + MINUTE);
    await runDueJobs(t.ctx);
    await expectNotStarted(acc, c.id);
    await expectNotStarted(acc, cleared.id, "draft");

    clockAhead(3 * HOUR + MINUTE);
    await runDueJobs(t.ctx);
    await delivered(acc, c.id);
    const texts = (await get(acc, `/api/messages?campaignId=${c.id}`)).body.data.map((m: any) => m.content);
    expect(texts).toEqual(["Moved\nReply STOP to opt out", "Moved\nReply STOP to opt out"]);
    await expectNotStarted(acc, cleared.id, "draft");
  });

  test("pausing a scheduled campaign holds it; resuming before its time keeps the schedule", async () => {
    const acc = await sender();
    const c = await draft(acc);
    const at = Date.now() + HOUR;
    await schedule(acc, c.id, at);
    const paused = await post(acc, `/api/campaigns/${c.id}/pause`);
    expect(paused.body).toMatchObject({ status: "paused", scheduledAt: new Date(at).toISOString() });
    const resumed = await post(acc, `/api/campaigns/${c.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: "scheduled", scheduledAt: new Date(at).toISOString() });
    await expectNotStarted(acc, c.id);
    clockAhead(HOUR + MINUTE);
    await runDueJobs(t.ctx);
    await delivered(acc, c.id);
  });

  test("a campaign paused over its scheduled time does not start by itself; resuming then sends it", async () => {
    const acc = await sender();
    const c = await draft(acc);
    await schedule(acc, c.id, Date.now() + HOUR);
    await post(acc, `/api/campaigns/${c.id}/pause`);
    clockAhead(HOUR + MINUTE);
    await runDueJobs(t.ctx);
    await expectNotStarted(acc, c.id, "paused");
    const resumed = await post(acc, `/api/campaigns/${c.id}/resume`);
    // The answer is written in the same step as the resume, before the engine sends anything.
    expect(resumed.body.status).toBe("sending");
    await delivered(acc, c.id);
  });

  test("cancelling a scheduled campaign prevents its start", async () => {
    const acc = await sender();
    const c = await draft(acc);
    await schedule(acc, c.id, Date.now() + HOUR);
    const cancelled = await post(acc, `/api/campaigns/${c.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    clockAhead(HOUR + MINUTE);
    await runDueJobs(t.ctx);
    await expectNotStarted(acc, c.id, "cancelled");
    expect(await post(acc, `/api/campaigns/${c.id}/send`)).toMatchObject({
      status: 409,
      body: { message: "This campaign is cancelled and cannot be sent again" },
    });
    expect(await post(acc, `/api/campaigns/${c.id}/resume`)).toMatchObject({
      status: 409,
      body: { message: "Only a paused campaign can be resumed" },
    });
    await expectNotStarted(acc, c.id, "cancelled");
  });
});
