// Merge fields (issue 14): the one renderer's rules, a campaign refused for a field no contact has (naming it), and
// a campaign to 10 contacts reaching the Twilio fake rendered per contact, the fallback for the one without a name.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { compile, customFieldsOf, fieldsOf, render } from "../../shared/personalisation/render";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const ANA = { firstName: "Ana", lastName: "Silva", phone: "+14155550111", email: "ana@example.com", business: "Bella Pizza", customFields: { Drink: "latte", "Visit count": "7" } };

describe("render", () => {
  test("every occurrence of every built-in field is replaced", () => {
    expect(render("{firstName} {lastName} / {fullName} / {phone} / {email} / {business} / {firstName}!", ANA)).toBe(
      "Ana Silva / Ana Silva / +14155550111 / ana@example.com / Bella Pizza / Ana!",
    );
  });

  test("a fallback is used when the contact has no value, and only then", () => {
    expect(render("Hi {firstName|there}, {firstName|there}", { firstName: "" })).toBe("Hi there, there");
    expect(render("Hi {firstName|there}", { firstName: "   " })).toBe("Hi there");
    expect(render("Hi {firstName|there}", { firstName: "Ana" })).toBe("Hi Ana");
    expect(render("Hi { firstName | my friend }!", {})).toBe("Hi my friend!");
    // No value and no fallback: empty, never the raw "{field}".
    expect(render("Hi {lastName}.", {})).toBe("Hi .");
    expect(render("{fullName|friend}", { lastName: "Silva" })).toBe("Silva");
  });

  test("the spec's [Name] and [Business] are firstName (falling back to 'there') and business, every occurrence", () => {
    expect(render("[Name], [Business] misses you. [Name]!", ANA)).toBe("Ana, Bella Pizza misses you. Ana!");
    expect(render("Hi [Name] from [Business]", { business: "Bella Pizza" })).toBe("Hi there from Bella Pizza");
  });

  test("custom fields by their key, including keys with spaces, with fallbacks", () => {
    expect(render("Your usual {Drink}? Visit #{Visit count}", ANA)).toBe("Your usual latte? Visit #7");
    expect(render("Your usual {Drink|coffee}?", { customFields: {} })).toBe("Your usual coffee?");
  });

  test("braces that are no field are text; a text without fields renders to itself", () => {
    expect(render('{"a":1} {} {1st} {firstName}', ANA)).toBe('{"a":1} {} {1st} Ana');
    const plain = "Weekend sale: 20% off";
    expect(compile(plain)({})).toBe(plain);
  });

  test("the fields a text uses, once each, in order; the custom ones", () => {
    expect(fieldsOf("Hi [Name] {firstName|x} {Drink} at [Business] {email} {Drink}")).toEqual(["firstName", "Drink", "business", "email"]);
    expect(customFieldsOf("Hi {firstName}, {Drink} {Visit count|1}")).toEqual(["Drink", "Visit count"]);
  });
});

describe("campaigns", () => {
  const SENDER = "+14155550100";
  let t: TestServer;
  let twilio: TwilioFake;
  let acc: Account;
  const post = (path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });

  beforeAll(async () => {
    twilio = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }] });
    t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
    acc = await t.signUpVerified();
    // Campaigns to US numbers would otherwise wait for 8 AM there when the suite runs at night.
    expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
    const provider = await post("/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
    expect(provider.status).toBe(201);
    expect((await post(`/api/sms-providers/${provider.body.id}/test`)).body.success).toBe(true);
    expect((await post("/api/phone-numbers", { providerId: provider.body.id, phoneNumber: SENDER })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.stop();
    await twilio?.stop();
  });

  test("a field no contact has is refused when the campaign is saved, naming it; a field a contact has is accepted", async () => {
    expect((await post("/api/contacts", { firstName: "Bo", phone: "+14155550150", customFields: { Drink: "tea" } })).status).toBe(201);
    const refused = await post("/api/campaigns", { name: "Typo", content: "Hi {firstName}, your {Drnk} is ready", recipients: ["+14155550150"] });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'Unknown merge field {Drnk}: no contact has a field named "Drnk". Use {firstName}, {lastName}, {fullName}, {phone}, {email}, {business} or a custom field your contacts have.',
    );
    expect(refused.body.fields).toEqual(["Drnk"]);
    const ok = await post("/api/campaigns", { name: "Drink", content: "Hi {firstName}, your {Drink|coffee} is ready", recipients: ["+14155550150"] });
    expect(ok.status).toBe(201);
    // An edit is checked the same way.
    const edit = await t.api(`/api/campaigns/${ok.body.id}`, { method: "PUT", token: acc.token, body: { content: "{Colour} day" } });
    expect(edit.status).toBe(400);
    expect(edit.body.message).toStartWith("Unknown merge field {Colour}:");
  });

  test("a campaign to 10 contacts reaches the provider rendered per contact, the fallback for the one without a first name", async () => {
    const names = ["Ana", "Ben", "Caro", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", ""];
    const phones = names.map((_, i) => `+1415555${String(2000 + i)}`);
    for (const [i, firstName] of names.entries()) {
      expect((await post("/api/contacts", { firstName, lastName: "Test", phone: phones[i] })).status).toBe(201);
    }
    const campaign = await post("/api/campaigns", {
      name: "Per contact",
      content: "Hi {firstName|there}, {firstName|there}: 2 for 1 at {business}",
      recipients: phones,
      appendOptOut: false,
    });
    expect(campaign.status).toBe(201);
    const sent = await post(`/api/campaigns/${campaign.body.id}/send`);
    expect(sent.status).toBe(202);
    expect(sent.body.queued).toBe(10);
    const received = await waitFor(
      () => twilio.messages.filter((m) => phones.includes(m.to)),
      (list) => list.length === 10,
    );
    const business = `${acc.user.firstName} ${acc.user.lastName}`.trim();
    const byPhone = Object.fromEntries(received.map((m) => [m.to, m.body]));
    expect(byPhone).toEqual(
      Object.fromEntries(phones.map((p, i) => [p, `Hi ${names[i] || "there"}, ${names[i] || "there"}: 2 for 1 at ${business}`])),
    );
  });

  test("the preview renders the first real contact; the counter's message is the longest rendered one, with the segments of all", async () => {
    const phones = ["+14155553001", "+14155553002", "+14155553003"];
    const names = ["Al", "Maximilianodelacruz", ""];
    for (const [i, firstName] of names.entries()) expect((await post("/api/contacts", { firstName, lastName: "Lee", phone: phones[i] })).status).toBe(201);
    // "Al" (147 characters) and "there" (150) fit one segment of 160; the long name (164) takes two.
    const content = `Hi {firstName|there}! ${"x".repeat(140)}`;
    const res = await post("/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: phones, content, appendOptOut: false });
    expect(res.status).toBe(200);
    expect(res.body.preview).toEqual({ text: `Hi Al! ${"x".repeat(140)}`, recipient: "Al Lee", segments: 1, encoding: "GSM-7", characters: 147, unicodeCharacters: [] });
    expect(res.body.longest).toEqual({
      text: `Hi Maximilianodelacruz! ${"x".repeat(140)}`,
      recipient: "Maximilianodelacruz Lee",
      segments: 2,
      encoding: "GSM-7",
      characters: 164,
      unicodeCharacters: [],
      totalSegments: 1 + 2 + 1,
    });
  });
});
