import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { grantLicense } from "../../src/licenses/licenses";
import { startTestServer, TEST_ENGINE, type Account, type TestServer } from "../support/test-server";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";

let t: TestServer;
let twilio: TwilioFake;
let a: Account;
let b: Account;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }, { phoneNumber: "+18885550100" }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
  a = await t.signUpVerified();
  b = await t.signUpVerified();
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });

describe("provider accounts", () => {
  test("create validates in the spec's wording and never answers the credentials", async () => {
    expect((await post(a, "/api/sms-providers", { displayName: "X" })).body.message).toBe("Please choose a provider");
    expect((await post(a, "/api/sms-providers", { provider: "nope", displayName: "X" })).body.message).toBe("Please choose a provider");
    expect((await post(a, "/api/sms-providers", { provider: "twilio" })).body.message).toBe("Display name is required");
    const missing = await post(a, "/api/sms-providers", { provider: "twilio", displayName: "Main", accountSid: twilio.accountSid });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("Auth Token is required");
    const badSid = await post(a, "/api/sms-providers", { provider: "twilio", displayName: "Main", accountSid: "XX1", authToken: "t" });
    expect(badSid.body.message).toBe("Account SID must start with AC followed by 32 letters and digits");

    const created = await post(a, "/api/sms-providers", {
      provider: "twilio",
      displayName: "Main Twilio",
      accountSid: twilio.accountSid,
      authToken: twilio.authToken,
      userId: b.user.id,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ provider: "twilio", displayName: "Main Twilio", isDefault: true, isActive: true, simulated: false });
    expect(created.body.credentialHint).toBe(`…${twilio.authToken.slice(-4)}`);
    expect(created.text).not.toContain(twilio.authToken);
    expect(created.body.webhookUrl).toBe(`${t.ctx.config.publicUrl}/api/webhooks/twilio/sms/${a.user.id}`);

    const list = await t.api("/api/sms-providers", { token: a.token });
    expect(list.body.total).toBe(1);
    expect(list.text).not.toContain(twilio.authToken);
    expect((await t.api("/api/sms-providers", { token: b.token })).body.total).toBe(0);
  });

  test("credentials are not readable from the database file", async () => {
    // On PostgreSQL there is no file of ours to read: the column is what the database holds.
    if (TEST_ENGINE === "sqlite") {
      t.ctx.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const file = readFileSync(join(t.dataDir, "smsdesk.db"));
      expect(file.includes(Buffer.from(twilio.authToken))).toBe(false);
    }
    const [row] = await t.ctx.records.$rows<{ credentials_encrypted: string }>("SELECT credentials_encrypted FROM sms_providers");
    expect(row!.credentials_encrypted.startsWith("v1.")).toBe(true);
    expect(row!.credentials_encrypted).not.toContain(twilio.authToken);
  });

  test("test connection and available numbers make real calls; failures answer the spec's texts", async () => {
    const [account] = (await t.api("/api/sms-providers", { token: a.token })).body.data;
    const ok = await post(a, `/api/sms-providers/${account.id}/test`);
    expect(ok.body).toMatchObject({ success: true });
    expect(ok.body.message).toBe("Account 'Fake Twilio Account' is active");
    const numbers = await t.api(`/api/providers/${account.id}/available-numbers`, { token: a.token });
    expect(numbers.body.success).toBe(true);
    expect(numbers.body.numbers.map((n: any) => n.phoneNumber)).toEqual(twilio.numbers.map((n) => n.phoneNumber));

    const byKind = await t.api("/api/twilio/numbers", { token: a.token });
    expect(byKind.body.numbers.map((n: any) => n.phoneNumber)).toEqual(twilio.numbers.map((n) => n.phoneNumber));
    expect((await t.api("/api/telnyx/numbers", { token: a.token })).body).toMatchObject({ success: false, numbers: [] });
    expect((await t.api("/api/nope/numbers", { token: a.token })).status).toBe(404);

    const wrong = await post(a, "/api/sms-providers", { provider: "twilio", displayName: "Wrong", accountSid: twilio.accountSid, authToken: "0".repeat(32) });
    const failed = await post(a, `/api/sms-providers/${wrong.body.id}/test`);
    expect(failed.body.success).toBe(false);
    expect(failed.body.error).toContain("Authentication failed");
    const noNumbers = await t.api(`/api/providers/${wrong.body.id}/available-numbers`, { token: a.token });
    expect(noNumbers.body).toMatchObject({ success: false, numbers: [] });

    await post(a, "/api/sms-providers", { provider: "twilio", displayName: "Down", accountSid: twilio.accountSid, authToken: twilio.authToken });
    const down = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: "http://127.0.0.1:9" } });
    try {
      const u = await down.signUpVerified();
      const p = await down.api("/api/sms-providers", { method: "POST", token: u.token, body: { provider: "twilio", displayName: "T", accountSid: twilio.accountSid, authToken: twilio.authToken } });
      const r = await down.api(`/api/providers/${p.body.id}/available-numbers`, { token: u.token });
      expect(r.body).toMatchObject({ success: false, error: "Failed to connect to provider API" });
    } finally {
      await down.stop();
    }
    await t.api(`/api/sms-providers/${wrong.body.id}`, { method: "DELETE", token: a.token });
  });

  test("another user's account answers 404 on every call", async () => {
    const [account] = (await t.api("/api/sms-providers", { token: a.token })).body.data;
    expect((await post(b, `/api/sms-providers/${account.id}/test`)).status).toBe(404);
    expect((await t.api(`/api/providers/${account.id}/available-numbers`, { token: b.token })).status).toBe(404);
    expect((await t.api(`/api/sms-providers/${account.id}`, { method: "PATCH", token: b.token, body: { displayName: "x" } })).status).toBe(404);
    expect((await t.api(`/api/sms-providers/${account.id}`, { method: "DELETE", token: b.token })).status).toBe(404);
    expect((await post(b, "/api/phone-numbers", { providerId: account.id, phoneNumber: "+14155550100" })).body.message).toBe("Please choose an active provider");
  });

  test("default moves with set-default and delete", async () => {
    const second = await post(a, "/api/sms-providers", { provider: "simulator", displayName: "Sim", isDefault: true });
    expect(second.body).toMatchObject({ isDefault: true, simulated: true, credentialHint: "" });
    expect(second.body.settings).toEqual({ deliveryDelayMs: 1000, failRate: 0, throttleRate: 0, errorRate: 0 });
    let list = (await t.api("/api/sms-providers", { token: a.token })).body.data;
    expect(list.filter((p: any) => p.isDefault).map((p: any) => p.id)).toEqual([second.body.id]);
    await t.api(`/api/sms-providers/${second.body.id}`, { method: "DELETE", token: a.token });
    list = (await t.api("/api/sms-providers", { token: a.token })).body.data;
    expect(list.filter((p: any) => p.isDefault).length).toBe(1);
  });
});

describe("sender numbers", () => {
  test("manual entry in E.164 with defaults by kind, validation, one default", async () => {
    // Three numbers: more than the trial's Starter plan allows (plan-limits.test.ts).
    await grantLicense(t.ctx, a.user.id, "professional", 30);
    const [account] = (await t.api("/api/sms-providers", { token: a.token })).body.data;
    expect((await post(a, "/api/phone-numbers", { providerId: account.id })).body.message).toBe("Phone number is required");
    expect((await post(a, "/api/phone-numbers", { providerId: account.id, phoneNumber: "hello world!" })).body.message).toBe(
      "Please enter the number in international format, e.g. +14155550123",
    );
    const long = await post(a, "/api/phone-numbers", { providerId: account.id, phoneNumber: "+1 (415) 555-0100", displayName: "Main" });
    expect(long.status).toBe(201);
    expect(long.body).toMatchObject({ phoneNumber: "+14155550100", kind: "long_code", messagesPerSecond: 1, isDefault: true, provider: "twilio" });
    const tollFree = await post(a, "/api/phone-numbers", { providerId: account.id, phoneNumber: "+18885550100" });
    expect(tollFree.body).toMatchObject({ kind: "toll_free", messagesPerSecond: 3, isDefault: false });
    const short = await post(a, "/api/phone-numbers", { providerId: account.id, phoneNumber: "55555", messagesPerSecond: 100 });
    expect(short.body).toMatchObject({ kind: "short_code", messagesPerSecond: 100 });
    expect(await post(a, "/api/phone-numbers", { providerId: account.id, phoneNumber: "+14155550100" })).toMatchObject({
      status: 409,
      body: { message: "This number is already added" },
    });
    const edited = await t.api(`/api/phone-numbers/${tollFree.body.id}`, { method: "PATCH", token: a.token, body: { messagesPerSecond: 2.5, isDefault: true } });
    expect(edited.body).toMatchObject({ messagesPerSecond: 2.5, isDefault: true });
    const list = (await t.api("/api/phone-numbers", { token: a.token })).body;
    expect(list.total).toBe(3);
    expect(list.data.filter((n: any) => n.isDefault).map((n: any) => n.id)).toEqual([tollFree.body.id]);
    expect((await t.api(`/api/phone-numbers/${short.body.id}`, { method: "PATCH", token: a.token, body: { messagesPerSecond: -1 } })).status).toBe(400);
    expect((await t.api(`/api/phone-numbers/${short.body.id}`, { method: "DELETE", token: b.token })).status).toBe(404);
    expect((await t.api(`/api/phone-numbers/${short.body.id}`, { method: "DELETE", token: a.token })).status).toBe(200);
    await t.api(`/api/phone-numbers/${tollFree.body.id}`, { method: "PATCH", token: a.token, body: { isDefault: false } });
    await t.api(`/api/phone-numbers/${long.body.id}`, { method: "PATCH", token: a.token, body: { isDefault: true } });
  });

  test("the same number added twice at once: one is added, the other answers 409, and one row is kept", async () => {
    const [account] = (await t.api("/api/sms-providers", { token: a.token })).body.data;
    const body = { providerId: account.id, phoneNumber: "+14155550177" };
    const answers = await Promise.all([post(a, "/api/phone-numbers", body), post(a, "/api/phone-numbers", body)]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(answers.find((r) => r.status === 409)!.body.message).toBe("This number is already added");
    const list = (await t.api("/api/phone-numbers", { token: a.token })).body.data;
    expect(list.filter((n: any) => n.phoneNumber === "+14155550177").length).toBe(1);
    await t.api(`/api/phone-numbers/${answers.find((r) => r.status === 201)!.body.id}`, { method: "DELETE", token: a.token });
  });

  test("webhook URLs: per kind for signed providers, per account with a secret otherwise", async () => {
    const r = await t.api("/api/sms-providers/webhook-urls", { token: a.token });
    const byKind = Object.fromEntries(r.body.urls.map((u: any) => [u.provider, u]));
    expect(byKind.twilio.url).toBe(`${t.ctx.config.publicUrl}/api/webhooks/twilio/sms/${a.user.id}`);
    expect(byKind.telnyx.url).toBe(`${t.ctx.config.publicUrl}/api/webhooks/telnyx/sms/${a.user.id}`);
    expect(byKind.brevo).toMatchObject({ url: null, needsAccount: true });
  });
});
