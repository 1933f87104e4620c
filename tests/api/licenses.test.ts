import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { contacts, licenseCodes, licenses, messages, plans, users } from "../../db/schema";
import { generateLicenseCodes } from "../../src/admin/license-codes";
import { HttpError } from "../../src/http/errors";
import { currentLicense, normalizeLicenseCode, startTrial } from "../../src/licenses/licenses";
import { assertWithinLimit, startOfMonthIn, usageFor } from "../../src/licenses/limits";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { insertUser } from "../../src/users/queries";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
let adminId: string;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  adminId = (await createOrPromoteAdmin(t.ctx, t.newEmail("admin"), "admin-password")).id;
});
afterAll(() => t?.stop());

/** Fresh codes straight from the same function the admin portal calls. */
const makeCodes = async (planId: string, days: number, n = 1) => (await generateLicenseCodes(t.ctx, adminId, planId, days, n)).codes;

function addContacts(userId: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({ id: crypto.randomUUID(), userId, phone: `+1555${String(Date.now() % 1e5).padStart(5, "0")}${i}-${crypto.randomUUID().slice(0, 6)}` }));
  for (let i = 0; i < rows.length; i += 500) t.ctx.db.insert(contacts).values(rows.slice(i, i + 500)).run();
}

function addOutbound(userId: string, n: number, at = new Date()) {
  const rows = Array.from({ length: n }, () => ({ id: crypto.randomUUID(), userId, phone: "+15550100", content: "hi", direction: "outbound" as const, createdAt: at }));
  for (let i = 0; i < rows.length; i += 500) t.ctx.db.insert(messages).values(rows.slice(i, i + 500)).run();
}

async function expectHttp(fn: () => Promise<unknown>, status: number): Promise<HttpError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(status);
    return err as HttpError;
  }
  throw new Error("expected an HttpError");
}

describe("plans", () => {
  test("GET /api/license/plans lists the three plans of the spec, prices in cents, -1 for unlimited", async () => {
    const res = await t.api("/api/license/plans");
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.data.map((p: any) => [p.id, p]));
    expect(res.body.data.map((p: any) => p.name)).toEqual(["Starter", "Professional", "Enterprise"]);
    expect(byId.starter).toMatchObject({ price: 5900, monthlyContacts: 1000, monthlyMessages: 5000, phoneNumbers: 1 });
    expect(byId.professional).toMatchObject({ price: 15900, monthlyContacts: 10000, monthlyMessages: 25000, phoneNumbers: 3 });
    expect(byId.enterprise).toMatchObject({ price: 24900, monthlyContacts: -1, monthlyMessages: 100000, phoneNumbers: 10 });
    expect(byId.professional.features).toContain("api_access");
  });
});

describe("trial", () => {
  test("a new account gets the 14-day Starter trial", async () => {
    const a = await t.signUpVerified();
    expect(a.body.licenseRedeemed).toBe(false);
    expect(a.body.licensePlan).toBeNull();
    const res = await t.api("/api/license/current", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.data.source).toBe("trial");
    expect(res.body.data.plan).toMatchObject({ id: "starter", name: "Starter", monthlyContacts: 1000 });
    const length = new Date(res.body.data.expiresAt).getTime() - new Date(res.body.data.startsAt).getTime();
    expect(length).toBe(14 * DAY);
  });

  test("license calls need a session (401), plans do not", async () => {
    for (const path of ["/api/license/current", "/api/license/usage"]) expect((await t.api(path)).status).toBe(401);
    expect((await t.api("/api/license/redeem", { body: { licenseCode: "X" } })).status).toBe(401);
  });

  test("an account from before licenses gets its trial from its creation date; one older than 14 days has none", async () => {
    const recent = await insertUser(t.ctx, { email: t.newEmail("old"), passwordHash: null, firstName: "", lastName: "", createdAt: new Date(Date.now() - 3 * DAY) });
    const cur = (await currentLicense(t.ctx, recent.id))!;
    expect(cur.source).toBe("trial");
    expect(cur.expiresAt!.getTime()).toBe(recent.createdAt.getTime() + 14 * DAY);
    const old = await insertUser(t.ctx, { email: t.newEmail("older"), passwordHash: null, firstName: "", lastName: "", createdAt: new Date(Date.now() - 30 * DAY) });
    expect(await currentLicense(t.ctx, old.id)).toBeNull();
    // Only one trial row is created however often it is read.
    await currentLicense(t.ctx, old.id);
    expect(t.ctx.db.select().from(licenses).where(eq(licenses.userId, old.id)).all()).toHaveLength(1);
  });

  test("an administrator without a license is unlimited", async () => {
    const usage = await usageFor(t.ctx, adminId);
    expect(usage.contacts).toMatchObject({ unlimited: true, limit: -1 });
    expect(usage.messages).toMatchObject({ unlimited: true, limit: -1 });
    expect(await assertWithinLimit(t.ctx, adminId, "contacts", 1_000_000)).toEqual({ notice: null });
  });

  test("when the trial has ended: current is null, usage shows zero limits, and adding or sending is refused (402)", async () => {
    const a = await t.signUpVerified();
    t.ctx.db.update(licenses).set({ startsAt: new Date(Date.now() - 20 * DAY), expiresAt: new Date(Date.now() - 6 * DAY) }).where(eq(licenses.userId, a.user.id)).run();
    expect((await t.api("/api/license/current", { token: a.token })).body).toEqual({ data: null });
    const usage = await t.api("/api/license/usage", { token: a.token });
    expect(usage.body.data.contacts).toMatchObject({ used: 0, limit: 0, unlimited: false });
    const err = await expectHttp(() => assertWithinLimit(t.ctx, a.user.id, "contacts", 1), 402);
    expect(err.message).toBe(
      "No active license found. Your trial or plan has ended; redeem a license code or upgrade your plan to continue.",
    );
    await expectHttp(() => assertWithinLimit(t.ctx, a.user.id, "messages", 1), 402);
  });
});

describe("redeem", () => {
  test("a code typed lower-case with dashes and spaces is redeemed; the plan becomes current", async () => {
    const a = await t.signUpVerified();
    const [code] = await makeCodes("professional", 30);
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
    const typed = `  ${code!.toLowerCase().replace("-", " - ")} `;
    const res = await t.api("/api/license/redeem", { body: { licenseCode: typed }, token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.planName).toBe("Professional");
    const expires = new Date(res.body.data.expiresAt).getTime();
    expect(Math.abs(expires - (Date.now() + 30 * DAY))).toBeLessThan(60_000);

    const cur = await t.api("/api/license/current", { token: a.token });
    expect(cur.body.data).toMatchObject({ source: "code", plan: { id: "professional", name: "Professional" }, expiresAt: res.body.data.expiresAt });
    const row = t.ctx.db.select().from(licenseCodes).where(eq(licenseCodes.code, normalizeLicenseCode(code))).get()!;
    expect(row.redeemedBy).toBe(a.user.id);
    expect(row.redeemedAt).toBeInstanceOf(Date);
    const usage = await t.api("/api/license/usage", { token: a.token });
    expect(usage.body.data.contacts).toMatchObject({ used: 0, limit: 10000, unlimited: false });
    expect(usage.body.data.messages).toMatchObject({ used: 0, limit: 25000, unlimited: false });
  });

  test("empty, unknown, revoked and reused codes answer 400 with a clear message", async () => {
    const a = await t.signUpVerified();
    const b = await t.signUpVerified();
    const redeem = (licenseCode: unknown, token = a.token) => t.api("/api/license/redeem", { body: { licenseCode }, token });

    for (const empty of ["", "   ", " - - ", null]) {
      const res = await redeem(empty);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Please enter a valid license code");
    }
    expect((await t.api("/api/license/redeem", { body: {}, token: a.token })).body.message).toBe("Please enter a valid license code");

    const unknown = await redeem("AAAA-BBBB-CCCC-DDDD");
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("This license code is not valid. Please check the code and try again.");
    expect((await redeem("ÄÖÜ!")).status).toBe(400);

    const [revoked] = await makeCodes("starter", 30);
    const rv = await t.api(`/api/admin/license-codes/${revoked}/revoke`, { method: "POST", token: (await t.confirm(await t.login(adminEmail(), "admin-password"))).token });
    expect(rv.status).toBe(200);
    const r = await redeem(revoked);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("This license code has been revoked and can no longer be redeemed.");

    const [once] = await makeCodes("starter", 30);
    expect((await redeem(once)).status).toBe(200);
    for (const token of [a.token, b.token]) {
      const again = await redeem(once, token);
      expect(again.status).toBe(400);
      expect(again.body.message).toBe("This license code has already been redeemed.");
    }
    // b still has only the trial.
    expect((await t.api("/api/license/current", { token: b.token })).body.data.source).toBe("trial");
  });

  test("two users racing for one code: exactly one gets it", async () => {
    const [code] = await makeCodes("enterprise", 10);
    const accounts = await Promise.all([t.signUpVerified(), t.signUpVerified(), t.signUpVerified()]);
    const results = await Promise.all(accounts.map((a) => t.api("/api/license/redeem", { body: { licenseCode: code }, token: a.token })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(t.ctx.db.select().from(licenses).where(eq(licenses.code, normalizeLicenseCode(code))).all()).toHaveLength(1);
  });

  test("a second code of the same plan extends from the end of the first; another plan starts now and wins", async () => {
    const a = await t.signUpVerified();
    const [first, second] = await makeCodes("starter", 30, 2);
    const r1 = await t.api("/api/license/redeem", { body: { licenseCode: first }, token: a.token });
    const r2 = await t.api("/api/license/redeem", { body: { licenseCode: second }, token: a.token });
    expect(new Date(r2.body.data.expiresAt).getTime() - new Date(r1.body.data.expiresAt).getTime()).toBe(30 * DAY);
    // Still the first period in force now.
    const cur = await t.api("/api/license/current", { token: a.token });
    expect(cur.body.data).toMatchObject({ source: "code", plan: { id: "starter" }, expiresAt: r1.body.data.expiresAt });

    const [pro] = await makeCodes("professional", 7);
    const r3 = await t.api("/api/license/redeem", { body: { licenseCode: pro }, token: a.token });
    expect(Math.abs(new Date(r3.body.data.expiresAt).getTime() - (Date.now() + 7 * DAY))).toBeLessThan(60_000);
    expect((await t.api("/api/license/current", { token: a.token })).body.data.plan.id).toBe("professional");
  });

  test("a trial is not extended by a Starter code: the code's period starts now", async () => {
    const a = await t.signUpVerified();
    const [code] = await makeCodes("starter", 30);
    const r = await t.api("/api/license/redeem", { body: { licenseCode: code }, token: a.token });
    expect(Math.abs(new Date(r.body.data.expiresAt).getTime() - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
  });
});

describe("redeem at sign-up", () => {
  /** Signs up with the code, then answers the emailed code's step, which says what the license code did. */
  const register = async (email: string, licenseCode?: string) => {
    const started = await t.api("/api/auth/register", {
      body: { email, password: "secret123", confirmPassword: "secret123", firstName: "L", lastName: "C", licenseCode },
    });
    expect(started.status).toBe(201);
    return t.api("/api/auth/register/verify", { body: { signupToken: started.body.signupToken, code: await t.latestCode(email) } });
  };

  test("a valid code (typed lower-case with dashes) is redeemed: licenseRedeemed true and the plan name", async () => {
    const [code] = await makeCodes("professional", 90);
    const email = t.newEmail("signup");
    const res = await register(email, code!.toLowerCase());
    expect(res.status).toBe(200);
    expect(res.body.licenseRedeemed).toBe(true);
    expect(res.body.licensePlan).toBe("Professional");
    const user = t.ctx.db.select().from(users).where(eq(users.email, email)).get()!;
    expect((await currentLicense(t.ctx, user.id))!.plan.id).toBe("professional");
    // The trial is there too, behind the paid plan.
    expect(t.ctx.db.select().from(licenses).where(eq(licenses.userId, user.id)).all().map((l) => l.source).sort()).toEqual(["code", "trial"]);
  });

  test("an invalid or used code does not block the account: licenseRedeemed false with licenseError", async () => {
    const bad = await register(t.newEmail("signup"), "ZZZZ-ZZZZ-ZZZZ-ZZZZ");
    expect(bad.status).toBe(200);
    expect(bad.body.token).toBeString();
    expect(bad.body).toMatchObject({ licenseRedeemed: false, licensePlan: null, licenseError: "This license code is not valid. Please check the code and try again." });

    const [code] = await makeCodes("starter", 30);
    expect((await register(t.newEmail("signup"), code)).body.licenseRedeemed).toBe(true);
    const reused = await register(t.newEmail("signup"), code);
    expect(reused.status).toBe(200);
    expect(reused.body).toMatchObject({ licenseRedeemed: false, licenseError: "This license code has already been redeemed." });

    const blank = await register(t.newEmail("signup"), "  ");
    expect(blank.status).toBe(200);
    expect(blank.body.licenseRedeemed).toBe(false);
    expect(blank.body.licenseError).toBeUndefined();
  });
});

describe("limits", () => {
  test("contacts: 402 with the plan's numbers past the limit, the 80% notice on the way", async () => {
    const a = await t.signUpVerified();
    addContacts(a.user.id, 700);
    expect(await assertWithinLimit(t.ctx, a.user.id, "contacts", 50)).toEqual({ notice: null });
    const at80 = await assertWithinLimit(t.ctx, a.user.id, "contacts", 100);
    expect(at80.notice).toBe(
      "You have used 80% of your Starter plan's 1,000 contacts (800). Upgrade your plan or redeem a license code before you reach the limit.",
    );
    addContacts(a.user.id, 290);
    const err = await expectHttp(() => assertWithinLimit(t.ctx, a.user.id, "contacts", 20), 402);
    expect(err.message).toBe("Your Starter plan allows 1,000 contacts; you have 990 and tried to add 20. Upgrade your plan or redeem a license code.");
    expect(err.extra).toMatchObject({ kind: "contacts", used: 990, limit: 1000 });
    // Exactly reaching the limit is allowed.
    expect((await assertWithinLimit(t.ctx, a.user.id, "contacts", 10)).notice).toContain("100%");

    const usage = await t.api("/api/license/usage", { token: a.token });
    expect(usage.body.data.contacts).toMatchObject({ used: 990, limit: 1000, unlimited: false });
    expect(usage.body.data.contacts.notice).toContain("99%");
    expect(usage.body.data.messages).toMatchObject({ used: 0, limit: 5000, unlimited: false, notice: null });
  });

  test("messages: outbound this month count, inbound and last month's do not", async () => {
    const a = await t.signUpVerified();
    addOutbound(a.user.id, 4000);
    addOutbound(a.user.id, 3000, new Date(Date.now() - 40 * DAY));
    t.ctx.db.insert(messages).values({ id: crypto.randomUUID(), userId: a.user.id, phone: "+1", content: "in", direction: "inbound" }).run();
    const usage = await usageFor(t.ctx, a.user.id);
    expect(usage.messages.used).toBe(4000);
    expect(usage.messages.notice).toContain("80%");
    expect((await assertWithinLimit(t.ctx, a.user.id, "messages", 1000)).notice).toContain("100%");
    const err = await expectHttp(() => assertWithinLimit(t.ctx, a.user.id, "messages", 1001), 402);
    expect(err.message).toBe(
      "Your Starter plan allows 5,000 SMS per month; you have sent 4,000 this month and tried to send 1,001 (a text longer than one SMS counts each part). Upgrade your plan or redeem a license code.",
    );
  });

  test("an unlimited plan never blocks contacts; a plan edited by an admin applies at once", async () => {
    const a = await t.signUpVerified();
    const [code] = await makeCodes("enterprise", 30);
    await t.api("/api/license/redeem", { body: { licenseCode: code }, token: a.token });
    addContacts(a.user.id, 1200);
    expect(await assertWithinLimit(t.ctx, a.user.id, "contacts", 100_000)).toEqual({ notice: null });
    const usage = await t.api("/api/license/usage", { token: a.token });
    expect(usage.body.data.contacts).toMatchObject({ used: 1200, limit: -1, unlimited: true });

    const b = await t.signUpVerified();
    addContacts(b.user.id, 900);
    const admin = await t.confirm(await t.login(adminEmail(), "admin-password"));
    const put = await t.api("/api/admin/plans/starter", { method: "PUT", body: { monthlyContacts: 2000 }, token: admin.token });
    expect(put.status).toBe(200);
    try {
      expect(await assertWithinLimit(t.ctx, b.user.id, "contacts", 200)).toEqual({ notice: null });
    } finally {
      t.ctx.db.update(plans).set({ monthlyContacts: 1000 }).where(eq(plans.id, "starter")).run();
    }
  });

  test("the month starts at midnight on the 1st in the user's time zone", () => {
    const now = Date.UTC(2026, 2, 1, 3, 0, 0); // 1 March 03:00 UTC = 28 Feb 22:00 in New York
    expect(startOfMonthIn("America/New_York", now).toISOString()).toBe("2026-02-01T05:00:00.000Z");
    expect(startOfMonthIn("Europe/Paris", now).toISOString()).toBe("2026-02-28T23:00:00.000Z");
    expect(startOfMonthIn("UTC", now).toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(startOfMonthIn("Not/AZone", now).toISOString()).toBe("2026-03-01T00:00:00.000Z");
    // Across a DST change: 1 April in New York is EDT (UTC-4).
    expect(startOfMonthIn("America/New_York", Date.UTC(2026, 3, 15)).toISOString()).toBe("2026-04-01T04:00:00.000Z");
  });

  test("startTrial is exported for sign-up and adds a Starter trial", async () => {
    const u = await insertUser(t.ctx, { email: t.newEmail("trial"), passwordHash: null, firstName: "", lastName: "" });
    const row = await startTrial(t.ctx, u.id);
    expect(row).toMatchObject({ planId: "starter", source: "trial" });
  });
});

let _adminEmail: string | undefined;
function adminEmail() {
  if (!_adminEmail) _adminEmail = t.ctx.db.select().from(users).where(eq(users.id, adminId)).get()!.email;
  return _adminEmail;
}

describe("one trial per account (migration 0077)", () => {
  test("a second trial an earlier race made is dropped, the first kept, and a third cannot be added", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { databaseBefore } = await import("../support/old-database");
    const { migrationSql } = await import("../../db/migrations/embedded");
    const dir = mkdtempSync(join(tmpdir(), "smsdesk-0077-"));
    const old = databaseBefore(dir, "0077_one_trial");
    try {
      old.query("INSERT INTO users (id, email) VALUES ('u-1', 'one@example.com'), ('u-2', 'two@example.com')").run();
      const add = old.query("INSERT INTO licenses (id, user_id, plan_id, source, starts_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)");
      add.run("t-b", "u-1", "starter", "trial", 1000, 2000);
      add.run("t-a", "u-1", "starter", "trial", 1000, 2000);
      add.run("t-c", "u-1", "starter", "trial", 900, 1900);
      add.run("c-1", "u-1", "professional", "code", 1000, 5000);
      add.run("t-d", "u-2", "starter", "trial", 1000, 2000);
      for (const statement of migrationSql["0077_one_trial"]!.split("--> statement-breakpoint")) if (statement.trim()) old.exec(statement);
      expect(old.query("SELECT id FROM licenses ORDER BY id").all()).toEqual([{ id: "c-1" }, { id: "t-c" }, { id: "t-d" }]);
      expect(() => add.run("t-e", "u-2", "starter", "trial", 3000, 4000)).toThrow("UNIQUE constraint failed");
      add.run("c-2", "u-2", "professional", "code", 3000, 4000);
    } finally {
      old.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
