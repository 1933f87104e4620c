import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { generate } from "otplib";
import { errorReports, licenseCodes, supportMessages, userSecurity, users } from "../../db/schema";
import pkg from "../../package.json";
import { CODE_ALPHABET, newLicenseCode } from "../../src/admin/license-codes";
import { enableTwoFactor, isTwoFactorEnabled, beginTwoFactorSetup, pendingSecret } from "../../src/auth/two-factor";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { findUserById } from "../../src/users/queries";
import { setCookie, startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let admin: Account;
let user: Account;
const ADMIN_PASSWORD = "admin-password-1";

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  const email = t.newEmail("admin");
  await createOrPromoteAdmin(t.ctx, email, ADMIN_PASSWORD);
  admin = await t.confirm(await t.login(email, ADMIN_PASSWORD));
  user = await t.signUpVerified();
});
afterAll(() => t?.stop());

const adminLogin = (body: Record<string, unknown>) => t.api("/api/admin/auth/login", { body });

/** Every admin call but the login and the public error report. */
const ADMIN_CALLS: [method: string, path: string, body?: unknown][] = [
  ["GET", "/api/admin/users"],
  ["GET", "/api/admin/users?search=a&page=2&pageSize=5"],
  ["POST", "/api/admin/users/USER/disable"],
  ["POST", "/api/admin/users/USER/enable"],
  ["POST", "/api/admin/users/USER/make-admin"],
  ["POST", "/api/admin/users/USER/remove-admin"],
  ["POST", "/api/admin/users/USER/reset-2fa"],
  ["POST", "/api/admin/users/USER/verify-email"],
  ["POST", "/api/admin/users/USER/send-password-reset"],
  ["POST", "/api/admin/users/USER/license", { planId: "enterprise", durationDays: 30 }],
  ["GET", "/api/admin/license-codes"],
  ["POST", "/api/admin/license-codes", { planId: "enterprise", durationDays: 365, count: 5 }],
  ["POST", "/api/admin/license-codes/AAAA-BBBB-CCCC-DDDD/revoke"],
  ["GET", "/api/admin/plans"],
  ["PUT", "/api/admin/plans/starter", { monthlyContacts: -1, monthlyMessages: -1 }],
  ["GET", "/api/admin/error-reports"],
  ["GET", "/api/admin/contact-messages"],
  ["POST", "/api/admin/contact-messages/ID/handled"],
  ["GET", "/api/admin/health"],
];

describe("every admin call is closed to users", () => {
  // Every row gets three values: with fewer, bun would take the third parameter for a done callback.
  const rows = ADMIN_CALLS.map(([m, p, b]) => [m, p, b ?? null] as const);
  test.each(rows)("%s %s: 403 for a user's token, 401 signed out, nothing changes", async (method, path, rawBody) => {
    const body = rawBody ?? undefined;
    const p = path.replace("USER", user.user.id);
    const asUser = await t.api(p, { method, body, token: user.token });
    expect(asUser.status).toBe(403);
    expect(asUser.body.message).toBe("Administrator access required");
    const asCookie = await t.api(p, { method, body, cookie: user.token });
    expect(asCookie.status).toBe(403);
    const signedOut = await t.api(p, { method, body });
    expect(signedOut.status).toBe(401);
    // The user is still a plain, enabled user.
    expect(await findUserById(t.ctx, user.user.id)).toMatchObject({ role: "user", disabled: false });
  });

  test("the same calls answer an administrator: 201 for new codes, 404 for the made-up code and message, else 200", async () => {
    const target = await t.signUpVerified();
    const answers: Record<string, [status: number, message?: string]> = {
      "POST /api/admin/license-codes": [201],
      "POST /api/admin/license-codes/AAAA-BBBB-CCCC-DDDD/revoke": [404, "License code not found"],
      "POST /api/admin/contact-messages/ID/handled": [404, "Message not found"],
    };
    for (const [method, path, body] of ADMIN_CALLS) {
      if (path.includes("plans/starter")) continue; // covered below without changing the shared plan
      const res = await t.api(path.replace("USER", target.user.id), { method, body, token: admin.token });
      const [status, message] = answers[`${method} ${path}`] ?? [200];
      expect({ call: `${method} ${path}`, status: res.status }).toEqual({ call: `${method} ${path}`, status });
      if (message) expect(res.body.message).toBe(message);
    }
  });

  test("the error-report call under /api/admin stays public", async () => {
    expect((await t.api("/api/admin/report-error", { body: { errorReport: { message: "boom" } } })).status).toBe(201);
  });
});

describe("POST /api/admin/auth/login", () => {
  test("an administrator gets a token and the session cookie", async () => {
    const res = await adminLogin({ email: admin.email.toUpperCase(), password: ADMIN_PASSWORD, twoFactorCode: "" });
    expect(res.status).toBe(200);
    expect(res.body.token.split(".")).toHaveLength(3);
    expect(res.body.requires2FA).toBe(false);
    expect(res.body.user.role).toBe("admin");
    expect(setCookie(res.headers, "smsdesk_session")?.value).toBe(res.body.token);
    expect((await t.api("/api/admin/health", { token: res.body.token })).status).toBe(200);
  });

  test("the portal works by the session cookie alone, as the page uses it (issue 27 item 5); changes only from the appliance's origin", async () => {
    const res = await adminLogin({ email: admin.email, password: ADMIN_PASSWORD });
    const cookie = setCookie(res.headers, "smsdesk_session")!.value;
    const listed = await t.api(`/api/admin/users?search=${encodeURIComponent(admin.email)}`, { cookie });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((u: { email: string }) => u.email)).toEqual([admin.email]);
    // A sign-in is no confirmation: the portal's "Confirm it's you", by the cookie, then the change, by the cookie.
    const order = { planId: "professional", durationDays: 30, count: 2 };
    expect((await t.api("/api/admin/license-codes", { body: order, cookie })).body.code).toBe("reauth_required");
    expect((await t.api("/api/auth/confirm", { body: { password: ADMIN_PASSWORD }, cookie })).status).toBe(200);
    const codesBefore = t.ctx.db.select().from(licenseCodes).all().length;
    const crossSite = await t.api("/api/admin/license-codes", { body: order, cookie, headers: { origin: "https://evil.example" } });
    expect([crossSite.status, crossSite.body.code]).toEqual([403, "csrf"]);
    expect(t.ctx.db.select().from(licenseCodes).all().length).toBe(codesBefore);
    const made = await t.api("/api/admin/license-codes", { body: order, cookie });
    expect(made.status).toBe(201);
    expect(t.ctx.db.select().from(licenseCodes).all().length).toBe(codesBefore + 2);
  });

  test("missing fields: 400 'Please enter both email and password'", async () => {
    for (const body of [{}, { email: admin.email }, { password: "x" }, { email: " ", password: "" }]) {
      const res = await adminLogin(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Please enter both email and password");
    }
  });

  test("a wrong password, an unknown email and a normal user's right password all answer 'Invalid admin credentials'", async () => {
    for (const body of [
      { email: admin.email, password: "wrong-password" },
      { email: "nobody@example.com", password: ADMIN_PASSWORD },
      { email: user.email, password: user.password },
    ]) {
      const res = await adminLogin(body);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe("Invalid admin credentials");
      expect(res.body.token).toBeUndefined();
    }
  });

  test("a disabled administrator is refused exactly like a wrong password", async () => {
    const email = t.newEmail("admin-off");
    const a = await createOrPromoteAdmin(t.ctx, email, ADMIN_PASSWORD);
    t.ctx.db.update(users).set({ disabled: true }).where(eq(users.id, a.id)).run();
    const res = await adminLogin({ email, password: ADMIN_PASSWORD });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Invalid admin credentials", code: "unauthorized" });
  });

  test("an administrator with 2FA: requires2FA without a code, a wrong code 401, the right one a token", async () => {
    const email = t.newEmail("admin-2fa");
    const a = await createOrPromoteAdmin(t.ctx, email, ADMIN_PASSWORD);
    await beginTwoFactorSetup(t.ctx, a.id, email);
    const secret = (await pendingSecret(t.ctx, a.id))!;
    expect(await enableTwoFactor(t.ctx, a.id, await generate({ secret }))).not.toBeNull();

    const first = await adminLogin({ email, password: ADMIN_PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body.requires2FA).toBe(true);
    expect(first.body.token).toBeUndefined();
    expect(setCookie(first.headers, "smsdesk_session")).toBeNull();

    const wrong = await adminLogin({ email, password: ADMIN_PASSWORD, twoFactorCode: "000000" === (await generate({ secret })) ? "111111" : "000000" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.token).toBeUndefined();

    // The code alone with a wrong password does nothing.
    const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
    const badPassword = await adminLogin({ email, password: "nope-nope", twoFactorCode: code });
    expect(badPassword.status).toBe(401);
    expect(badPassword.body.message).toBe("Invalid admin credentials");

    const ok = await adminLogin({ email, password: ADMIN_PASSWORD, twoFactorCode: code });
    expect(ok.status).toBe(200);
    expect(ok.body.token).toBeString();
  });

  test("admin, user, disabled admin and unknown emails are blocked alike after 5 wrong passwords: nothing tells them apart", async () => {
    const adminEmail = t.newEmail("admin-lock");
    await createOrPromoteAdmin(t.ctx, adminEmail, ADMIN_PASSWORD);
    const disabledEmail = t.newEmail("admin-lock-off");
    const off = await createOrPromoteAdmin(t.ctx, disabledEmail, ADMIN_PASSWORD);
    t.ctx.db.update(users).set({ disabled: true }).where(eq(users.id, off.id)).run();
    const plain = await t.signUpVerified();
    const answers: unknown[][] = [];
    for (const email of [adminEmail, plain.email, disabledEmail, t.newEmail("nobody")]) {
      const seen: unknown[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await adminLogin({ email, password: "wrong-one" });
        seen.push([res.status, res.body.message, res.headers.get("retry-after")]);
      }
      // Blocked now even with the right password.
      const right = await adminLogin({ email, password: email === plain.email ? plain.password : ADMIN_PASSWORD });
      seen.push([right.status, right.body.message]);
      answers.push(seen);
    }
    const locked = "Account locked: too many failed sign-in attempts. Try again in 1 minute.";
    const expected = [
      ...Array.from({ length: 4 }, () => [401, "Invalid admin credentials", null]),
      [423, locked, "60"],
      [423, locked],
    ];
    for (const seen of answers) expect(seen).toEqual(expected);
    // About 25 argon2 hashes and checks: seconds on two busy cores, well past the default 5 s per test.
  }, 60_000);
});

describe("users", () => {
  test("search by email or name, paged on the server", async () => {
    const tag = `zq${Date.now().toString(36)}`;
    const made: Account[] = [];
    for (let i = 0; i < 3; i++) made.push(await t.signUpVerified(`${tag}-${i}@example.com`));
    t.ctx.db.update(users).set({ firstName: "Penelope", lastName: `Quux${tag}` }).where(eq(users.id, made[0]!.user.id)).run();

    const all = await t.api(`/api/admin/users?search=${tag}&pageSize=2`, { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(all.body.data).toHaveLength(2);
    const second = await t.api(`/api/admin/users?search=${tag}&pageSize=2&page=2`, { token: admin.token });
    expect(second.body.data).toHaveLength(1);
    const seen = [...all.body.data, ...second.body.data].map((u: any) => u.email).sort();
    expect(seen).toEqual(made.map((m) => m.email).sort());

    const byName = await t.api(`/api/admin/users?search=${encodeURIComponent(`penelope quux${tag}`)}`, { token: admin.token });
    expect(byName.body.total).toBe(1);
    expect(byName.body.data[0]).toMatchObject({ email: made[0]!.email, role: "user", disabled: false, twoFactorEnabled: false });
    expect(byName.body.data[0].plan).toMatchObject({ id: "starter", source: "trial" });
    expect(byName.body.data[0].passwordHash).toBeUndefined();

    expect((await t.api(`/api/admin/users?search=${encodeURIComponent("%")}`, { token: admin.token })).body.total).toBe(0);
    expect((await t.api("/api/admin/users?pageSize=1000", { token: admin.token })).status).toBe(400);
    expect((await t.api("/api/admin/users?page=0", { token: admin.token })).status).toBe(400);
  });

  test("disable signs the user out everywhere and blocks sign-in; enable lets them back", async () => {
    const u = await t.signUpVerified();
    const other = await t.login(u.email);
    const res = await t.api(`/api/admin/users/${u.user.id}/disable`, { method: "POST", token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.data.disabled).toBe(true);
    expect((await t.api("/api/auth/user", { token: u.token })).status).toBe(401);
    expect((await t.api("/api/auth/user", { token: other.token })).status).toBe(401);
    expect((await t.api("/api/auth/login", { body: { email: u.email, password: u.password } })).status).toBe(403);

    const back = await t.api(`/api/admin/users/${u.user.id}/enable`, { method: "POST", token: admin.token });
    expect(back.body.data.disabled).toBe(false);
    expect((await t.api("/api/auth/login", { body: { email: u.email, password: u.password } })).status).toBe(200);
    // Old sessions stay revoked.
    expect((await t.api("/api/auth/user", { token: u.token })).status).toBe(401);
  });

  test("make admin and remove admin; an administrator cannot disable or demote themselves", async () => {
    const u = await t.signUpVerified();
    const up = await t.api(`/api/admin/users/${u.user.id}/make-admin`, { method: "POST", token: admin.token });
    expect(up.body.data.role).toBe("admin");
    // A change of role ends the user's sessions: the new role applies from the next sign-in.
    expect((await t.api("/api/admin/health", { token: u.token })).status).toBe(401);
    const asAdmin = (await t.login(u.email)).token;
    expect((await t.api("/api/admin/health", { token: asAdmin })).status).toBe(200);
    const down = await t.api(`/api/admin/users/${u.user.id}/remove-admin`, { method: "POST", token: admin.token });
    expect(down.body.data.role).toBe("user");
    expect((await t.api("/api/admin/health", { token: asAdmin })).status).toBe(401);
    expect((await t.api("/api/admin/health", { token: (await t.login(u.email)).token })).status).toBe(403);

    for (const action of ["disable", "remove-admin"]) {
      const self = await t.api(`/api/admin/users/${admin.user.id}/${action}`, { method: "POST", token: admin.token });
      expect(self.status).toBe(400);
    }
    expect(await findUserById(t.ctx, admin.user.id)).toMatchObject({ role: "admin", disabled: false });
    expect((await t.api("/api/admin/users/no-such-user/disable", { method: "POST", token: admin.token })).status).toBe(404);
    expect((await t.api(`/api/admin/users/${u.user.id}/explode`, { method: "POST", token: admin.token })).status).toBe(400);
  });

  test("reset 2FA turns a user's two-factor off", async () => {
    const u = await t.signUpVerified();
    await beginTwoFactorSetup(t.ctx, u.user.id, u.email);
    const secret = (await pendingSecret(t.ctx, u.user.id))!;
    await enableTwoFactor(t.ctx, u.user.id, await generate({ secret }));
    expect(await isTwoFactorEnabled(t.ctx, u.user.id)).toBe(true);
    const listed = await t.api(`/api/admin/users?search=${encodeURIComponent(u.email)}`, { token: admin.token });
    expect(listed.body.data[0].twoFactorEnabled).toBe(true);
    const res = await t.api(`/api/admin/users/${u.user.id}/reset-2fa`, { method: "POST", token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.data.twoFactorEnabled).toBe(false);
    expect(await isTwoFactorEnabled(t.ctx, u.user.id)).toBe(false);
    expect(t.ctx.db.select().from(userSecurity).where(eq(userSecurity.userId, u.user.id)).get()?.totpSecretEncrypted ?? null).toBeNull();
  });

  test("grant a plan directly", async () => {
    const u = await t.signUpVerified();
    const res = await t.api(`/api/admin/users/${u.user.id}/license`, { body: { planId: "enterprise", durationDays: 30 }, token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.data.planName).toBe("Enterprise");
    const cur = await t.api("/api/license/current", { token: u.token });
    expect(cur.body.data).toMatchObject({ source: "admin", plan: { id: "enterprise" } });
    expect((await t.api(`/api/admin/users/${u.user.id}/license`, { body: { planId: "gold", durationDays: 30 }, token: admin.token })).status).toBe(400);
  });
});

describe("license codes", () => {
  test("codes are 16 characters of the unambiguous alphabet", () => {
    expect(CODE_ALPHABET).toHaveLength(32);
    expect(CODE_ALPHABET).not.toMatch(/[01OI]/);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const c = newLicenseCode();
      expect(c).toMatch(/^[A-HJ-NP-Z2-9]{16}$/);
      seen.add(c);
    }
    expect(seen.size).toBe(2000);
  });

  test("generate N codes for a plan and a duration; stored without dashes; shown with them", async () => {
    const res = await t.api("/api/admin/license-codes", { body: { planId: "professional", durationDays: 90, count: 25 }, token: admin.token });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ planId: "professional", planName: "Professional", durationDays: 90 });
    expect(res.body.data.codes).toHaveLength(25);
    expect(new Set(res.body.data.codes).size).toBe(25);
    for (const c of res.body.data.codes) expect(c).toMatch(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
    const stored = t.ctx.db.select().from(licenseCodes).where(eq(licenseCodes.code, res.body.data.codes[0].replaceAll("-", ""))).get()!;
    expect(stored).toMatchObject({ planId: "professional", durationDays: 90, createdBy: admin.user.id, redeemedAt: null, revokedAt: null });
  });

  test("bad requests: count out of 1..500, unknown plan, bad duration", async () => {
    const gen = (body: unknown) => t.api("/api/admin/license-codes", { body, token: admin.token });
    expect((await gen({ planId: "starter", durationDays: 30, count: 0 })).status).toBe(400);
    const tooMany = await gen({ planId: "starter", durationDays: 30, count: 501 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe("Choose between 1 and 500 codes");
    expect((await gen({ planId: "gold", durationDays: 30 })).body.message).toBe("Unknown plan");
    expect((await gen({ planId: "starter", durationDays: 0 })).status).toBe(400);
    expect((await gen({ planId: "starter", durationDays: 1.5 })).status).toBe(400);
    expect((await gen({ planId: "starter" })).status).toBe(400);
    const max = await gen({ planId: "starter", durationDays: 30, count: 500 });
    expect(max.status).toBe(201);
    expect(max.body.data.codes).toHaveLength(500);
  });

  test("the search ignores case on either engine: a code typed in lower case, an email in capitals", async () => {
    const { body } = await t.api("/api/admin/license-codes", { body: { planId: "starter", durationDays: 30, count: 1 }, token: admin.token });
    const [code] = body.data.codes as string[];
    const redeemer = await t.signUpVerified();
    expect((await t.api("/api/license/redeem", { body: { licenseCode: code }, token: redeemer.token })).status).toBe(200);
    const search = async (text: string) =>
      (await t.api(`/api/admin/license-codes?search=${encodeURIComponent(text)}`, { token: admin.token })).body.data.map((r: { code: string }) => r.code);
    expect(await search(code!.toLowerCase())).toEqual([code]);
    expect(await search(code!.slice(5, 12).toLowerCase())).toEqual([code]);
    expect(await search(redeemer.email.toUpperCase())).toEqual([code]);
  });

  test("list with status and who redeemed; revoke; a redeemed code cannot be revoked", async () => {
    const { body } = await t.api("/api/admin/license-codes", { body: { planId: "starter", durationDays: 30, count: 3 }, token: admin.token });
    const [a, b, c] = body.data.codes as string[];
    const redeemer = await t.signUpVerified();
    expect((await t.api("/api/license/redeem", { body: { licenseCode: a }, token: redeemer.token })).status).toBe(200);
    const rv = await t.api(`/api/admin/license-codes/${b!.replaceAll("-", "").toLowerCase()}/revoke`, { method: "POST", token: admin.token });
    expect(rv.status).toBe(200);
    expect(rv.body.data).toEqual({ code: b, status: "revoked" });
    const cannot = await t.api(`/api/admin/license-codes/${a}/revoke`, { method: "POST", token: admin.token });
    expect(cannot.status).toBe(400);
    expect((await t.api("/api/admin/license-codes/NOPE-NOPE-NOPE-NOPE/revoke", { method: "POST", token: admin.token })).status).toBe(404);

    const find = async (code: string) => (await t.api(`/api/admin/license-codes?search=${code}`, { token: admin.token })).body.data[0];
    expect(await find(a!)).toMatchObject({ code: a, status: "redeemed", planName: "Starter", durationDays: 30, redeemedBy: { id: redeemer.user.id, email: redeemer.email } });
    expect(await find(b!)).toMatchObject({ code: b, status: "revoked", redeemedBy: null });
    expect(await find(c!)).toMatchObject({ code: c, status: "active", redeemedBy: null });
    const byEmail = await t.api(`/api/admin/license-codes?search=${encodeURIComponent(redeemer.email)}`, { token: admin.token });
    expect(byEmail.body.data.map((r: any) => r.code)).toEqual([a]);

    // Every code of the file's tests so far: redeemed, else revoked, else active.
    const codesByStatus = () =>
      t.ctx.db.select().from(licenseCodes).all().map((r) => (r.redeemedAt ? "redeemed" : r.revokedAt ? "revoked" : "active"));
    for (const status of ["active", "redeemed", "revoked"]) {
      const page = await t.api(`/api/admin/license-codes?status=${status}&pageSize=3`, { token: admin.token });
      expect(page.status).toBe(200);
      expect(page.body.pageSize).toBe(3);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      expect(page.body.total).toBe(codesByStatus().filter((s) => s === status).length);
      for (const row of page.body.data) expect(row.status).toBe(status);
    }
    expect((await t.api("/api/admin/license-codes?status=lost", { token: admin.token })).status).toBe(400);
  });
});

describe("plans", () => {
  test("an administrator edits a plan's price, limits and features; /api/license/plans shows it", async () => {
    const before = (await t.api("/api/admin/plans", { token: admin.token })).body.data.find((p: any) => p.id === "professional");
    try {
      const res = await t.api("/api/admin/plans/professional", {
        method: "PUT",
        body: { price: 17900, monthlyContacts: 12000, monthlyMessages: -1, features: ["bulk_sms", " api_access ", ""] },
        token: admin.token,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ price: 17900, monthlyContacts: 12000, monthlyMessages: -1, features: ["bulk_sms", "api_access"] });
      const pub = (await t.api("/api/license/plans")).body.data.find((p: any) => p.id === "professional");
      expect(pub).toMatchObject({ price: 17900, monthlyMessages: -1 });
      for (const bad of [{ price: -1 }, { monthlyContacts: -2 }, { price: 1.5 }, { name: "  " }, { features: "x" }]) {
        expect((await t.api("/api/admin/plans/professional", { method: "PUT", body: bad, token: admin.token })).status).toBe(400);
      }
      expect((await t.api("/api/admin/plans/gold", { method: "PUT", body: { price: 1 }, token: admin.token })).status).toBe(404);
    } finally {
      await t.api("/api/admin/plans/professional", { method: "PUT", body: before, token: admin.token });
    }
  });
});

describe("error reports, contact messages, health", () => {
  test("error reports newest first, paged", async () => {
    for (let i = 0; i < 3; i++) {
      await t.api("/api/admin/report-error", { body: { errorReport: { message: `report ${i}`, url: "http://x/" } } });
      await Bun.sleep(2);
    }
    const res = await t.api("/api/admin/error-reports?pageSize=2", { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.pageSize).toBe(2);
    expect(res.body.total).toBe(t.ctx.db.select().from(errorReports).all().length);
    expect(res.body.data.map((r: any) => r.message)).toEqual(["report 2", "report 1"]);
  });

  test("contact messages paged; mark handled (and back)", async () => {
    const sent = await t.api("/api/contact", { body: { name: "Ann", email: "ann@example.com", subject: "Hello", message: "Question" } });
    const res = await t.api("/api/admin/contact-messages?status=open", { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({ id: sent.body.id, name: "Ann", subject: "Hello", handledAt: null });
    const done = await t.api(`/api/admin/contact-messages/${sent.body.id}/handled`, { method: "POST", token: admin.token });
    expect(done.status).toBe(200);
    expect(done.body.data.handledAt).toBeString();
    expect(t.ctx.db.select().from(supportMessages).where(eq(supportMessages.id, sent.body.id)).get()!.handledAt).toBeInstanceOf(Date);
    const handled = await t.api("/api/admin/contact-messages?status=handled", { token: admin.token });
    expect(handled.body.data.map((m: any) => m.id)).toContain(sent.body.id);
    const undo = await t.api(`/api/admin/contact-messages/${sent.body.id}/handled`, { body: { handled: false }, token: admin.token });
    expect(undo.body.data.handledAt).toBeNull();
    expect((await t.api("/api/admin/contact-messages/nope/handled", { method: "POST", token: admin.token })).status).toBe(404);
  });

  test("health: version, uptime, database size and counts", async () => {
    const res = await t.api("/api/admin/health", { token: admin.token });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.version).toBe(pkg.version);
    expect(d.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(d.databaseBytes).toBeGreaterThan(4096);
    expect(d.users).toBe(t.ctx.db.select().from(users).all().length);
    expect(d.admins).toBe(t.ctx.db.select().from(users).where(eq(users.role, "admin")).all().length);
  });
});
