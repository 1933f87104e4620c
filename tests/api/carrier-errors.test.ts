// Carrier error codes that mean "not registered" or "blocked" are explained in plain words in a campaign's
// failures (issue 34 item 1): a Twilio status callback with ErrorCode 30034 reaches the failures list with what it
// means and what to do; a code with no such meaning keeps its message alone.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { explainCarrierError } from "../../src/messages/carrier-errors";
import { signedTwilioWebhook, startTwilioFake, twilioStatusParams, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const SENDER = "+14155550100";
let t: TestServer;
let twilio: TwilioFake;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

test("a 30034 failure says the number is not registered and what to do", async () => {
  const acc = await t.signUpVerified();
  const post = (path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });
  const provider = await post("/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
  expect((await post("/api/phone-numbers", { providerId: provider.body.id, phoneNumber: SENDER })).status).toBe(201);
  const recipients = ["+12125550181", "+12125550182", "+12125550183"];
  const created = await post("/api/campaigns", { name: "Blocked", content: "Hello", fromNumber: SENDER, recipients, transactional: true });
  expect((await post(`/api/campaigns/${created.body.id}/send`)).status).toBe(202);
  const sent = await waitFor(() => twilio.messages.filter((m) => recipients.includes(m.to)), (m) => m.length === 3);

  const url = `${t.ctx.config.publicUrl}/api/webhooks/twilio/sms/${acc.user.id}`;
  const codes: Record<string, string | undefined> = { "+12125550181": "30034", "+12125550182": "30008", "+12125550183": undefined };
  for (const m of sent) {
    const errorCode = codes[m.to];
    const hook = signedTwilioWebhook(twilio.authToken, url, twilioStatusParams({ accountSid: twilio.accountSid, messageSid: m.sid, status: errorCode ? "undelivered" : "delivered", to: m.to, from: SENDER, errorCode }));
    expect((await fetch(url.replace(t.ctx.config.publicUrl, t.url), { method: "POST", body: hook.body, headers: hook.headers })).status).toBe(200);
  }
  const failed = await waitFor(
    () => t.api(`/api/campaign-logs?campaignId=${created.body.id}&status=failed`, { token: acc.token }).then((r) => r.body),
    (b) => b.total === 2,
  );
  const byPhone = Object.fromEntries(failed.data.map((l: Record<string, unknown>) => [l.recipientPhone, l]));
  expect(byPhone["+12125550181"]).toMatchObject({
    errorCode: "30034",
    errorMessage: "Message from an unregistered number",
    errorExplanation: {
      meaning: "US carriers blocked it: the sending number is not registered in an A2P 10DLC campaign.",
      fix: "Register a brand and an A2P 10DLC campaign for the number (Phone Settings shows each number's registration), or send from a registered number.",
    },
  });
  expect(byPhone["+12125550182"]).toMatchObject({ errorCode: "30008", errorMessage: "Unknown error", errorExplanation: null });
});

test("the codes explained: Twilio's and Telnyx's registration and blocking codes", () => {
  expect(explainCarrierError("30032")?.meaning).toBe("Carriers blocked it: the toll-free sending number has not been verified.");
  expect(explainCarrierError("30035")?.meaning).toBe("US carriers blocked it: the number's A2P 10DLC campaign is approved but the number is not provisioned on it yet.");
  expect(explainCarrierError("30007")?.meaning).toStartWith("The carrier filtered it as spam");
  expect(explainCarrierError("40010")?.meaning).toBe("US carriers blocked it: the sending number is not assigned to a registered 10DLC campaign.");
  expect(explainCarrierError("40329")?.meaning).toBe("Carriers blocked it: the toll-free sending number has not been verified.");
  // Telnyx's Messaging Error Code Reference: the 10DLC-specific and toll-free tables (see src/messages/carrier-errors.ts).
  expect(explainCarrierError("40019")).toEqual({
    meaning: "AT&T could not match the number to a 10DLC campaign (invalid tag data).",
    fix: "Check in your provider's console that the number is assigned to the registered campaign (Phone Settings shows each number's registration).",
  });
  expect(explainCarrierError("40330")?.meaning).toBe("The toll-free sending number is not provisioned for messaging yet.");
  expect(explainCarrierError("40016")?.meaning).toBe("T-Mobile's sending limit for the brand's 10DLC traffic was reached.");
  expect(explainCarrierError("40017")?.meaning).toBe("AT&T rejected it as spam.");
  expect(explainCarrierError("40018")?.meaning).toBe("AT&T's sending limit for the number's 10DLC campaign was reached.");
  // 40011 is Telnyx's upstream rate limit, not a block: no explanation.
  expect(explainCarrierError("40011")).toBeNull();
  expect(explainCarrierError("HTTP 500")).toBeNull();
  expect(explainCarrierError(null)).toBeNull();
});
