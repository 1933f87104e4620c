import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, twilioStatusParams, type TwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

let t: TestServer;
let twilio: TwilioFake;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const OPTED_OUT = "This contact has opted out of messages. They can opt back in by texting START.";
const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });
const message = (acc: Account, id: string) => t.api(`/api/messages/${id}`, { token: acc.token }).then((r) => r.body);
const settled = (acc: Account, id: string, timeoutMs = 10_000) =>
  waitFor(() => message(acc, id), (m) => !["queued", "sending", "sent"].includes(m.status), timeoutMs);

async function simulatorAccount(settings: Record<string, number> = { deliveryDelayMs: 20 }) {
  const acc = await t.signUpVerified();
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await t.api(`/api/sms-providers/${provider.body.id}`, { method: "PATCH", token: acc.token, body: { settings } });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  expect(numbers.body.numbers.length).toBe(3);
  const number = await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 0 });
  expect(number.status).toBe(201);
  return { acc, provider: provider.body, number: number.body };
}

describe("one message end to end through the simulator", () => {
  test("queued, sent, then delivered through the simulator's webhook", async () => {
    const { acc, number } = await simulatorAccount();
    const r = await post(acc, "/api/messages/send", { phone: "(415) 555-2671", content: "Hello from the simulator" });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ phone: "+14155552671", status: "queued", fromNumber: number.phoneNumber, segments: 1, direction: "outbound" });
    const done = await settled(acc, r.body.id);
    expect(done.status).toBe("delivered");
    expect(done.sentAt).not.toBeNull();
    expect(done.deliveredAt).not.toBeNull();
  });

  test("the documented test range: failed later, invalid at send, opted out at send (which opts the contact out)", async () => {
    const { acc } = await simulatorAccount();
    const later = await post(acc, "/api/messages/send", { phone: "+14155550155", content: "x" });
    const invalid = await post(acc, "/api/messages/send", { phone: "+14155550185", content: "x" });
    const optedOut = await post(acc, "/api/messages/send", { phone: "+14155550195", content: "x" });
    expect(await settled(acc, later.body.id)).toMatchObject({ status: "failed", errorCode: "30003" });
    expect(await settled(acc, invalid.body.id)).toMatchObject({ status: "failed", errorCode: "21211" });
    expect(await settled(acc, optedOut.body.id)).toMatchObject({ status: "failed", errorCode: "21610" });
    const contacts = await t.api("/api/contacts?q=4155550195", { token: acc.token });
    expect(contacts.body.data[0]).toMatchObject({ phone: "+14155550195", status: "opted_out" });
    const again = await post(acc, "/api/messages/send", { phone: "+14155550195", content: "x" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ message: OPTED_OUT, optedOut: true });
  });

  test("a simulated reply STOP opts the contact out with one confirmation; START opts back in", async () => {
    const { acc, provider } = await simulatorAccount();
    expect((await post(acc, `/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+14155552000", body: "Stop" })).status).toBe(202);
    const contact = await waitFor(
      () => t.api("/api/contacts?q=4155552000", { token: acc.token }).then((r) => r.body.data[0]),
      (c) => c?.status === "opted_out",
    );
    expect(contact.phone).toBe("+14155552000");
    const thread = await waitFor(
      () => t.api("/api/messages?phone=%2B14155552000", { token: acc.token }).then((r) => r.body.data),
      (d: any[]) => d.some((m) => m.direction === "outbound" && m.status === "delivered"),
    );
    expect(thread.filter((m: any) => m.direction === "outbound").length).toBe(1);
    expect(thread.find((m: any) => m.direction === "outbound").content).toContain("unsubscribed");
    expect(thread.find((m: any) => m.direction === "inbound")).toMatchObject({ content: "Stop", status: "received" });
    expect(await post(acc, "/api/messages/send", { phone: "+14155552000", content: "promo" })).toMatchObject({
      status: 409,
      body: { message: OPTED_OUT, optedOut: true },
    });

    await post(acc, `/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+14155552000", body: "START" });
    await waitFor(
      () => t.api("/api/contacts?q=4155552000", { token: acc.token }).then((r) => r.body.data[0]),
      (c) => c?.status === "subscribed",
    );
    expect((await post(acc, "/api/messages/send", { phone: "+14155552000", content: "welcome back" })).status).toBe(202);
  });

  test("throttled and failing simulator requests are retried, not failed", async () => {
    const { acc } = await simulatorAccount({ deliveryDelayMs: 0, throttleRate: 0.5, errorRate: 0 });
    const sends = await Promise.all([1, 2, 3, 4, 5].map((i) => post(acc, "/api/messages/send", { phone: `+1415555210${i}`, content: `m${i}` })));
    for (const s of sends) expect((await settled(acc, s.body.id, 20_000)).status).toBe("delivered");
  });

  test("bad input answers 4xx with a clear message, never a 500", async () => {
    const { acc } = await simulatorAccount();
    expect((await post(acc, "/api/messages/send", { phone: "123", content: "x" })).body.message).toBe("Please enter a valid phone number");
    expect((await post(acc, "/api/messages/send", { phone: "+14155552671", content: "   " })).body.message).toBe("Message content is required");
    expect(await post(acc, "/api/messages/send", { phone: "+14155552671", content: "x", fromNumber: "+19999999999" })).toMatchObject({
      status: 400,
      body: { message: "The sender number is not one of your active numbers. Check Phone Settings." },
    });
    const none = await t.signUpVerified();
    const r = await post(none, "/api/messages/send", { phone: "+14155552671", content: "x" });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ message: "No SMS provider or phone number is set up. Go to Phone Settings, add your provider's API credentials (or the simulator), then add at least one phone number.", needsProvider: true });
  });
});

describe("one message end to end through Twilio", () => {
  let acc: Account;
  let id: string;
  const hook = () => `${t.ctx.config.publicUrl}/api/webhooks/twilio/sms/${acc.user.id}`;
  const postHook = (signed: { body: string; headers: Record<string, string> }) =>
    fetch(`${t.url}/api/webhooks/twilio/sms/${acc.user.id}`, { method: "POST", body: signed.body, headers: signed.headers });

  test("the wire format reaches the fake, and a signed status callback delivers it", async () => {
    acc = await t.signUpVerified();
    const p = await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
    await post(acc, "/api/phone-numbers", { providerId: p.body.id, phoneNumber: "+14155550100" });
    const r = await post(acc, "/api/messages/send", { phone: "+14155552671", content: "Hi from Twilio" });
    id = r.body.id;
    const sent = await waitFor(() => message(acc, id), (m) => m.status === "sent");
    const req = twilio.requests.find((q) => q.method === "POST" && q.params.To === "+14155552671")!;
    expect(req.path).toBe(`/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`);
    expect(req.authUser).toBe(twilio.accountSid);
    expect(req.contentType).toContain("application/x-www-form-urlencoded");
    expect(req.params).toMatchObject({ From: "+14155550100", Body: "Hi from Twilio", StatusCallback: hook() });
    const sid = twilio.messages.find((m) => m.to === "+14155552671")!.sid;
    expect(sent.status).toBe("sent");

    const delivered = signedTwilioWebhook(twilio.authToken, hook(), twilioStatusParams({ accountSid: twilio.accountSid, messageSid: sid, status: "delivered", to: "+14155552671", from: "+14155550100" }));
    const res = await postHook(delivered);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<Response>");
    expect((await message(acc, id)).status).toBe("delivered");

    // Replayed and late reports change nothing.
    expect((await postHook(delivered)).status).toBe(200);
    const late = signedTwilioWebhook(twilio.authToken, hook(), twilioStatusParams({ accountSid: twilio.accountSid, messageSid: sid, status: "sent", to: "+14155552671", from: "+14155550100" }));
    await postHook(late);
    expect((await message(acc, id)).status).toBe("delivered");
  });

  test("a forged or unsigned webhook answers 403 and changes nothing", async () => {
    const before = await t.api("/api/messages?direction=inbound", { token: acc.token });
    const params = twilioInboundParams({ accountSid: twilio.accountSid, from: "+14155559999", to: "+14155550100", body: "STOP" });
    const forged = signedTwilioWebhook("f".repeat(32), hook(), params);
    expect((await postHook(forged)).status).toBe(403);
    const unsigned = { body: forged.body, headers: { "content-type": "application/x-www-form-urlencoded" } };
    expect((await postHook(unsigned)).status).toBe(403);
    const after = await t.api("/api/messages?direction=inbound", { token: acc.token });
    expect(after.body.total).toBe(before.body.total);
    expect((await t.api("/api/contacts?q=4155559999", { token: acc.token })).body.total).toBe(0);

    const real = signedTwilioWebhook(twilio.authToken, hook(), params);
    expect((await postHook(real)).status).toBe(200);
    expect((await postHook(real)).status).toBe(200);
    const inbound = await t.api("/api/messages?direction=inbound", { token: acc.token });
    expect(inbound.body.total).toBe(before.body.total + 1);
  });
});
