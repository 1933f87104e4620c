// Issue 31 item 2: what the sign-in protections count lives in the database, so two processes of one installation
// (here a running server, A, and a second app on the same database, B; and C, opened later, as a restarted process
// would be) decide alike: a client's rate limit, an email's lockout, a sign-up's code step, a TOTP code spent once,
// an API key's quota, and a provider's webhook replayed to the other process.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { generateSync } from "otplib";
import { createApp } from "../../src/app";
import { verifySecondFactor } from "../../src/auth/two-factor";
import type { AppContext } from "../../src/context";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { generateLicenseCodes } from "../../src/admin/license-codes";
import { grantLicense, licenseAtSignUp, startTrial } from "../../src/licenses/licenses";
import { rememberClientIp } from "../../src/http/client-ip";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { openAppContext } from "../../src/server";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";
import { type Account, startTestServer, type TestServer } from "../support/test-server";

setDefaultTimeout(60_000);

const MAIN = "+14155550100";
let a: TestServer;
let twilio: TwilioFake;
let clock = Date.now();
const opened: AppContext[] = [];

/** Another app on A's database, on the same clock: another process of the installation. */
async function instance() {
  const ctx = await openAppContext(a.ctx.config, () => {});
  ctx.now = () => clock;
  ctx.argon2Cost = a.ctx.argon2Cost;
  opened.push(ctx);
  const app = createApp(ctx);
  /** A request from `from` (the client address), as the server hands it to the app. */
  const call = async (path: string, o: { method?: string; body?: unknown; token?: string; from?: string; raw?: { body: string; headers: Record<string, string> } } = {}) => {
    const headers: Record<string, string> = { origin: new URL(a.ctx.config.publicUrl).origin, ...o.raw?.headers };
    if (o.body !== undefined) headers["content-type"] = "application/json";
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const request = new Request(`${a.ctx.config.publicUrl}${path}`, {
      method: o.method ?? (o.body !== undefined || o.raw ? "POST" : "GET"),
      headers,
      body: o.raw?.body ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
    });
    rememberClientIp(request, o.from ?? "127.0.0.1");
    const res = await app.handle(request);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text.startsWith("{") ? JSON.parse(text) : text };
  };
  return { ctx, call };
}

let b: Awaited<ReturnType<typeof instance>>;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: MAIN }] });
  // The test client reaches A from 127.0.0.1, a trusted proxy: X-Forwarded-For names each call's client.
  a = await startTestServer({ rateLimits: true, env: { TRUSTED_PROXIES: "127.0.0.1,::1", TWILIO_API_BASE: twilio.url } });
  a.ctx.now = () => clock;
  a.ctx.argon2Cost = { memoryCost: 8, timeCost: 1 };
  b = await instance();
});
afterAll(async () => {
  for (const ctx of opened) ctx.db.$client.close();
  await a.stop();
  await twilio.stop();
});
beforeEach(async () => {
  // Each test counts from nothing (the windows are one table, whichever app clears them).
  await rateLimiterFor(a.ctx).reset();
  clock += 60 * 60_000;
});

const signInOnA = (email: string, password: string, from: string) =>
  a.api("/api/auth/login", { body: { email, password }, headers: { "x-forwarded-for": from } });
const signInOnB = (email: string, password: string, from: string) => b.call("/api/auth/login", { body: { email, password }, from });

describe("rate limits", () => {
  test("a client's sign-ins count on both: 6 on A and 4 on B, the 11th (on B) waits 60 s, and so does a process started later", async () => {
    const from = "203.0.113.7";
    for (let i = 0; i < 6; i++) expect((await signInOnA(`nobody-a${i}@example.com`, "wrong", from)).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await signInOnB(`nobody-b${i}@example.com`, "wrong", from)).status).toBe(401);
    const refused = await signInOnB("nobody-b4@example.com", "wrong", from);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe("Too many requests. Please try again in 60 seconds.");
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await signInOnA("nobody-a6@example.com", "wrong", from)).status).toBe(429);
    // Another client is not affected.
    expect((await signInOnB("nobody-b5@example.com", "wrong", "203.0.113.8")).status).toBe(401);

    const c = await instance();
    clock += 59_000;
    const later = await c.call("/api/auth/login", { body: { email: "nobody-c@example.com", password: "wrong" }, from });
    expect(later.status).toBe(429);
    expect(later.headers.get("retry-after")).toBe("1");
    clock += 1_000;
    expect((await c.call("/api/auth/login", { body: { email: "nobody-c@example.com", password: "wrong" }, from })).status).toBe(401);
  });

  test("an API key's 100 calls in 10 s are counted across processes: 60 on A, 40 on B, the 101st refused on A", async () => {
    const account = await a.confirm(await a.signUpVerified());
    await grantLicense(a.ctx, account.user.id, "professional", 30);
    const created = await a.api("/api/api-keys", { method: "POST", token: account.token, body: { name: "Shared", permissions: ["contacts:read"] } });
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    let last = 0;
    for (let i = 0; i < 60; i++) last = (await a.api("/api/v1/contacts", { token: key })).status;
    expect(last).toBe(200);
    const onB = await b.call("/api/v1/contacts", { token: key });
    expect(onB.headers.get("ratelimit")).toBe('"default";r=39;t=10');
    for (let i = 0; i < 39; i++) last = (await b.call("/api/v1/contacts", { token: key })).status;
    expect(last).toBe(200);
    const refused = await a.api("/api/v1/contacts", { token: key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit")).toBe('"default";r=0;t=10');
    expect(refused.body.message).toBe("This API key made more than 100 requests in 10 seconds. Retry after 10 s.");
    clock += 10_000;
    expect((await b.call("/api/v1/contacts", { token: key })).headers.get("ratelimit")).toBe('"default";r=99;t=10');
  });
});

describe("sign-in", () => {
  test("an email's lockout counts on both: 2 wrong passwords on A and 2 on B, the 5th (on A) blocks the address on B too", async () => {
    const account = await a.signUpVerified();
    const from = "198.51.100.20";
    for (const signIn of [signInOnA, signInOnA, signInOnB, signInOnB]) expect((await signIn(account.email, "wrong", from)).status).toBe(401);
    const blocked = await signInOnA(account.email, "wrong", from);
    expect(blocked.status).toBe(423);
    expect(blocked.body.message).toBe("Account locked: too many failed sign-in attempts. Try again in 1 minute.");
    const onB = await signInOnB(account.email, account.password, from);
    expect(onB.status).toBe(423);
    expect(onB.headers.get("retry-after")).toBe("60");
    // The owner from elsewhere is not affected, on either.
    expect((await signInOnB(account.email, account.password, "198.51.100.21")).status).toBe(200);
    clock += 60_000;
    expect((await signInOnB(account.email, account.password, from)).status).toBe(200);
  });

  const failuresOf = (email: string) =>
    a.ctx.db.$client
      .query(`SELECT address, failures, blocked_until AS blockedUntil FROM sign_in_failures WHERE email = ? ORDER BY address`)
      .all(email.toLowerCase());

  test("two wrong passwords at once, one on A and one on B, are both counted, for the address and for the email", async () => {
    const account = await a.signUpVerified();
    const from = "198.51.100.30";
    const answers = await Promise.all([signInOnA(account.email, "wrong", from), signInOnB(account.email, "wrong", from)]);
    expect(answers.map((r) => r.status)).toEqual([401, 401]);
    expect(failuresOf(account.email)).toEqual([
      { address: "", failures: 2, blockedUntil: 0 },
      { address: from, failures: 2, blockedUntil: 0 },
    ]);
  });

  test("five at once (three on A, two on B): four 401 and the one counted fifth 423; the address blocked 60 s on both", async () => {
    const account = await a.signUpVerified();
    const from = "198.51.100.31";
    const answers = await Promise.all([signInOnA, signInOnB, signInOnA, signInOnB, signInOnA].map((signIn) => signIn(account.email, "wrong", from)));
    expect(answers.map((r) => r.status).sort()).toEqual([401, 401, 401, 401, 423]);
    expect(failuresOf(account.email)).toEqual([
      { address: "", failures: 5, blockedUntil: 0 },
      { address: from, failures: 5, blockedUntil: clock + 60_000 },
    ]);
    const onB = await signInOnB(account.email, account.password, from);
    expect(onB.status).toBe(423);
    expect(onB.headers.get("retry-after")).toBe("60");
    // The refused attempt counted nothing.
    expect(failuresOf(account.email)[1]).toEqual({ address: from, failures: 5, blockedUntil: clock + 60_000 });
  });

  test("a right password on B while a wrong one is counted on A takes back only its own count", async () => {
    const account = await a.signUpVerified();
    const from = "198.51.100.32";
    expect((await signInOnA(account.email, "wrong", from)).status).toBe(401);
    const answers = await Promise.all([signInOnA(account.email, "wrong", "198.51.100.33"), signInOnB(account.email, account.password, from)]);
    expect(answers.map((r) => r.status)).toEqual([401, 200]);
    // The right password cleared its address's row; the email's keeps the two wrong ones (three counted, its own
    // taken back).
    expect(failuresOf(account.email)).toEqual([
      { address: "", failures: 2, blockedUntil: 0 },
      { address: "198.51.100.33", failures: 1, blockedUntil: 0 },
    ]);
  });

  test("a sign-up made on A is finished on B with its emailed code; its session works on A; the token is spent on both", async () => {
    const email = a.newEmail("shared");
    const started = await a.api("/api/auth/register", { body: { email, password: "secret123", confirmPassword: "secret123", firstName: "Ann", lastName: "Lee" } });
    expect(started.status).toBe(201);
    const code = await a.latestCode(email);
    const finished = await b.call("/api/auth/register/verify", { body: { signupToken: started.body.signupToken, code } });
    expect(finished.status).toBe(200);
    expect(finished.body.user.email).toBe(email);
    const me = await a.api("/api/auth/user", { token: finished.body.token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
    const again = await a.api("/api/auth/register/verify", { body: { signupToken: started.body.signupToken, code } });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("Your sign-up has expired. Please sign in to finish it.");
  });

  test("a TOTP code accepted by B is refused by A: each time step works once in the installation", async () => {
    const account: Account = await a.confirm(await a.signUpVerified());
    const setup = await a.api("/api/auth/2fa/setup", { method: "POST", token: account.token });
    expect(setup.status).toBe(200);
    const totp = () => generateSync({ secret: setup.body.secret, epoch: Math.floor(clock / 1000) });
    expect((await a.api("/api/auth/2fa/enable", { body: { token: totp() }, token: account.token })).status).toBe(200);
    clock += 30_000;
    const code = totp();
    expect(await verifySecondFactor(b.ctx, account.user.id, code)).toBe(true);
    expect(await verifySecondFactor(a.ctx, account.user.id, code)).toBe(false);
    expect(await verifySecondFactor(b.ctx, account.user.id, code)).toBe(false);
    clock += 30_000;
    expect(await verifySecondFactor(a.ctx, account.user.id, totp())).toBe(true);
  });
});

describe("codes by email", () => {
  /** The mails to `to` once delivery has settled: the count stays put for 300 ms. */
  async function mailsTo(to: string, atLeast: number) {
    const deadline = Date.now() + 10_000;
    while (a.emailsTo(to).length < atLeast && Date.now() < deadline) await Bun.sleep(20);
    await Bun.sleep(300);
    return a.emailsTo(to).map((m) => m.subject);
  }
  const codeMail = "Your smsdesk verification code";
  const waitMessage = "Please wait 60 seconds before requesting another code";

  test("two resends of a sign-up's code at once, one on A and one on B, after the cooldown: one 200 and one 429, one more code mailed", async () => {
    const email = a.newEmail("resend");
    const started = await a.api("/api/auth/register", { body: { email, password: "secret123", confirmPassword: "secret123", firstName: "Ann", lastName: "Lee" } });
    expect(started.status).toBe(201);
    expect(await mailsTo(email, 1)).toHaveLength(1);
    clock += 60_000;
    const body = { signupToken: started.body.signupToken };
    const answers = await Promise.all([a.api("/api/auth/register/resend", { body }), b.call("/api/auth/register/resend", { body })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 429]);
    expect(answers.find((r) => r.status === 429)!.body.message).toBe(waitMessage);
    expect(await mailsTo(email, 2)).toHaveLength(2);
    const row = a.ctx.db.$client
      .query(`SELECT v.sends_in_window AS sends, v.sent_at AS sentAt FROM email_verifications v JOIN users u ON u.id = v.user_id WHERE u.email = ?`)
      .get(email);
    expect(row).toEqual({ sends: 2, sentAt: clock });
  });

  test("the same for an address that has an account (its owner's notice): one 200 and one 429, one more notice", async () => {
    const owner = await a.signUpVerified();
    const before = a.emailsTo(owner.email).length;
    const started = await a.api("/api/auth/register", { body: { email: owner.email, password: "secret123", confirmPassword: "secret123", firstName: "Ann", lastName: "Lee" } });
    expect(started.status).toBe(201);
    expect(await mailsTo(owner.email, before + 1)).toHaveLength(before + 1);
    clock += 60_000;
    const body = { signupToken: started.body.signupToken };
    const answers = await Promise.all([b.call("/api/auth/register/resend", { body }), a.api("/api/auth/register/resend", { body })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 429]);
    expect(answers.find((r) => r.status === 429)!.body.message).toBe(waitMessage);
    expect(await mailsTo(owner.email, before + 2)).toHaveLength(before + 2);
    expect(a.ctx.db.$client.query(`SELECT sends, sent_at AS sentAt FROM pending_sign_ups WHERE email = ?`).all(owner.email)).toEqual([{ sends: 2, sentAt: clock }]);
  });

  test("a signed-in account's two requests for a code at once, on A and on B: one 200 and one 429, one code mailed", async () => {
    const account = await a.signUp();
    const before = a.emailsTo(account.email).filter((m) => m.subject.startsWith(codeMail)).length;
    expect(before).toBe(1);
    clock += 60_000;
    const answers = await Promise.all([
      a.api("/api/auth/verify/email/send", { method: "POST", token: account.token }),
      b.call("/api/auth/verify/email/send", { method: "POST", token: account.token }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 429]);
    expect(answers.find((r) => r.status === 429)!.body.message).toBe(waitMessage);
    await mailsTo(account.email, 2);
    expect(a.emailsTo(account.email).filter((m) => m.subject.startsWith(codeMail))).toHaveLength(2);
  });
});

describe("licenses", () => {
  const DAY = 86_400_000;
  const licensesOf = (userId: string) =>
    a.ctx.db.$client
      .query(`SELECT source, plan_id AS plan, starts_at AS startsAt, expires_at AS expiresAt FROM licenses WHERE user_id = ? ORDER BY starts_at, source`)
      .all(userId);

  test("two codes of one plan redeemed at once, one on A and one on B: the second starts where the first ends", async () => {
    const admin = await createOrPromoteAdmin(a.ctx, a.newEmail("admin"), "admin-password");
    const { codes } = await generateLicenseCodes(a.ctx, admin.id, "professional", 30, 2);
    const account = await a.signUpVerified();
    const answers = await Promise.all([
      a.api("/api/license/redeem", { body: { licenseCode: codes[0] }, token: account.token }),
      b.call("/api/license/redeem", { body: { licenseCode: codes[1] }, token: account.token }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(licensesOf(account.user.id)).toEqual([
      { source: "code", plan: "professional", startsAt: clock, expiresAt: clock + 30 * DAY },
      { source: "trial", plan: "starter", startsAt: clock, expiresAt: clock + 14 * DAY },
      { source: "code", plan: "professional", startsAt: clock + 30 * DAY, expiresAt: clock + 60 * DAY },
    ]);
  });

  test("an account from before licenses read on A and on B at once gets one trial; sign-up's trial made twice is one", async () => {
    const account = await a.signUpVerified();
    a.ctx.db.$client.query(`DELETE FROM licenses WHERE user_id = ?`).run(account.user.id);
    const [onA, onB] = await Promise.all([a.api("/api/license/current", { token: account.token }), b.call("/api/license/current", { token: account.token })]);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    expect(onB.body).toEqual(onA.body);
    expect(licensesOf(account.user.id)).toHaveLength(1);
    const created = (licensesOf(account.user.id)[0] as { startsAt: number }).startsAt;
    // Sign-up's trial made again on A and on B (two processes) leaves the one trial as it was.
    clock += DAY;
    await Promise.all([licenseAtSignUp(a.ctx, account.user.id, null), licenseAtSignUp(b.ctx, account.user.id, null)]);
    expect(licensesOf(account.user.id)).toEqual([{ source: "trial", plan: "starter", startsAt: created, expiresAt: created + 14 * DAY }]);
    // startTrial on either answers that one trial.
    const [first, second] = await Promise.all([startTrial(a.ctx, account.user.id), startTrial(b.ctx, account.user.id, new Date(clock + DAY))]);
    expect([first.id, second.id, first.startsAt.getTime()]).toEqual([second.id, first.id, created]);
    expect(licensesOf(account.user.id)).toHaveLength(1);
  });
});

describe("provider webhooks", () => {
  test("an inbound text posted to A and replayed to B is stored once", async () => {
    const account = await a.signUpVerified();
    const provider = await a.api("/api/sms-providers", {
      method: "POST",
      token: account.token,
      body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
    });
    expect(provider.status).toBe(201);
    expect((await a.api("/api/phone-numbers", { method: "POST", token: account.token, body: { providerId: provider.body.id, phoneNumber: MAIN } })).status).toBe(201);
    const path = `/api/webhooks/twilio/sms/${account.user.id}`;
    const sid = `SM${"7".repeat(32)}`;
    const params = twilioInboundParams({ accountSid: twilio.accountSid, from: "+14155550177", to: MAIN, body: "Hello from one", messageSid: sid });
    const signed = signedTwilioWebhook(twilio.authToken, `${a.ctx.config.publicUrl}${path}`, params);
    expect((await fetch(`${a.url}${path}`, { method: "POST", body: signed.body, headers: signed.headers })).status).toBe(200);
    expect((await b.call(path, { raw: signed })).status).toBe(200);
    const stored = a.ctx.db.$client
      .query(`SELECT direction, content FROM messages WHERE user_id = ? AND provider_message_id = ?`)
      .all(account.user.id, sid);
    expect(stored).toEqual([{ direction: "inbound", content: "Hello from one" }]);
  });
});
