import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let account: Account;
beforeAll(async () => {
  t = await startTestServer();
  account = await t.signUpVerified();
});
afterAll(() => t?.stop());

const VALID = { businessName: "Joe's Pizza", industry: "Restaurant & Food", customerType: "local", goals: ["sales", "loyalty"] };
const put = (body: unknown, token = account.token) => t.api("/api/user/onboarding", { method: "PUT", body, token });

describe("PUT /api/user/onboarding", () => {
  test("needs a verified sign-in", async () => {
    expect((await put(VALID, "")).status).toBe(401);
    const unverified = await t.signUp();
    const res = await put(VALID, unverified.token);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Please verify your email address first");
  });

  test("a new account has no onboarding answers", async () => {
    const user = await t.api("/api/auth/user", { token: account.token });
    expect(user.body.onboarding).toBeNull();
    expect(user.body.onboardedAt).toBeNull();
  });

  test.each([
    ["missing business name", { ...VALID, businessName: undefined }, "Please enter your business name"],
    ["blank business name", { ...VALID, businessName: "   " }, "Please enter your business name"],
    ["empty business name", { ...VALID, businessName: "" }, "Please enter your business name"],
    ["unknown industry", { ...VALID, industry: "Space Mining" }, "Please choose your industry"],
    ["missing industry", { ...VALID, industry: undefined }, "Please choose your industry"],
    ["unknown customer type", { ...VALID, customerType: "aliens" }, "Please choose your customer type"],
    ["empty goals", { ...VALID, goals: [] }, "Please choose at least one goal"],
    ["missing goals", { ...VALID, goals: undefined }, "Please choose at least one goal"],
    ["unknown goal", { ...VALID, goals: ["world-domination"] }, "Unknown goal"],
  ])("%s answers 400 with its message and saves nothing", async (_n, body, message) => {
    const res = await put(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message, code: "validation" });
    const row = t.ctx.db.select().from(users).where(eq(users.id, account.user.id)).get()!;
    expect(row.onboarding).toBeNull();
  });

  test("valid answers are saved and returned on the user", async () => {
    const res = await put({ ...VALID, businessName: "  Joe's Pizza  " });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(account.user.id);
    expect(res.body.onboarding).toEqual(VALID);
    expect(Number.isNaN(Date.parse(res.body.onboardedAt))).toBe(false);
    expect(res.body).not.toHaveProperty("passwordHash");

    const user = await t.api("/api/auth/user", { token: account.token });
    expect(user.body.onboarding).toEqual(VALID);
    expect(user.body.onboardedAt).toBe(res.body.onboardedAt);
  });

  test("answering again replaces the answers", async () => {
    const next = { businessName: "Joe's Trattoria", industry: "Other", customerType: "mixed", goals: ["reviews"] };
    const res = await put(next);
    expect(res.status).toBe(200);
    expect(res.body.onboarding).toEqual(next);
    expect((await t.api("/api/auth/user", { token: account.token })).body.onboarding).toEqual(next);
  });

  test("extra fields are not stored with the answers", async () => {
    const res = await put({ ...VALID, role: "admin", injected: "<script>" });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe("user");
    const row = t.ctx.db.select().from(users).where(eq(users.id, account.user.id)).get()!;
    expect(row.onboarding).toEqual({ customerType: "local", goals: ["sales", "loyalty"] });
    expect([row.businessName, row.industry]).toEqual(["Joe's Pizza", "Restaurant & Food"]);
    expect(row.role).toBe("user");
  });
});
