// Issue 32 item 3: A/B tests of a campaign's text, end to end on a fake clock. The appliance runs in a child process
// whose clock the test moves (tests/support/clocked-server.ts); texts go through the Twilio fake, which posts signed
// delivery reports. The variants go to the test share, people click (or reply), the rule (or the user) picks the
// winner, and the rest of the audience gets the winner's text; the report's figures are asserted exactly.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startClockedServer, type ClockedServer } from "../support/clocked-server";
import { childApi } from "../support/child-server";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

setDefaultTimeout(120_000);

const SENDER = "+14155550100";
const CHROME = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const IMESSAGE = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0";
const HOUR = 3600_000;

const dataDir = mkdtempSync(join(tmpdir(), "abtest-e2e-"));
const env = { DATA_DIR: dataDir, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "ab-test-pass-1" };
let twilio: TwilioFake;
let server: ClockedServer;
let token: string;
let hookUrl: string;

const call = (method: string, path: string, body?: unknown) => childApi(server.url, path, { method, token, body });

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }], statusCallbacks: { sentAfterMs: [1, 5], deliveredAfterMs: [1, 5] } });
  server = await startClockedServer({ ...env, TWILIO_API_BASE: twilio.url }, 0);
  token = (await childApi(server.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } })).body.token;
  expect((await call("PATCH", "/api/user/settings", { quietHoursEnabled: false })).status).toBe(200);
  const provider = await call("POST", "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
  expect(provider.status).toBe(201);
  hookUrl = provider.body.webhookUrl;
  expect((await call("POST", "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: SENDER, messagesPerSecond: 100 })).status).toBe(201);
});
afterAll(async () => {
  await server?.kill("SIGKILL");
  await twilio?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const phones = (from: number, n: number) => Array.from({ length: n }, (_, i) => `+1415555${String(from + i).padStart(4, "0")}`);
const bodiesTo = (list: string[]) => twilio.messages.filter((m) => list.includes(m.to));
const report = async (id: string) => (await call("GET", `/api/campaigns/${id}/ab-test`)).body;

/** A text from a phone to the sender, as Twilio posts it. */
async function reply(from: string, body: string) {
  const hook = signedTwilioWebhook(twilio.authToken, hookUrl, twilioInboundParams({ accountSid: twilio.accountSid, from, to: SENDER, body }));
  const res = await fetch(hookUrl, { method: "POST", body: hook.body, headers: hook.headers });
  expect(res.status).toBe(200);
}

describe("an A/B test", () => {
  test("variants go to the test share, the rule picks the winner by people's clicks after 4 hours, the rest get the winner; the report's figures exact", async () => {
    const audience = phones(1000, 50);
    const created = await call("POST", "/api/campaigns", {
      name: "Spring A/B",
      recipients: audience,
      appendOptOut: false,
      abTest: {
        variants: ["Spring sale: https://shop.example.com/a", "Half off today only: https://shop.example.com/b"],
        testPercent: 40,
        measure: "clicks",
        decideAfterHours: 4,
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body.content).toBe("Spring sale: https://shop.example.com/a");
    expect(created.body.abTest).toEqual({
      variants: [
        { label: "A", content: "Spring sale: https://shop.example.com/a" },
        { label: "B", content: "Half off today only: https://shop.example.com/b" },
      ],
      testPercent: 40,
      measure: "clicks",
      decideAfterHours: 4,
      winner: null,
      decidedAt: null,
      decidedBy: null,
    });

    const sent = await call("POST", `/api/campaigns/${id}/send`, {});
    expect(sent.status).toBe(202);
    // 40% of 50: 20 test messages, 10 a variant; 30 kept for the winner.
    expect(sent.body.queued).toBe(20);
    await waitFor(() => call("GET", `/api/campaigns/${id}`), (r) => r.body.counts.delivered === 20);
    const test = bodiesTo(audience);
    expect(test.length).toBe(20);
    const linkOf = (body: string) => /(http:\/\/\S+\/l\/[0-9A-Za-z]{7})$/.exec(body)![1]!;
    const a = test.filter((m) => m.body.startsWith("Spring sale: http"));
    const b = test.filter((m) => m.body.startsWith("Half off today only: http"));
    expect([a.length, b.length]).toEqual([10, 10]);
    // Nothing more goes out before the decision, and the campaign keeps sending (its rest is waiting).
    expect((await call("GET", `/api/campaigns/${id}`)).body.status).toBe("sending");

    // A minute after delivery (past the scanner window): 8 of B's people click, 1 of A's; an iMessage preview of
    // an A link and a second click of a B link do not count.
    await server.advance(60_000);
    for (const m of b.slice(0, 8)) expect((await fetch(linkOf(m.body), { redirect: "manual", headers: { "user-agent": CHROME } })).status).toBe(302);
    expect((await fetch(linkOf(a[0]!.body), { redirect: "manual", headers: { "user-agent": CHROME } })).status).toBe(302);
    expect((await fetch(linkOf(a[1]!.body), { redirect: "manual", headers: { "user-agent": IMESSAGE } })).status).toBe(302);
    expect((await fetch(linkOf(b[0]!.body), { redirect: "manual", headers: { "user-agent": CHROME } })).status).toBe(302);
    const before = await waitFor(() => report(id), (r) => r.variants[1].humanClicks === 8 && r.variants[0].humanClicks === 1);
    const figures = (clickers: number) => ({ recipients: 10, sent: 10, delivered: 10, failed: 0, pending: 0, humanClicks: clickers, clickers, repliers: 0, clickRate: clickers * 10, replyRate: 0 });
    expect(before.variants).toEqual([
      { label: "A", content: "Spring sale: https://shop.example.com/a", ...figures(1) },
      { label: "B", content: "Half off today only: https://shop.example.com/b", ...figures(8) },
    ]);
    expect(before).toMatchObject({
      measure: "clicks",
      testPercent: 40,
      rest: { held: 30, recipients: 0, sent: 0, humanClicks: 0 },
      leader: "B",
      runnerUp: "A",
      // Pooled two-proportion z-test of 8/10 against 1/10: z = 0.7 / sqrt(0.45 * 0.55 * 0.2) = 3.15, two-sided p = 0.0017.
      z: 3.15,
      confidence: 99.8,
      clearWinner: true,
      verdict: "B is the clear winner: a click rate of 80.0% against 10.0% for A, at 99.8% confidence.",
      winner: null,
      pick: "B",
    });

    // Four hours after the start the rule sends B to the other 30, through the outbox.
    await server.advance(4 * HOUR);
    const rest = audience.filter((p) => !test.some((m) => m.to === p));
    // Completed once every text is out; the fake's delivery reports follow.
    await waitFor(() => call("GET", `/api/campaigns/${id}`), (r) => r.body.status === "completed" && r.body.counts.delivered === 50);
    expect(bodiesTo(rest).map((m) => m.body.replace(/\/l\/\w{7}$/, "/l/…")).sort()).toEqual(
      rest.map(() => `Half off today only: ${linkOf(b[0]!.body).replace(/\/l\/\w{7}$/, "/l/…")}`),
    );
    // Everyone once: 20 test texts and 30 winners.
    expect(new Set(bodiesTo(audience).map((m) => m.to)).size).toBe(50);
    expect(bodiesTo(audience).length).toBe(50);

    const after = await report(id);
    expect(after.variants).toEqual(before.variants);
    expect(after).toMatchObject({
      rest: { held: 0, recipients: 30, sent: 30, delivered: 30, failed: 0, pending: 0, humanClicks: 0, clickers: 0, clickRate: 0 },
      winner: "B",
      decidedBy: "rule",
      confidence: 99.8,
      clearWinner: true,
      decidesAt: null,
    });
    const campaign = (await call("GET", `/api/campaigns/${id}`)).body;
    expect(campaign.abTest).toMatchObject({ winner: "B", decidedBy: "rule" });
    expect(Date.parse(campaign.abTest.decidedAt) - Date.parse(campaign.sentAt)).toBeGreaterThanOrEqual(4 * HOUR);
    expect(campaign.counts).toMatchObject({ recipients: 50, delivered: 50, pending: 0 });
    expect(campaign.humanClicks).toBe(9);
    // Picking again is refused: the rest is never sent twice.
    const again = await call("POST", `/api/campaigns/${id}/ab-test/winner`, { variant: "A" });
    expect(again).toEqual({ status: 409, body: expect.objectContaining({ message: "The winner was already picked: variant B" }) });
  });

  test("by replies, decided by hand: the report says there is no clear winner, the user picks B, the rest get B; an opt-out is not a reply", async () => {
    const audience = phones(2000, 20);
    const created = await call("POST", "/api/campaigns", {
      name: "Ask A/B",
      recipients: audience,
      appendOptOut: false,
      abTest: { variants: ["Want a table tonight? Reply YES", "Free dessert with a booking tonight, reply to book"], testPercent: 50, measure: "replies", decideAfterHours: null },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await call("POST", `/api/campaigns/${id}/send`, {})).body.queued).toBe(10);
    await waitFor(() => call("GET", `/api/campaigns/${id}`), (r) => r.body.counts.delivered === 10);
    const a = bodiesTo(audience).filter((m) => m.body.startsWith("Want"));
    const b = bodiesTo(audience).filter((m) => m.body.startsWith("Free"));
    expect([a.length, b.length]).toEqual([5, 5]);

    await server.advance(10 * 60_000);
    // A: three people reply (one twice); B: one replies and one texts STOP, which is an opt-out, not a reply.
    await reply(a[0]!.to, "yes");
    await reply(a[0]!.to, "for 4 please");
    await reply(a[1]!.to, "YES");
    await reply(a[2]!.to, "What time?");
    await reply(b[0]!.to, "Booking for two");
    await reply(b[1]!.to, "STOP");
    const r = await report(id);
    const figures = (repliers: number) => ({ recipients: 5, sent: 5, delivered: 5, failed: 0, pending: 0, humanClicks: 0, clickers: 0, repliers, clickRate: 0, replyRate: repliers * 20 });
    expect(r.variants).toEqual([
      { label: "A", content: "Want a table tonight? Reply YES", ...figures(3) },
      { label: "B", content: "Free dessert with a booking tonight, reply to book", ...figures(1) },
    ]);
    expect(r).toMatchObject({
      measure: "replies",
      decideAfterHours: null,
      decidesAt: null,
      rest: { held: 10 },
      leader: "A",
      z: 1.29,
      confidence: 80.3,
      clearWinner: false,
      verdict: "No clear winner: A leads with a reply rate of 60.0% against 20.0% for B, at 80.3% confidence (95% makes a clear winner).",
      pick: "A",
    });
    // By hand, nothing decides by itself.
    await server.advance(48 * HOUR);
    expect((await report(id)).winner).toBeNull();

    expect((await call("POST", `/api/campaigns/${id}/ab-test/winner`, { variant: "E" })).body.message).toBe("Variant must be one of A, B");
    const picked = await call("POST", `/api/campaigns/${id}/ab-test/winner`, { variant: "B" });
    expect(picked.status).toBe(200);
    expect(picked.body.report).toMatchObject({ winner: "B", decidedBy: "user", rest: { held: 0 } });
    await waitFor(() => call("GET", `/api/campaigns/${id}`), (res) => res.body.status === "completed");
    const rest = audience.filter((p) => !a.concat(b).some((m) => m.to === p));
    expect(bodiesTo(rest).map((m) => m.body)).toEqual(rest.map(() => "Free dessert with a booking tonight, reply to book"));
    // Each person got one of the campaign's texts (the others are the replies to YES and STOP).
    const variants = ["Want a table tonight? Reply YES", "Free dessert with a booking tonight, reply to book"];
    expect(bodiesTo(audience).filter((m) => variants.includes(m.body)).length).toBe(20);
    expect(new Set(bodiesTo(audience).filter((m) => variants.includes(m.body)).map((m) => m.to)).size).toBe(20);
  });

  test("the delivery preview counts each variant at its own length, and the rest at the longest variant's", async () => {
    const long = `${"Our biggest sale of the year starts now. ".repeat(4)}See the whole range at https://shop.example.com/sale/spring/everything-in-store?from=sms`;
    const res = await call("POST", "/api/campaigns/preview-delivery", {
      audience: { kind: "manual" },
      recipients: phones(3000, 10),
      content: "Sale today",
      appendOptOut: false,
      abTest: { variants: ["Sale today", long], testPercent: 20 },
    });
    expect(res.status).toBe(200);
    // 20% of 10: one recipient a variant; B runs to two segments, so the 8 kept for the winner are counted at two.
    expect(res.body.abTest).toEqual({
      testRecipients: 2,
      restRecipients: 8,
      variants: [
        { label: "A", recipients: 1, segments: 1 },
        { label: "B", recipients: 1, segments: 2 },
      ],
      totalSegments: 1 + 2 + 8 * 2,
    });
  });

  test("bad settings answer 400 with the reason; a campaign without a test has no report", async () => {
    const base = { name: "Bad", recipients: ["+14155550199"], appendOptOut: false };
    const bad = async (abTest: unknown) => (await call("POST", "/api/campaigns", { ...base, abTest })).body.message;
    expect(await bad({ variants: ["one"], testPercent: 20, measure: "replies" })).toBe("An A/B test has 2 to 4 variants");
    expect(await bad({ variants: ["one", "one "], testPercent: 20, measure: "replies" })).toBe("Variant B is the same text as variant A");
    expect(await bad({ variants: ["one", "two"], testPercent: 60, measure: "replies" })).toBe("The test share must be a whole percent from 2 to 50");
    expect(await bad({ variants: ["Go https://x.example.com", "two"], testPercent: 20, measure: "clicks" })).toBe(
      "Variant B has no link to click: the click rate needs a link in every variant",
    );
    expect(await bad({ variants: ["one", "two"], testPercent: 20, measure: "replies", decideAfterHours: 0 })).toBe("Decide after 1 to 168 whole hours, or by hand");
    const plain = await call("POST", "/api/campaigns", { ...base, content: "Hello" });
    expect((await call("GET", `/api/campaigns/${plain.body.id}/ab-test`)).body.message).toBe("This campaign has no A/B test");
    expect(plain.body.abTest).toBeNull();
  });
});
