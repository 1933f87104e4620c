import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { SendingManager } from "../../src/sending/manager";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

let t: TestServer;
let twilio: TwilioFake;
const SENDERS = Array.from({ length: 20 }, (_, i) => `+1415555${String(100 + i).padStart(4, "0")}`);
let nextSender = 0;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: SENDERS.map((phoneNumber) => ({ phoneNumber })) });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
  Object.assign((t.ctx.sending as SendingManager).options, { backoffBaseMs: 50, backoffCapMs: 200 });
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });

/** A fresh account with its own Twilio sender number at `rate` segments per second. */
async function twilioAccount(rate: number) {
  const acc = await t.signUpVerified();
  // These tests run at any hour; quiet hours have their own test below.
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  const p = await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
  const from = SENDERS[nextSender++]!;
  const n = await post(acc, "/api/phone-numbers", { providerId: p.body.id, phoneNumber: from, messagesPerSecond: rate });
  expect(n.status).toBe(201);
  return { acc, from };
}

async function campaign(acc: Account, recipients: string[], content = "Weekend sale: 20% off", extra: Record<string, unknown> = {}) {
  const c = await post(acc, "/api/campaigns", { name: "Test", type: "sms", content, recipients, ...extra });
  expect(c.status).toBe(201);
  const s = await post(acc, `/api/campaigns/${c.body.id}/send`);
  expect(s.status).toBe(202);
  return c.body.id as string;
}

const view = (acc: Account, id: string) => t.api(`/api/campaigns/${id}`, { token: acc.token }).then((r) => r.body);
const logs = (acc: Account, id: string) => t.api(`/api/campaign-logs?campaignId=${id}&pageSize=200`, { token: acc.token }).then((r) => r.body.data as any[]);
const sendsFrom = (from: string) => twilio.requests.filter((r) => r.method === "POST" && r.params.From === from);
const phones = (n: number, base: number) => Array.from({ length: n }, (_, i) => `+1415555${String(base + i).padStart(4, "0")}`);

/** Segments of requests arriving within every one-second window starting at each arrival. */
function worstWindow(requests: { at: number; segments: number }[]): number {
  const sorted = [...requests].sort((a, b) => a.at - b.at);
  let worst = 0;
  for (let i = 0; i < sorted.length; i++) {
    let sum = 0;
    for (let j = i; j < sorted.length && sorted[j]!.at < sorted[i]!.at + 1000; j++) sum += sorted[j]!.segments;
    worst = Math.max(worst, sum);
  }
  return worst;
}

describe("pace", () => {
  test("a number's messages per second, counted in segments, holds in every one-second window", async () => {
    const { acc, from } = await twilioAccount(4);
    const short = await campaign(acc, phones(8, 3000));
    const long = await campaign(acc, phones(4, 3100), "L".repeat(200));
    await waitFor(() => Promise.all([view(acc, short), view(acc, long)]), (v) => v.every((c) => c.status === "completed"), 20_000);
    const reqs = sendsFrom(from).map((r) => ({ at: r.at, segments: String(r.params.Body).length > 160 ? 2 : 1 }));
    expect(reqs.length).toBe(12);
    expect(reqs.filter((r) => r.segments === 2).length).toBe(4);
    expect(worstWindow(reqs)).toBeLessThanOrEqual(4);
    // 16 segments at 4 per second cannot take less than 3 seconds.
    const span = Math.max(...reqs.map((r) => r.at)) - Math.min(...reqs.map((r) => r.at));
    expect(span).toBeGreaterThanOrEqual(2900);
    const v = await view(acc, short);
    expect(v.counts).toMatchObject({ recipients: 8, sent: 8, pending: 0 });
  });

  test("a 429 slows the pace and honours Retry-After instead of failing the message", async () => {
    const { acc, from } = await twilioAccount(0);
    twilio.failNextSends(1, { status: 429, retryAfter: 1 });
    const id = await campaign(acc, phones(1, 3200));
    const [log] = await waitFor(() => logs(acc, id), (l) => l[0]?.status === "sent", 10_000);
    expect(log.status).toBe("sent");
    const reqs = sendsFrom(from);
    expect(reqs.length).toBe(2);
    expect(reqs[1]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(950);
  });
});

describe("failures", () => {
  test("transient failures retry with backoff; permanent ones fail at once with the provider's code", async () => {
    const { acc, from } = await twilioAccount(0);
    twilio.failNextSends(2, { status: 500 });
    const retried = await campaign(acc, phones(1, 3300));
    await waitFor(() => logs(acc, retried), (l) => l[0]?.status === "sent");
    expect(sendsFrom(from).length).toBe(3);

    twilio.rejectRecipient("+14155553400", 21211);
    const failed = await campaign(acc, ["+14155553400"]);
    const [log] = await waitFor(() => logs(acc, failed), (l) => l[0]?.status === "failed");
    expect(log.errorCode).toBe("21211");
    expect(log.errorMessage).toContain("not a valid phone number");
    expect(sendsFrom(from).filter((r) => r.params.To === "+14155553400").length).toBe(1);
    expect((await view(acc, failed)).status).toBe("failed");
  });

  test("'recipient opted out' (21610) fails the message and opts the contact out", async () => {
    const { acc } = await twilioAccount(0);
    twilio.rejectRecipient("+14155553500", 21610);
    const id = await campaign(acc, ["+14155553500"]);
    await waitFor(() => logs(acc, id), (l) => l[0]?.status === "failed");
    const contact = (await t.api("/api/contacts?q=4155553500", { token: acc.token })).body.data[0];
    expect(contact).toMatchObject({ phone: "+14155553500", status: "opted_out" });
  });

  test("too many failures in a row pause the campaign with the reason shown", async () => {
    const { acc } = await twilioAccount(2);
    (t.ctx.sending as SendingManager).options.pauseAfterFailures = 3;
    try {
      const bad = phones(6, 3600);
      for (const p of bad) twilio.rejectRecipient(p, 21614);
      const id = await campaign(acc, bad);
      const v = await waitFor(() => view(acc, id), (c) => c.status === "paused");
      expect(v.pauseReason).toContain("21614");
      expect(v.pauseReason).toContain("Check SMS provider settings");
      expect(v.counts.failed).toBeGreaterThanOrEqual(3);
      expect(v.counts.pending).toBeGreaterThan(0);
    } finally {
      (t.ctx.sending as SendingManager).options.pauseAfterFailures = 10;
    }
  });
});

describe("pause, resume, cancel mid-send", () => {
  test("pause stops sending, resume finishes without a second copy", async () => {
    const { acc, from } = await twilioAccount(2);
    const id = await campaign(acc, phones(8, 3700));
    await waitFor(() => sendsFrom(from).length, (n) => n >= 2);
    const paused = await post(acc, `/api/campaigns/${id}/pause`);
    expect(paused.body.status).toBe("paused");
    await Bun.sleep(300);
    const atPause = sendsFrom(from).length;
    await Bun.sleep(1500);
    expect(sendsFrom(from).length).toBe(atPause);
    expect((await post(acc, `/api/campaigns/${id}/resume`)).body.status).toBe("sending");
    await waitFor(() => view(acc, id), (c) => c.status === "completed", 15_000);
    const to = sendsFrom(from).map((r) => r.params.To);
    expect(to.length).toBe(8);
    expect(new Set(to).size).toBe(8);
  });

  test("cancel stops what has not gone out", async () => {
    const { acc, from } = await twilioAccount(2);
    const id = await campaign(acc, phones(8, 3800));
    await waitFor(() => sendsFrom(from).length, (n) => n >= 2);
    const cancelled = await post(acc, `/api/campaigns/${id}/cancel`);
    expect(cancelled.body.status).toBe("cancelled");
    await Bun.sleep(1500);
    const v = await view(acc, id);
    expect(v.status).toBe("cancelled");
    expect(v.counts.cancelled).toBeGreaterThan(0);
    expect(v.counts.sent + v.counts.cancelled).toBe(8);
    expect(sendsFrom(from).length).toBe(v.counts.sent);
  });
});

describe("compliance at send time", () => {
  test("a contact who opts out mid-send is skipped", async () => {
    const { acc, from } = await twilioAccount(1);
    const recipients = phones(4, 3900);
    const id = await campaign(acc, recipients);
    await waitFor(() => sendsFrom(from).length, (n) => n >= 1);
    const hook = `${t.ctx.config.publicUrl}/api/webhooks/twilio/sms/${acc.user.id}`;
    const stop = signedTwilioWebhook(twilio.authToken, hook, twilioInboundParams({ accountSid: twilio.accountSid, from: recipients[3]!, to: from, body: "STOP" }));
    expect((await fetch(`${t.url}/api/webhooks/twilio/sms/${acc.user.id}`, { method: "POST", body: stop.body, headers: stop.headers })).status).toBe(200);
    const final = await waitFor(() => logs(acc, id), (l) => l.every((m) => m.status !== "pending" && m.status !== "sending"), 15_000);
    expect(final.find((m) => m.recipientPhone === recipients[3])).toMatchObject({ status: "skipped", errorCode: "opted_out" });
    const campaignSends = sendsFrom(from).filter((r) => recipients.includes(String(r.params.To)) && r.params.Body === "Weekend sale: 20% off\nReply STOP to opt out");
    expect(campaignSends.map((r) => r.params.To)).not.toContain(recipients[3]);
    // The STOP confirmation still goes to the contact who opted out, once.
    await waitFor(() => sendsFrom(from).filter((r) => r.params.To === recipients[3]).length, (n) => n === 1);
    expect(String(sendsFrom(from).find((r) => r.params.To === recipients[3])!.params.Body)).toContain("unsubscribed");
  });

  test("the frequency cap skips a contact who already got their campaign messages today", async () => {
    const { acc, from } = await twilioAccount(0);
    await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { frequencyCapPerDay: 1 } });
    const first = await campaign(acc, ["+14155554100", "+14155554101"]);
    await waitFor(() => view(acc, first), (c) => c.status === "completed");
    const second = await campaign(acc, ["+14155554100", "+14155554102"]);
    const final = await waitFor(() => logs(acc, second), (l) => l.length === 2 && l.every((m) => m.status !== "pending" && m.status !== "sending"));
    expect(final.find((m) => m.recipientPhone === "+14155554100")).toMatchObject({ status: "skipped", errorCode: "frequency_cap" });
    expect(final.find((m) => m.recipientPhone === "+14155554102")!.status).toBe("sent");
    expect(sendsFrom(from).filter((r) => r.params.To === "+14155554100").length).toBe(1);
  });

  test("the opt-out line is appended and counted in the segments", async () => {
    const { acc, from } = await twilioAccount(0);
    const id = await campaign(acc, phones(1, 4000), "x".repeat(150));
    await waitFor(() => logs(acc, id), (l) => l[0]?.status === "sent");
    const body = String(sendsFrom(from)[0]!.params.Body);
    expect(body.endsWith("\nReply STOP to opt out")).toBe(true);
    const msg = (await t.api(`/api/messages?campaignId=${id}`, { token: acc.token })).body.data[0];
    expect(msg.segments).toBe(2);
  });
});

describe("quiet hours and expiry (server clock controlled)", () => {
  let q: TestServer;
  let offset = 0;
  beforeAll(async () => {
    q = await startTestServer({ smtp: false });
    q.ctx.now = () => Date.now() + offset;
  });
  afterAll(() => q?.stop());

  // 23:30 in New York on a winter day, then 08:05 the next morning.
  const lateEvening = Date.parse("2026-01-14T04:30:00Z");
  const nextMorning = Date.parse("2026-01-14T13:05:00Z");

  test("marketing waits out quiet hours in the recipient's zone, and a message past its expiry is not sent stale", async () => {
    offset = lateEvening - Date.now();
    const acc = await q.signUpVerified();
    const qpost = (path: string, body?: unknown) => q.api(path, { method: "POST", token: acc.token, body });
    const p = await qpost("/api/sms-providers", { provider: "simulator", displayName: "Sim" });
    await q.api(`/api/sms-providers/${p.body.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 0 } } });
    const numbers = (await q.api(`/api/providers/${p.body.id}/available-numbers`, { token: acc.token })).body.numbers;
    await qpost("/api/phone-numbers", { providerId: p.body.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 0 });

    const start = async (recipients: string[], expiresAfterMinutes: number) => {
      const c = await qpost("/api/campaigns", { name: "Q", content: "Flash sale", recipients, expiresAfterMinutes });
      expect((await qpost(`/api/campaigns/${c.body.id}/send`)).status).toBe(202);
      return c.body.id as string;
    };
    const qlogs = (id: string) => q.api(`/api/campaign-logs?campaignId=${id}`, { token: acc.token }).then((r) => r.body.data as any[]);

    const newYork = await start(["+12125550123"], 600);
    const stale = await start(["+12125550124"], 60);
    const losAngeles = await start(["+13105550123"], 600);
    // 20:30 in Los Angeles: not quiet there.
    await waitFor(() => qlogs(losAngeles), (l) => l[0]?.status === "delivered");
    await Bun.sleep(600);
    expect((await qlogs(newYork))[0].status).toBe("pending");
    expect((await qlogs(stale))[0].status).toBe("pending");

    offset = nextMorning - Date.now();
    (q.ctx.sending as SendingManager).wake();
    await waitFor(() => qlogs(newYork), (l) => l[0]?.status === "delivered");
    const [expired] = await waitFor(() => qlogs(stale), (l) => l[0]?.status === "expired");
    expect(expired.errorMessage).toContain("expired");
    expect((await q.api(`/api/campaigns/${stale}`, { token: acc.token })).body.status).toBe("completed");
  });
});
