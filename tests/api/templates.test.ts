// Templates (issue 14): create, edit, delete; categories and search; variables found in the content; use counts
// that start at zero (the six samples included) and count real uses per account; one account never sees or counts
// another's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let a: Account;
let b: Account;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  b = await t.signUpVerified();
});
afterAll(async () => {
  await t?.stop();
});

const call = (acc: Account, method: string, path: string, body?: unknown) => t.api(path, { method, token: acc.token, body });
const list = async (acc: Account, query = "") => (await call(acc, "GET", `/api/templates${query}`)).body.data as any[];

const SAMPLES = [
  ["builtin-weekend-special", "Weekend Special Offer", "restaurant"],
  ["builtin-appointment-reminder", "Appointment Reminder", "healthcare"],
  ["builtin-new-customer-welcome", "New Customer Welcome", "service"],
  ["builtin-customer-survey", "Customer Survey", "custom"],
  ["builtin-new-arrivals", "New Arrivals", "retail"],
  ["builtin-class-reminder", "Class Reminder", "fitness"],
];

describe("templates", () => {
  test("a new account sees the six samples, read-only, each at zero uses", async () => {
    const data = await list(a);
    expect(data.map((x) => [x.id, x.name, x.category])).toEqual(SAMPLES);
    expect(data.map((x) => x.usageCount)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(data.every((x) => x.builtIn && x.isPublic)).toBe(true);
    expect(data[0]).toEqual({
      id: "builtin-weekend-special",
      name: "Weekend Special Offer",
      category: "restaurant",
      content: "Hi {firstName|there}! This weekend only at {business}: 20% off your order. Show this text when you pay.",
      variables: ["firstName", "business"],
      isPublic: true,
      builtIn: true,
      usageCount: 0,
      createdAt: null,      media: [],
    });
    const edit = await call(a, "PUT", "/api/templates/builtin-weekend-special", { name: "Mine" });
    expect(edit.status).toBe(409);
    expect(edit.body.message).toBe("Built-in templates cannot be changed; create your own template from this one");
    expect((await call(a, "DELETE", "/api/templates/builtin-weekend-special")).status).toBe(409);
  });

  test("create: variables from the content, zero uses, the server's isPublic; name and content required; categories checked", async () => {
    const created = await call(a, "POST", "/api/templates", {
      name: "  Birthday  ",
      category: "retail",
      content: "Happy birthday [Name]! {Reward|A gift} waits at [Business]. {firstName}, see you soon.",
      variables: ["ignored"],
      isPublic: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      name: "Birthday",
      category: "retail",
      content: "Happy birthday [Name]! {Reward|A gift} waits at [Business]. {firstName}, see you soon.",
      variables: ["firstName", "Reward", "business"],
      isPublic: false,
      builtIn: false,
      usageCount: 0,
      createdAt: created.body.createdAt,      media: [],
    });
    expect(Date.parse(created.body.createdAt)).toBeGreaterThan(0);

    const noName = await call(a, "POST", "/api/templates", { name: " ", content: "x" });
    expect([noName.status, noName.body.message]).toEqual([400, "Template name is required"]);
    const noContent = await call(a, "POST", "/api/templates", { name: "x", content: "" });
    expect([noContent.status, noContent.body.message]).toEqual([400, "Template content is required"]);
    const badCategory = await call(a, "POST", "/api/templates", { name: "x", content: "y", category: "bakery" });
    expect([badCategory.status, badCategory.body.message]).toEqual([400, "Category must be one of restaurant, retail, service, healthcare, fitness, custom"]);
    const tooLong = await call(a, "POST", "/api/templates", { name: "x", content: "y".repeat(1601) });
    expect(tooLong.status).toBe(400);
    const defaulted = await call(a, "POST", "/api/templates", { name: "Plain", content: "See you Friday" });
    expect([defaulted.body.category, defaulted.body.variables]).toEqual(["custom", []]);
  });

  test("edit and delete one's own", async () => {
    const created = (await call(a, "POST", "/api/templates", { name: "Temp", category: "fitness", content: "Gym at 6" })).body;
    const edited = await call(a, "PUT", `/api/templates/${created.id}`, { content: "Gym at 7, {firstName}" });
    expect(edited.status).toBe(200);
    expect([edited.body.name, edited.body.category, edited.body.content, edited.body.variables]).toEqual(["Temp", "fitness", "Gym at 7, {firstName}", ["firstName"]]);
    expect((await call(a, "DELETE", `/api/templates/${created.id}`)).body).toEqual({ success: true });
    expect((await call(a, "DELETE", `/api/templates/${created.id}`)).status).toBe(404);
    expect((await list(a)).some((x) => x.id === created.id)).toBe(false);
  });

  test("category filter and search of name and content (own first, newest first, then samples)", async () => {
    expect((await list(a, "?category=retail")).map((x) => x.name)).toEqual(["Birthday", "New Arrivals"]);
    expect((await list(a, "?category=healthcare")).map((x) => x.name)).toEqual(["Appointment Reminder"]);
    expect((await list(a, "?q=birthday")).map((x) => x.name)).toEqual(["Birthday"]);
    // Content matches too, case-insensitively, samples included.
    expect((await list(a, "?q=REMINDER")).map((x) => x.name)).toEqual(["Appointment Reminder", "Class Reminder"]);
    expect((await list(a, "?q=see%20you")).map((x) => x.name)).toEqual(["Plain", "Birthday", "Class Reminder"]);
    // % and _ are text, not wildcards.
    expect((await list(a, "?q=%25")).map((x) => x.name)).toEqual(["Weekend Special Offer"]);
    expect((await call(a, "GET", "/api/templates?category=bakery")).status).toBe(400);
  });

  test("use counts real uses per account, from zero, for samples and own templates", async () => {
    const own = (await list(a, "?q=birthday"))[0];
    expect((await call(a, "POST", `/api/templates/${own.id}/use`)).body.usageCount).toBe(1);
    expect((await call(a, "POST", `/api/templates/${own.id}/use`)).body.usageCount).toBe(2);
    const used = await call(a, "POST", "/api/templates/builtin-customer-survey/use");
    expect([used.status, used.body.id, used.body.usageCount]).toEqual([200, "builtin-customer-survey", 1]);
    await call(a, "POST", "/api/templates/builtin-customer-survey/use");
    const counts = Object.fromEntries((await list(a)).map((x) => [x.name, x.usageCount]));
    expect(counts).toEqual({
      Plain: 0,
      Birthday: 2,
      "Weekend Special Offer": 0,
      "Appointment Reminder": 0,
      "New Customer Welcome": 0,
      "Customer Survey": 2,
      "New Arrivals": 0,
      "Class Reminder": 0,
    });
    expect((await call(a, "POST", "/api/templates/no-such-id/use")).status).toBe(404);
  });

  test("tenancy: another account sees only the samples, at its own zero counts, and cannot read, use, edit or delete", async () => {
    const data = await list(b);
    expect(data.map((x) => [x.name, x.usageCount])).toEqual(SAMPLES.map(([, name]) => [name, 0]));
    const own = (await list(a, "?q=birthday"))[0];
    for (const [method, path, body] of [
      ["POST", `/api/templates/${own.id}/use`, undefined],
      ["PUT", `/api/templates/${own.id}`, { name: "Stolen" }],
      ["DELETE", `/api/templates/${own.id}`, undefined],
    ] as const) {
      const r = await call(b, method, path, body);
      expect([r.status, r.body.message]).toEqual([404, "Template not found"]);
    }
    expect((await list(a, "?q=birthday"))[0]).toEqual({ ...own });
  });

  test("signed out: 401", async () => {
    expect((await t.api("/api/templates")).status).toBe(401);
  });
});
