// Issue 28 item 2: the business profile and the user's own name and email in Account Settings (GET/PATCH
// /api/user/profile), an email change verified by a code sent to the new address, the wizard's regional answers,
// and migration 0045 moving the wizard's business name and industry into the profile.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/passwords";
import { databaseBefore } from "../support/old-database";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

setDefaultTimeout(30_000);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.stop());

const call = (acc: Account, method: string, path: string, body?: unknown) => t.api(path, { method, token: acc.token, body });

describe("GET/PATCH /api/user/profile", () => {
  test("a new account's profile is blank, replies signed with the owner's name and HELP giving the email", async () => {
    const acc = await t.signUpVerified();
    expect((await t.api("/api/user/profile")).status).toBe(401);
    expect((await call(acc, "GET", "/api/user/profile")).body).toEqual({
      firstName: "Test",
      lastName: "User",
      email: acc.email,
      pendingEmail: null,
      businessName: "",
      industry: "",
      businessContact: "",
      signedAs: "Test User",
      helpContact: acc.email,
    });
  });

  test("saves the business name, industry, contact and the user's name; the user and the wizard's view show them", async () => {
    const acc = await t.signUpVerified();
    const res = await call(acc, "PATCH", "/api/user/profile", {
      firstName: " Rosa ",
      lastName: "Diaz",
      businessName: "  Rosa's Flowers ",
      industry: "Retail & E-commerce",
      businessContact: "https://rosasflowers.example/help",
      email: "someone@else.example",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      firstName: "Rosa",
      lastName: "Diaz",
      email: acc.email,
      pendingEmail: null,
      businessName: "Rosa's Flowers",
      industry: "Retail & E-commerce",
      businessContact: "https://rosasflowers.example/help",
      signedAs: "Rosa's Flowers",
      helpContact: "https://rosasflowers.example/help",
    });
    const user = (await call(acc, "GET", "/api/auth/user")).body;
    expect(user).toMatchObject({ firstName: "Rosa", email: acc.email, business: { name: "Rosa's Flowers", industry: "Retail & E-commerce", contact: "https://rosasflowers.example/help" } });
    // The wizard, answered later, starts from the profile and changes it.
    const wizard = await call(acc, "PUT", "/api/user/onboarding", { businessName: "Rosa's Blooms", industry: "Other", customerType: "local", goals: ["sales"], timezone: "Europe/Paris", defaultCountry: "es" });
    expect(wizard.status).toBe(200);
    expect(wizard.body).toMatchObject({
      timezone: "Europe/Paris",
      onboarding: { businessName: "Rosa's Blooms", industry: "Other", customerType: "local", goals: ["sales"] },
      business: { name: "Rosa's Blooms", industry: "Other", contact: "https://rosasflowers.example/help" },
    });
    expect((await call(acc, "GET", "/api/user/settings")).body).toMatchObject({ timezone: "Europe/Paris", defaultCountry: "ES", defaultCountryChosen: true });
    // Each contact form is accepted; something that is none of them is refused.
    for (const contact of ["help@rosasflowers.example", "+1 (415) 555-0199", "rosasflowers.example", ""]) {
      expect((await call(acc, "PATCH", "/api/user/profile", { businessContact: contact })).body.businessContact).toBe(contact);
    }
  });

  test.each([
    [{ businessContact: "call us" }, "Please enter a phone number, an email address or a website for HELP replies"],
    [{ businessContact: "12" }, "Please enter a phone number, an email address or a website for HELP replies"],
    [{ industry: "Space Mining" }, "Please choose your industry"],
    [{ businessName: "x".repeat(121) }, "The business name must be at most 120 characters"],
    [{ firstName: 3 }, "First name must be at most 100 characters"],
  ])("%j answers 400 %s", async (body, message) => {
    const acc = await t.signUpVerified();
    expect(await call(acc, "PATCH", "/api/user/profile", body)).toMatchObject({ status: 400, body: { message } });
    expect((await call(acc, "GET", "/api/user/profile")).body).toMatchObject({ businessName: "", industry: "", businessContact: "" });
  });

  test("the wizard refuses an unknown time zone or country", async () => {
    const acc = await t.signUpVerified();
    const answers = { businessName: "Rosa's", industry: "Other", customerType: "local", goals: ["sales"] };
    expect(await call(acc, "PUT", "/api/user/onboarding", { ...answers, timezone: "Mars/Olympus" })).toMatchObject({ status: 400, body: { message: "Please choose one of the offered timezones" } });
    expect(await call(acc, "PUT", "/api/user/onboarding", { ...answers, defaultCountry: "XX" })).toMatchObject({ status: 400, body: { message: "Please choose a valid country" } });
  });
});

describe("changing the email", () => {
  test("takes effect only when the code sent to the new address comes back; the old address is told", async () => {
    const acc = await t.confirm(await t.signUpVerified());
    const next = t.newEmail("renamed");
    const asked = await call(acc, "POST", "/api/user/email", { email: ` ${next.toUpperCase()} ` });
    expect(asked).toMatchObject({ status: 200, body: { pendingEmail: next, retryAfter: 60, message: `We sent a code to ${next}. Enter it to make it your email.` } });
    const code = await t.latestCode(next);
    // Until then the account keeps its email and signs in with it.
    expect((await call(acc, "GET", "/api/user/profile")).body).toMatchObject({ email: acc.email, pendingEmail: next });
    expect((await t.login(acc.email)).token).toBeTruthy();
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await call(acc, "POST", "/api/user/email/confirm", { code: wrong })).toMatchObject({ status: 400, body: { message: "Invalid verification code" } });

    const seq = t.lastSeq();
    const done = await call(acc, "POST", "/api/user/email/confirm", { code });
    expect(done).toMatchObject({ status: 200, body: { message: `Your email is now ${next}`, user: { email: next, emailVerified: true }, profile: { email: next, pendingEmail: null } } });
    const notice = await t.waitForEmail(acc.email, 5000, { afterSeq: seq });
    expect(notice.subject).toBe("Your smsdesk email address was changed");
    expect(notice.text).toContain(`Your smsdesk account's email address is now ${next}; this address no longer signs in.`);
    expect((await t.login(next)).user.email).toBe(next);
    expect((await t.api("/api/auth/login", { body: { email: acc.email, password: acc.password } })).status).toBe(401);
    expect(await call(acc, "POST", "/api/user/email/confirm", { code })).toMatchObject({ status: 400, body: { message: "There is no email change to confirm" } });
  });

  test("refuses an address in use, its own, or not an email; a pending change can be cancelled", async () => {
    const acc = await t.confirm(await t.signUpVerified());
    const other = await t.signUpVerified();
    expect(await call(acc, "POST", "/api/user/email", { email: other.email })).toMatchObject({ status: 409, body: { message: "An account with this email already exists" } });
    expect(await call(acc, "POST", "/api/user/email", { email: acc.email })).toMatchObject({ status: 400, body: { message: "This is already your email address" } });
    expect(await call(acc, "POST", "/api/user/email", { email: "rosa@" })).toMatchObject({ status: 400, body: { message: "Please enter a valid email address" } });
    const next = t.newEmail("cancelled");
    expect((await call(acc, "POST", "/api/user/email", { email: next })).status).toBe(200);
    // A second request within the minute waits.
    expect((await call(acc, "POST", "/api/user/email", { email: t.newEmail("again") })).status).toBe(429);
    const code = await t.latestCode(next);
    expect((await call(acc, "DELETE", "/api/user/email")).body).toMatchObject({ email: acc.email, pendingEmail: null });
    expect(await call(acc, "POST", "/api/user/email/confirm", { code })).toMatchObject({ status: 400, body: { message: "There is no email change to confirm" } });
    expect((await call(acc, "GET", "/api/auth/user")).body.email).toBe(acc.email);
  });

  test("a session not confirmed in the last 10 minutes is asked to confirm it's the user first", async () => {
    const acc = await t.signUpVerified();
    await t.ctx.records.$run("UPDATE sessions SET confirmed_at = confirmed_at - 660000, created_at = created_at - 660000 WHERE user_id = ?", [acc.user.id]);
    expect(await call(acc, "POST", "/api/user/email", { email: t.newEmail("late") })).toMatchObject({
      status: 403,
      body: { message: "Please confirm it's you to change your email", code: "reauth_required" },
    });
  });
});

describe("migration 0045: the wizard's business name and industry become the profile's", () => {
  let dataDir: string;
  let old: TestServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "smsdesk-profile-migration-"));
    const db = databaseBefore(dataDir, "0045_business_profile");
    const hash = await hashPassword("old-password-1");
    const user = db.query("INSERT INTO users (id, email, password_hash, email_verified, first_name, last_name, onboarding) VALUES (?, ?, ?, 1, 'Joe', 'Rossi', ?)");
    user.run("u-pizza", "joe@pizza.example", hash, JSON.stringify({ businessName: " Joe's Pizza ", industry: "Restaurant & Food", customerType: "local", goals: ["sales"] }));
    user.run("u-none", "none@pizza.example", hash, null);
    db.close();
    old = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
  });
  afterAll(async () => {
    await old?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("an onboarded account keeps its name, industry and answers; one never onboarded has none", async () => {
    const joe = await old.login("joe@pizza.example", "old-password-1");
    expect((await old.api("/api/user/profile", { token: joe.token })).body).toMatchObject({ businessName: "Joe's Pizza", industry: "Restaurant & Food", signedAs: "Joe's Pizza" });
    expect(joe.user.onboarding).toEqual({ businessName: "Joe's Pizza", industry: "Restaurant & Food", customerType: "local", goals: ["sales"] });
    const none = await old.login("none@pizza.example", "old-password-1");
    expect(none.user.onboarding).toBeNull();
    expect((await old.api("/api/user/profile", { token: none.token })).body).toMatchObject({ businessName: "", industry: "", signedAs: "Joe Rossi" });
  });
});
