import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DATE_FORMATS, LOCALES, TIMEZONES } from "../../shared/users/regional-options";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let account: Account;
beforeAll(async () => {
  t = await startTestServer();
  account = await t.signUpVerified();
});
afterAll(() => t?.stop());

const patch = (body: unknown, token = account.token) => t.api("/api/user/settings", { method: "PATCH", body, token });
const get = () => t.api("/api/user/settings", { token: account.token });

describe("/api/user/settings", () => {
  test("needs a sign-in", async () => {
    expect((await t.api("/api/user/settings")).status).toBe(401);
    expect((await patch({ timezone: "UTC" }, "")).status).toBe(401);
  });

  test("GET returns the defaults", async () => {
    const res = await get();
    const help = `Test User: For help, contact ${account.email}. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe.`;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ timezone: "America/New_York", locale: "en-US", dateFormat: "MM/DD/YYYY", quietHoursEnabled: true, quietHoursStart: "21:00", quietHoursEnd: "08:00", appendOptOut: true, frequencyCapPerDay: null, defaultCountry: "US", defaultCountryChosen: false, helpReply: help, helpReplyDefault: help, helpReplyCustom: false, linkDomain: null, linkDomainDefault: t.ctx.config.linkDomain });
  });

  test("offers 22 timezones and 16 locales (business spec)", () => {
    expect(TIMEZONES).toHaveLength(22);
    expect(LOCALES).toHaveLength(16);
  });

  test("PATCH saves all three and GET and /api/auth/user reflect them", async () => {
    const res = await patch({ timezone: "Europe/Paris", locale: "fr-FR", dateFormat: "DD/MM/YYYY" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ timezone: "Europe/Paris", locale: "fr-FR", dateFormat: "DD/MM/YYYY" });
    expect((await get()).body).toMatchObject({ timezone: "Europe/Paris", locale: "fr-FR", dateFormat: "DD/MM/YYYY" });
    const user = await t.api("/api/auth/user", { token: account.token });
    expect(user.body.timezone).toBe("Europe/Paris");
    expect(user.body.locale).toBe("fr-FR");
    expect(user.body.dateFormat).toBe("DD/MM/YYYY");
  });

  test("PATCH with one field changes only that field", async () => {
    const res = await patch({ dateFormat: "YYYY-MM-DD" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ timezone: "Europe/Paris", locale: "fr-FR", dateFormat: "YYYY-MM-DD" });
  });

  test.each([
    [{ timezone: "Mars/Olympus_Mons" }, "Please choose one of the offered timezones"],
    [{ timezone: "Europe/Madrid" }, "Please choose one of the offered timezones"],
    [{ timezone: "" }, "Please choose one of the offered timezones"],
    [{ locale: "xx-XX" }, "Please choose one of the offered languages"],
    [{ locale: "en-us" }, "Please choose one of the offered languages"],
    [{ dateFormat: "D/M/Y" }, "Please choose one of the offered date formats"],
    [{ timezone: "UTC", locale: "klingon" }, "Please choose one of the offered languages"],
  ])("%p answers 400 with its message and changes nothing", async (body, message) => {
    const before = (await get()).body;
    const res = await patch(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message, code: "validation" });
    expect((await get()).body).toEqual(before);
  });

  test("every offered value is accepted", async () => {
    for (const z of TIMEZONES) expect((await patch({ timezone: z.value })).status).toBe(200);
    for (const l of LOCALES) expect((await patch({ locale: l.value })).status).toBe(200);
    for (const f of DATE_FORMATS) expect((await patch({ dateFormat: f })).status).toBe(200);
    expect((await get()).body).toMatchObject({ timezone: TIMEZONES.at(-1)!.value, locale: LOCALES.at(-1)!.value, dateFormat: DATE_FORMATS.at(-1)! });
  });

  test("other fields in the body cannot change the account (no role or email change)", async () => {
    const res = await patch({ timezone: "UTC", role: "admin", email: "hijack@example.com", emailVerified: false, passwordHash: "x" });
    // The settings it knows are saved; the other fields are ignored, not refused.
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe("UTC");
    // The answer is the settings, and how many messages held for quiet hours the change let go (none here).
    const { releasedHeld, ...saved } = res.body;
    expect(releasedHeld).toBe(0);
    expect(saved).toEqual((await get()).body);
    const user = await t.api("/api/auth/user", { token: account.token });
    expect(user.status).toBe(200);
    expect(user.body.role).toBe("user");
    expect(user.body.email).toBe(account.email);
    expect(user.body.emailVerified).toBe(true);
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: account.password } })).status).toBe(200);
  });

  test("settings are per account", async () => {
    const other = await t.signUpVerified();
    const res = await t.api("/api/user/settings", { token: other.token });
    expect(res.body).toMatchObject({ timezone: "America/New_York", locale: "en-US", dateFormat: "MM/DD/YYYY" });
  });

  test("sending compliance settings: quiet hours, opt-out line and frequency cap are saved and validated", async () => {
    const res = await patch({ quietHoursEnabled: false, quietHoursStart: "22:30", quietHoursEnd: "07:15", appendOptOut: false, frequencyCapPerDay: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ quietHoursEnabled: false, quietHoursStart: "22:30", quietHoursEnd: "07:15", appendOptOut: false, frequencyCapPerDay: 2 });
    expect((await get()).body).toMatchObject({ quietHoursStart: "22:30", frequencyCapPerDay: 2 });
    const bad = await patch({ quietHoursStart: "25:00" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Quiet hours start must be a time like 21:00");
    expect((await patch({ quietHoursStart: "07:15" })).body.message).toBe("Quiet hours must start and end at different times");
    expect((await patch({ frequencyCapPerDay: 0 })).status).toBe(400);
    expect((await patch({ frequencyCapPerDay: null })).body.frequencyCapPerDay).toBeNull();
    expect((await get()).body).toMatchObject({ quietHoursStart: "22:30", quietHoursEnd: "07:15" });
  });

  test("a price per segment is no setting (it is each provider account's): an older client's is dropped, not refused", async () => {
    const provider = await t.api("/api/sms-providers", { token: account.token, body: { provider: "simulator", displayName: "Simulator" } });
    expect(provider.status).toBe(201);
    for (const segmentPriceMicros of [7900, null, 10_000_001, "abc"]) {
      const res = await patch({ segmentPriceMicros, frequencyCapPerDay: 3 });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty("segmentPriceMicros");
      expect(res.body.frequencyCapPerDay).toBe(3);
    }
    expect((await get()).body).not.toHaveProperty("segmentPriceMicros");
    // Nor did it reach the provider account: its default still stands.
    const prices = await t.api("/api/sms-providers/segment-prices", { token: account.token });
    expect(prices.body.data).toEqual([
      { providerId: provider.body.id, provider: "simulator", displayName: "Simulator", priceMicros: 0, customPriceMicros: null, defaultPriceMicros: 0, mmsPriceMicros: 0, customMmsPriceMicros: null, defaultMmsPriceMicros: 0 },
    ]);
  });
});
