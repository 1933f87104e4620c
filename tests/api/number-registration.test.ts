// Carrier registration per number (issue 34 item 1), against fakes of Twilio's and Telnyx's registration APIs:
// each state (registered, pending, rejected with the reviewers' reason, unregistered, not applicable) read per
// number, what it means for sending, the checked time, a failed check keeping the state it had, and the periodic
// check through the jobs table.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { plans } from "../../db/schema";
import { Value } from "@sinclair/typebox/value";
import { findJob, runDueJobs } from "../../src/jobs/jobs";
import { grantLicense } from "../../src/licenses/licenses";
import { readTwilioRegistrations } from "../../src/providers/twilio-registration";
import { SendRefusal } from "../../src/public-api/contract";
import { registrationWarning } from "../../src/campaigns/registration-warning";
import { findUserById } from "../../src/users/queries";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { startTelnyxRegistrationFake, type TelnyxRegistrationFake } from "../support/fakes/telnyx-registration";
import { startTwilioRegistrationFake, type TwilioRegistrationFake } from "../support/fakes/twilio-registration";

setDefaultTimeout(30_000);

let t: TestServer;
let twilio: TwilioRegistrationFake;
let telnyx: TelnyxRegistrationFake;

export const TWILIO_STATE = {
  brands: [
    { sid: "BN" + "a".repeat(32), status: "APPROVED" as const },
    { sid: "BN" + "b".repeat(32), status: "IN_REVIEW" as const },
  ],
  services: [
    {
      sid: "MG" + "1".repeat(32),
      friendlyName: "Store alerts",
      numbers: ["+14155550101"],
      campaign: { brandSid: "BN" + "a".repeat(32), status: "VERIFIED" as const, rateLimits: { att: { mps: "75", msg_class: "T" }, tmobile: { brand_tier: "LOW" } } },
    },
    { sid: "MG" + "2".repeat(32), friendlyName: "Promotions", numbers: ["+14155550102"], campaign: { brandSid: "BN" + "b".repeat(32), status: "IN_PROGRESS" as const } },
    {
      sid: "MG" + "3".repeat(32),
      friendlyName: "Flash sales",
      numbers: ["+14155550103"],
      campaign: {
        brandSid: "BN" + "a".repeat(32),
        status: "FAILED" as const,
        errors: [{ error_code: 30886, description: "The sample messages do not name the brand or say how to opt out" }],
      },
    },
  ],
  tollFree: [
    { sid: "HH" + "1".repeat(32), phoneNumber: "+18445550101", status: "TWILIO_APPROVED" as const },
    { sid: "HH" + "2".repeat(32), phoneNumber: "+18445550102", status: "IN_REVIEW" as const },
    { sid: "HH" + "3".repeat(32), phoneNumber: "+18445550103", status: "TWILIO_REJECTED" as const, rejectionReason: "The opt-in process is not described" },
  ],
};

beforeAll(async () => {
  twilio = await startTwilioRegistrationFake(structuredClone(TWILIO_STATE));
  telnyx = await startTelnyxRegistrationFake({
    brands: [{ brandId: "4b20017f-8da9-4b2f-b23a-6e4c1e9fd6a1", displayName: "Acme", status: "OK" }],
    campaigns: [
      { campaignId: "4b30017f-0001", tcrCampaignId: "CXK7Q2A", brandId: "4b20017f-8da9-4b2f-b23a-6e4c1e9fd6a1", campaignStatus: "MNO_PROVISIONED" },
      { campaignId: "4b30017f-0002", brandId: "4b20017f-8da9-4b2f-b23a-6e4c1e9fd6a1", campaignStatus: "MNO_REJECTED", failureReasons: "Privacy policy missing from the website" },
    ],
    assignments: [
      { phoneNumber: "+13125550101", campaignId: "4b30017f-0001", assignmentStatus: "ASSIGNED" },
      { phoneNumber: "+13125550102", campaignId: "4b30017f-0001", assignmentStatus: "PENDING_ASSIGNMENT" },
      { phoneNumber: "+13125550103", campaignId: "4b30017f-0002", assignmentStatus: "ASSIGNED" },
    ],
    tollFree: [{ id: "c1e3a7b0-0000-4000-8000-000000000001", phoneNumber: "+18885550101", verificationStatus: "Rejected", reason: "Business website could not be reached" }],
  });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url, TELNYX_API_BASE: telnyx.url } });
  await t.ctx.records.update(plans).set({ phoneNumbers: 100 }).run();
});
afterAll(async () => {
  await t?.stop();
  twilio?.stop();
  telnyx?.stop();
});

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });

export async function addNumbers(acc: Account, providerId: string, numbers: string[]) {
  for (const phoneNumber of numbers) expect((await post(acc, "/api/phone-numbers", { providerId, phoneNumber })).status).toBe(201);
}

type View = { accounts: { providerName: string; summary: string; numbers: Record<string, unknown>[] }[] };
const byNumber = (view: View) => Object.fromEntries(view.accounts.flatMap((a) => a.numbers.map((n) => [n.phoneNumber as string, n])));

test("each number's state as Twilio and Telnyx report it, with what it means for sending", async () => {
  const acc = await t.signUpVerified();
  const tw = await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio main", ...twilio.credentials });
  expect(tw.status).toBe(201);
  await addNumbers(acc, tw.body.id, ["+14155550101", "+14155550102", "+14155550103", "+14155550104", "+18445550101", "+18445550102", "+18445550103", "+18445550104", "12345", "+447700900123"]);
  const tx = await post(acc, "/api/sms-providers", { provider: "telnyx", displayName: "Telnyx", ...telnyx.credentials });
  expect(tx.status).toBe(201);
  await addNumbers(acc, tx.body.id, ["+13125550101", "+13125550102", "+13125550103", "+13125550104", "+18885550101"]);

  // Before any check: every US number "Not checked yet"; the short code and the UK number need no provider to tell.
  const before = await t.api("/api/phone-numbers/registration", { token: acc.token });
  expect(before.status).toBe(200);
  expect(before.body.accounts.map((a: { summary: string }) => a.summary)).toEqual(["2 not applicable, 8 not checked yet", "5 not checked yet"]);

  const at = Date.UTC(2026, 11, 7, 3, 0, 0);
  const realNow = t.ctx.now;
  t.ctx.now = () => at;
  let res;
  try {
    res = await post(acc, "/api/phone-numbers/registration/refresh", {});
  } finally {
    t.ctx.now = realNow;
  }
  expect(res.status).toBe(200);
  const n = byNumber(res.body);
  const checkedAt = new Date(at).toISOString();
  const pick = (x: Record<string, unknown>) => ({ state: x.state, label: x.label, reason: x.reason, detail: x.detail, sending: x.sending, todo: x.todo, blocksUs: x.blocksUs });

  expect(pick(n["+14155550101"]!)).toEqual({
    state: "registered",
    label: "Registered",
    reason: null,
    detail: `Brand ${"BN" + "a".repeat(32)}, campaign C111111 (MARKETING), Messaging Service 'Store alerts'; AT&T class T, 75 messages a minute; T-Mobile tier LOW`,
    sending: "Registered: US carriers deliver its texts within the campaign's approved throughput.",
    todo: null,
    blocksUs: false,
  });
  expect(n["+14155550101"]!.checkedAt).toBe(checkedAt);
  expect(pick(n["+14155550102"]!)).toEqual({
    state: "pending",
    label: "Pending",
    reason: "Campaign in progress; the brand is in review",
    detail: `Brand ${"BN" + "b".repeat(32)}, campaign QE${"2".repeat(32)} (MARKETING), Messaging Service 'Promotions'`,
    sending: "US carriers block its texts to US numbers until the campaign is approved.",
    todo: "Wait for the carriers' review (usually days); send from a registered number meanwhile.",
    blocksUs: true,
  });
  expect(pick(n["+14155550103"]!)).toMatchObject({
    state: "rejected",
    label: "Rejected",
    reason: "The sample messages do not name the brand or say how to opt out (error 30886)",
    sending: "US carriers block its texts to US numbers: the registration was rejected.",
    todo: "Correct what the reviewers named, then resubmit in your provider's console (a resubmission is charged again).",
  });
  expect(pick(n["+14155550104"]!)).toEqual({
    state: "unregistered",
    label: "Unregistered",
    reason: "The number is in no Messaging Service, so it is in no A2P 10DLC campaign",
    detail: null,
    sending: "US carriers block its texts to US numbers: local numbers must be in a registered A2P 10DLC campaign.",
    todo: "Register a brand and an A2P 10DLC campaign in your provider's console and add this number to it.",
    blocksUs: true,
  });
  expect(pick(n["+18445550101"]!)).toMatchObject({ state: "registered", detail: `Verification HH${"1".repeat(32)} for Acme Shop`, sending: "Verified: texts to US and Canadian numbers are delivered at the toll-free rate." });
  expect(pick(n["+18445550102"]!)).toMatchObject({ state: "pending", reason: "Verification in review", sending: "Carriers block its texts to US and Canadian numbers until the verification is approved." });
  expect(pick(n["+18445550103"]!)).toMatchObject({ state: "rejected", reason: "The opt-in process is not described" });
  expect(pick(n["+18445550104"]!)).toMatchObject({
    state: "unregistered",
    reason: "No toll-free verification has been submitted for this number",
    todo: "Submit a toll-free verification for this number in your provider's console.",
  });
  expect(pick(n["12345"]!)).toMatchObject({ state: "not_applicable", label: "Not applicable", reason: "Short codes are approved through the carriers' short code program, not 10DLC", blocksUs: false });
  expect(pick(n["+447700900123"]!)).toMatchObject({ state: "not_applicable", reason: "A number outside the US (+44): no US carrier registration applies" });

  expect(pick(n["+13125550101"]!)).toMatchObject({ state: "registered", detail: "Brand 'Acme', campaign CXK7Q2A (MARKETING)" });
  expect(pick(n["+13125550102"]!)).toMatchObject({ state: "pending", reason: "Assignment pending assignment" });
  expect(pick(n["+13125550103"]!)).toMatchObject({ state: "rejected", reason: "Privacy policy missing from the website" });
  expect(pick(n["+13125550104"]!)).toMatchObject({ state: "unregistered", reason: "The number is assigned to no 10DLC campaign" });
  expect(pick(n["+18885550101"]!)).toMatchObject({ state: "rejected", reason: "Business website could not be reached" });

  expect(res.body.accounts.map((a: { providerName: string; summary: string }) => [a.providerName, a.summary])).toEqual([
    ["Twilio main", "2 registered, 2 pending, 2 rejected, 2 unregistered, 2 not applicable"],
    ["Telnyx", "1 registered, 1 pending, 2 rejected, 1 unregistered"],
  ]);

  // The cached answer is what GET serves, without asking the providers again.
  const asked = twilio.requests.length;
  const cached = await t.api("/api/phone-numbers/registration", { token: acc.token });
  expect(byNumber(cached.body)["+14155550103"]!.state).toBe("rejected");
  expect(twilio.requests.length).toBe(asked);
});

test("Twilio's review errors are read in the shape its API documents: code, description and fields; errors before the deprecated failure_reason", async () => {
  // twilio/twilio-oai spec/json/twilio_messaging_v1.json: the BrandRegistrations and Compliance/Usa2p examples.
  const fake = await startTwilioRegistrationFake({
    brands: [
      { sid: "BN" + "c".repeat(32), status: "APPROVED" },
      {
        sid: "BN" + "d".repeat(32),
        status: "FAILED",
        failureReason: "Registration error",
        errors: [{ error_code: 30701, description: "Invalid State/Region/Province. please check the input field value and retry.", fields: ["region"] }],
      },
    ],
    services: [
      {
        sid: "MG" + "4".repeat(32),
        friendlyName: "Flow",
        numbers: ["+14155550111"],
        campaign: {
          brandSid: "BN" + "c".repeat(32),
          status: "FAILED",
          errors: [
            { error_code: 30897, description: "The campaign submission has been reviewed and it was rejected due to Disallowed Content.", fields: ["MESSAGE_FLOW"] },
            { error_code: 30886, description: "Sample messages do not match the use case", fields: ["MESSAGE_SAMPLES", "US_APP_TO_PERSON_USECASE"] },
          ],
        },
      },
      { sid: "MG" + "5".repeat(32), friendlyName: "Brand", numbers: ["+14155550112"], campaign: { brandSid: "BN" + "d".repeat(32), status: "VERIFIED" } },
    ],
    tollFree: [{ sid: "HH" + "9".repeat(32), phoneNumber: "+18445550111", status: "TWILIO_REJECTED", rejectionReason: "Website not accessible", errorCode: 30446 }],
  });
  try {
    const found = await readTwilioRegistrations(fake.credentials, fake.url, [
      { phoneNumber: "+14155550111", program: "10dlc" },
      { phoneNumber: "+14155550112", program: "10dlc" },
      { phoneNumber: "+18445550111", program: "toll_free" },
    ]);
    expect(Object.fromEntries([...found].map(([n, f]) => [n, [f.state, f.reason]]))).toEqual({
      "+14155550111": [
        "rejected",
        "The campaign submission has been reviewed and it was rejected due to Disallowed Content (error 30897; field: message flow); " +
          "Sample messages do not match the use case (error 30886; fields: message samples, us app to person usecase)",
      ],
      "+14155550112": ["rejected", "Brand: Invalid State/Region/Province. please check the input field value and retry (error 30701; field: region)"],
      "+18445550111": ["rejected", "Website not accessible (error 30446)"],
    });
  } finally {
    fake.stop();
  }
});

test("a check that fails keeps the state read before and says why; the job reads every account again", async () => {
  const acc = await t.signUpVerified();
  const tw = await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", ...twilio.credentials });
  await addNumbers(acc, tw.body.id, ["+14155550101"]);
  twilio.control.failing = true;
  try {
    const res = await post(acc, "/api/phone-numbers/registration/refresh", { providerId: tw.body.id });
    expect(res.status).toBe(200);
    const n = byNumber(res.body)["+14155550101"]!;
    expect({ state: n.state, label: n.label, checkError: n.checkError }).toEqual({ state: "unknown", label: "Not known", checkError: "Twilio answered: Internal Server Error (20500)" });
  } finally {
    twilio.control.failing = false;
  }

  // The job (every 12 hours, in the jobs table) reads every account's numbers again.
  const job = (await findJob(t.ctx, "registration_check"));
  expect(job?.state).toBe("pending");
  const realNow = t.ctx.now;
  const later = job!.nextAttemptAt + 1000;
  t.ctx.now = () => later;
  try {
    await (await runDueJobs(t.ctx)).settled;
    for (let i = 0; i < 100 && (await findJob(t.ctx, "registration_check"))!.nextAttemptAt <= later; i++) await Bun.sleep(20);
  } finally {
    t.ctx.now = realNow;
  }
  const after = byNumber((await t.api("/api/phone-numbers/registration", { token: acc.token })).body)["+14155550101"]!;
  expect({ state: after.state, checkError: after.checkError, checkedAt: after.checkedAt }).toEqual({ state: "registered", checkError: null, checkedAt: new Date(later).toISOString() });
  expect((await findJob(t.ctx, "registration_check"))!.nextAttemptAt).toBe(later + 12 * 3600_000);

  // A failed check after a good one keeps "registered" and its time, and says why it could not be read again.
  twilio.control.failing = true;
  try {
    const res = await post(acc, "/api/phone-numbers/registration/refresh", {});
    const n = byNumber(res.body)["+14155550101"]!;
    expect({ state: n.state, checkedAt: n.checkedAt, checkError: n.checkError }).toEqual({ state: "registered", checkedAt: new Date(later).toISOString(), checkError: "Twilio answered: Internal Server Error (20500)" });
  } finally {
    twilio.control.failing = false;
  }
});

test("a campaign to US recipients from an unregistered number is warned about before it is sent", async () => {
  const acc = await t.signUpVerified();
  const tw = await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", ...twilio.credentials });
  await addNumbers(acc, tw.body.id, ["+14155550101", "+14155550104", "+18445550103"]);
  expect((await post(acc, "/api/phone-numbers/registration/refresh", {})).status).toBe(200);
  const US = ["+12125550123", "+13105550147"];
  const UK = "+447911123456";
  const CA = "+16045550123";

  const preview = (fromNumber: string, recipients: string[]) =>
    post(acc, "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients, content: "Hello", fromNumber });
  const warned = await preview("+14155550104", [...US, UK]);
  expect(warned.status).toBe(200);
  expect(warned.body.registration).toEqual({
    phoneNumber: "+14155550104",
    program: "10dlc",
    state: "unregistered",
    blockedRecipients: 2,
    message: "Carriers will block texts from +14155550104: it is not registered for A2P 10DLC, and 2 recipients are US numbers.",
    reason: "The number is in no Messaging Service, so it is in no A2P 10DLC campaign",
    todo: "Register a brand and an A2P 10DLC campaign in your provider's console and add this number to it.",
    checkedAt: expect.any(String),
  });
  // A registered sender, or no US recipient, is not warned about; a Canadian recipient counts for toll-free only.
  expect((await preview("+14155550101", US)).body.registration).toBeNull();
  expect((await preview("+14155550104", [UK, CA])).body.registration).toBeNull();
  expect((await preview("+18445550103", [UK, CA])).body.registration).toMatchObject({
    state: "rejected",
    blockedRecipients: 1,
    message: "Carriers will block texts from +18445550103: its toll-free verification was rejected, and 1 recipient is a US or Canadian number.",
    reason: "The opt-in process is not described",
  });

  // The send: refused with the warning until acknowledged.
  const created = await post(acc, "/api/campaigns", { name: "Sale", content: "Sale today", fromNumber: "+14155550104", recipients: [...US, UK] });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const later = new Date(Date.now() + 24 * 3600_000).toISOString();
  const refused = await post(acc, `/api/campaigns/${id}/send`, { scheduledAt: later });
  expect(refused.status).toBe(409);
  expect(refused.body.message).toBe(
    "Carriers will block texts from +14155550104: it is not registered for A2P 10DLC, and 2 recipients are US numbers. Register a brand and an A2P 10DLC campaign in your provider's console and add this number to it. Send with acknowledgeRegistration: true to send anyway.",
  );
  expect(refused.body.registrationWarning.state).toBe("unregistered");
  expect((await t.api(`/api/campaigns/${id}`, { token: acc.token })).body.status).toBe("draft");
  const sent = await post(acc, `/api/campaigns/${id}/send`, { scheduledAt: later, acknowledgeRegistration: true });
  expect(sent.status).toBe(202);
  expect(sent.body.campaign.status).toBe("scheduled");

  // The recipients are read only for a sender carriers block: a send reads its whole audience for the warning alone
  // (a million contacts held the event loop 1.9 s of its own work on every start).
  const user = (await findUserById(t.ctx, acc.user.id))!;
  let asked = 0;
  const recipients = async () => (asked++, [{ phone: US[0]!, n: 3 }]);
  expect(await registrationWarning(t.ctx, user, "+14155550101", recipients)).toBeNull();
  expect(asked).toBe(0);
  expect((await registrationWarning(t.ctx, user, "+14155550104", recipients))?.blockedRecipients).toBe(3);
  expect(asked).toBe(1);
});

test("the public API's campaign send is refused with the same warning until acknowledgeRegistration: true", async () => {
  const acc = await t.signUpVerified();
  await grantLicense(t.ctx, acc.user.id, "professional", 30);
  const tw = await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", ...twilio.credentials });
  await addNumbers(acc, tw.body.id, ["+14155550101", "+14155550104"]);
  expect((await post(acc, "/api/phone-numbers/registration/refresh", {})).status).toBe(200);
  await t.confirm(acc);
  const key = (await post(acc, "/api/api-keys", { name: "Shop", permissions: ["contacts:write", "campaigns:write", "campaigns:read"] })).body.key as string;
  const v1 = (path: string, body?: unknown, headers?: Record<string, string>) => t.api(`/api/v1${path}`, { method: "POST", token: key, body, headers, origin: false });
  const ids: string[] = [];
  for (const phone of ["+12125550123", "+13105550147", "+447911123456"]) ids.push((await v1("/contacts", { phone })).body.id);

  const made = await v1("/campaigns", { name: "Sale", content: "Sale today", contactIds: ids, fromNumber: "+14155550104" });
  expect(made.status).toBe(201);
  const refused = await v1(`/campaigns/${made.body.id}/send`, undefined, { "idempotency-key": "send-1" });
  expect(refused.status).toBe(409);
  expect(refused.body.message).toBe(
    "Carriers will block texts from +14155550104: it is not registered for A2P 10DLC, and 2 recipients are US numbers. Register a brand and an A2P 10DLC campaign in your provider's console and add this number to it. Send with acknowledgeRegistration: true to send anyway.",
  );
  expect(refused.body.registrationWarning).toMatchObject({ phoneNumber: "+14155550104", program: "10dlc", state: "unregistered", blockedRecipients: 2 });
  // The answer is the one the OpenAPI document gives for 409.
  expect([...Value.Errors(SendRefusal, refused.body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  expect((await t.api(`/api/v1/campaigns/${made.body.id}`, { token: key, origin: false })).body.status).toBe("draft");
  expect((await v1(`/campaigns/${made.body.id}/send`, { acknowledgeRegistration: "yes" })).body.message).toBe("acknowledgeRegistration must be true or false");
  expect((await v1(`/campaigns/${made.body.id}/send`, { acknowledgeRegistration: false })).status).toBe(409);

  // The refusal stored no answer: the same Idempotency-Key with the acknowledgement sends, and a replay answers it.
  const sent = await v1(`/campaigns/${made.body.id}/send`, { acknowledgeRegistration: true }, { "idempotency-key": "send-1" });
  expect(sent.status).toBe(202);
  expect(sent.body.queued).toBe(3);
  const replay = await v1(`/campaigns/${made.body.id}/send`, { acknowledgeRegistration: true }, { "idempotency-key": "send-1" });
  expect([replay.status, replay.headers.get("idempotent-replayed"), replay.body.queued]).toEqual([202, "true", 3]);

  // A registered sender needs no acknowledgement.
  const ok = await v1("/campaigns", { name: "Sale 2", content: "Sale today", contactIds: ids, fromNumber: "+14155550101" });
  expect((await v1(`/campaigns/${ok.body.id}/send`)).status).toBe(202);
});

test("smsdesk doctor reads every account's numbers from the providers and prints a line per state", async () => {
  const { PORT: _p, PUBLIC_URL: _u, HOST: _h, SMTP_URL: _s, ...rest } = process.env;
  // Spawned, not spawnSync: the server and the fakes doctor asks run in this process.
  const r = Bun.spawn([process.execPath, "src/main.ts", "doctor"], {
    cwd: `${import.meta.dir}/../..`,
    env: { ...rest, DATA_DIR: t.dataDir, PUBLIC_URL: t.url, TWILIO_API_BASE: twilio.url, TELNYX_API_BASE: telnyx.url },
    stdin: "ignore",
    stdout: "pipe",
  });
  const out = await new Response(r.stdout).text();
  await r.exited;
  const lines = out.split("\n");
  const mine = lines.filter((l, i) => /'(Twilio main|Telnyx)'/.test(l) || (/^ {8}fix:/.test(l) && /'(Twilio main|Telnyx)'/.test(lines[i - 1] ?? "")));
  expect(mine).toEqual([
    "[ok]   registration: Twilio 'Twilio main': 2 registered, 2 pending, 2 rejected, 2 unregistered, 2 not applicable",
    "[warn] registration: +14155550102 (Twilio 'Twilio main') is pending: Campaign in progress; the brand is in review",
    "        fix: Wait for the carriers' review (usually days); send from a registered number meanwhile.",
    "[fail] registration: +14155550103 (Twilio 'Twilio main') is rejected: The sample messages do not name the brand or say how to opt out (error 30886)",
    "        fix: Correct what the reviewers named, then resubmit in your provider's console (a resubmission is charged again).",
    "[fail] registration: +14155550104 (Twilio 'Twilio main') is unregistered: The number is in no Messaging Service, so it is in no A2P 10DLC campaign",
    "        fix: Register a brand and an A2P 10DLC campaign in your provider's console and add this number to it.",
    "[warn] registration: +18445550102 (Twilio 'Twilio main') is pending: Verification in review",
    "        fix: Wait for the review (usually days); send from a verified number meanwhile.",
    "[fail] registration: +18445550103 (Twilio 'Twilio main') is rejected: The opt-in process is not described",
    "        fix: Correct what the reviewers named, then resubmit in your provider's console (a resubmission is charged again).",
    "[fail] registration: +18445550104 (Twilio 'Twilio main') is unregistered: No toll-free verification has been submitted for this number",
    "        fix: Submit a toll-free verification for this number in your provider's console.",
    "[ok]   registration: Telnyx 'Telnyx': 1 registered, 1 pending, 2 rejected, 1 unregistered",
    "[warn] registration: +13125550102 (Telnyx 'Telnyx') is pending: Assignment pending assignment",
    "        fix: Wait for the carriers' review (usually days); send from a registered number meanwhile.",
    "[fail] registration: +13125550103 (Telnyx 'Telnyx') is rejected: Privacy policy missing from the website",
    "        fix: Correct what the reviewers named, then resubmit in your provider's console (a resubmission is charged again).",
    "[fail] registration: +13125550104 (Telnyx 'Telnyx') is unregistered: The number is assigned to no 10DLC campaign",
    "        fix: Register a brand and an A2P 10DLC campaign in your provider's console and add this number to it.",
    "[fail] registration: +18885550101 (Telnyx 'Telnyx') is rejected: Business website could not be reached",
    "        fix: Correct what the reviewers named, then resubmit in your provider's console (a resubmission is charged again).",
  ]);
  expect(r.exitCode).toBe(1);
}, 60_000);

test("the pre-submission checklist reads the account's real business name, templates, HELP reply and keywords", async () => {
  const acc = await t.signUpVerified();
  const checklist = async () =>
    Object.fromEntries(
      ((await t.api("/api/campaigns/registration-checklist", { token: acc.token })).body.items as { id: string; status: string; detail: string }[]).map((i) => [i.id, [i.status, i.detail]]),
    );
  const patch = (path: string, body: unknown) => t.api(path, { method: "PATCH", token: acc.token, body });

  expect(await checklist()).toEqual({
    brand: ["fail", "No business name is set, so messages are signed 'Test User'. Set the name you register under in Account Settings."],
    "samples-brand": ["fail", "You have no templates of your own: reviewers ask for 2 to 5 sample messages. Save the texts you will send as templates."],
    "samples-opt-out": ["fail", "You have no templates of your own: reviewers ask for 2 to 5 sample messages. Save the texts you will send as templates."],
    help: ["pass", `HELP is answered: "Test User: For help, contact ${acc.email}. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe."`],
    "opt-in": ["manual", "No active text-to-join keyword: describe in the registration how people opt in (a web form, at the counter) and show where."],
    privacy: ["manual", "smsdesk cannot see your website: it needs a privacy policy saying mobile numbers and opt-in data are not shared with third parties for marketing, and the opt-in page should link to it."],
  });

  expect((await patch("/api/user/profile", { businessName: "Rosa's Flowers" })).status).toBe(200);
  expect((await patch("/api/user/settings", { appendOptOut: false, helpReply: "We are here to help!" })).status).toBe(200);
  expect((await post(acc, "/api/templates", { name: "Sale", category: "retail", content: "{business}: 20% off roses today. Reply STOP to opt out." })).status).toBe(201);
  expect((await post(acc, "/api/templates", { name: "Restock", category: "retail", content: "Tulips are back, [Name]!" })).status).toBe(201);
  expect((await post(acc, "/api/keywords", { keyword: "ROSES", autoReply: "Thanks for joining {business}! Reply STOP to cancel." })).status).toBe(201);
  const after = await checklist();
  expect(after.brand).toEqual(["pass", "Your messages are signed 'Rosa's Flowers'."]);
  expect(after["samples-brand"]).toEqual(["fail", "'Restock' does not name 'Rosa's Flowers': add {business} to the text."]);
  expect(after["samples-opt-out"]).toEqual(["fail", `'Restock' says nothing of STOP and the opt-out line is turned off in Account Settings: add "Reply STOP to opt out".`]);
  expect(after.help).toEqual(["fail", `Your HELP reply gives no phone, email or website: "We are here to help!". Add ${acc.email} to it in Account Settings.`]);
  expect(after["opt-in"]).toEqual(["fail", 'The welcome text of ROSES (no "Msg & data rates may apply") leaves out what reviewers look for.']);
});
