// Texts from one number to one person go out one call at a time, in the order they were due: a second text due
// while the first's call is still open waits for its answer. Without that, a drip's steps due together after a
// backlog (or a reply beside a campaign's text) raced each other to the provider and could arrive in either order.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const FROM = "+14155550190";
const DELAY_MS = 300;
let t: TestServer;
let twilio: TwilioFake;

beforeAll(async () => {
  // Each send is answered DELAY_MS after it arrives, as a provider under load answers.
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: FROM }], delayMs: DELAY_MS });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

test("three texts to one person, due at once, reach the provider one after another in their order; others are not held", async () => {
  const acc = await t.signUpVerified();
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  const p = await t.api("/api/sms-providers", {
    method: "POST",
    token: acc.token,
    body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
  });
  const n = await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: { providerId: p.body.id, phoneNumber: FROM, messagesPerSecond: 50 } });
  expect(n.status).toBe(201);

  const send = (phone: string, content: string) =>
    t.api("/api/messages", { method: "POST", token: acc.token, body: { phone, content, direction: "outbound" } });
  // Queued one after another, within the first call's DELAY_MS.
  for (const [phone, content] of [["+14155552301", "Step 1"], ["+14155552301", "Step 2"], ["+14155552301", "Step 3"], ["+14155552302", "Other"]] as const) {
    expect((await send(phone, content)).status).toBe(202);
  }

  const sends = () => twilio.requests.filter((r) => r.method === "POST" && r.params.From === FROM);
  await waitFor(async () => sends().length, (count) => count === 4, 20_000);
  const toOne = sends().filter((r) => r.params.To === "+14155552301");
  expect(toOne.map((r) => r.params.Body)).toEqual(["Step 1", "Step 2", "Step 3"]);
  // Each call started only after the one before it had been answered.
  expect(toOne[1]!.at - toOne[0]!.at).toBeGreaterThanOrEqual(DELAY_MS - 5);
  expect(toOne[2]!.at - toOne[1]!.at).toBeGreaterThanOrEqual(DELAY_MS - 5);
  // Another person's text did not wait behind them.
  const other = sends().find((r) => r.params.To === "+14155552302")!;
  expect(other.at).toBeLessThan(toOne[1]!.at);
});
