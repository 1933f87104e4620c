import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { supportMessages } from "../../db/schema";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

const VALID = { name: "Ada Lovelace", email: "ada@example.com", subject: "Billing question", message: "How do I change plans?" };
const contact = (body: unknown, token?: string) => t.api("/api/contact", { body, token });
const stored = (id: string) => t.ctx.db.select().from(supportMessages).where(eq(supportMessages.id, id)).get();
const count = () => t.ctx.db.select().from(supportMessages).all().length;

describe("POST /api/contact", () => {
  test.each(["name", "email", "subject", "message"] as const)("a missing or blank %s answers 400 'Please fill in all required fields'", async (field) => {
    const before = count();
    for (const value of [undefined, "", "   "]) {
      const res = await contact({ ...VALID, [field]: value });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: "Please fill in all required fields", code: "validation" });
    }
    expect(count()).toBe(before);
  });

  test("an invalid email answers 400 'Please enter a valid email address'", async () => {
    const res = await contact({ ...VALID, email: "ada-at-example" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Please enter a valid email address", code: "validation" });
  });

  test("an unknown priority answers 400", async () => {
    const res = await contact({ ...VALID, priority: "urgent" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Priority must be low, normal, high or critical", code: "validation" });
  });

  test("success answers 201 and stores the message (signed out, priority normal by default)", async () => {
    const res = await contact({ ...VALID, name: "  Ada Lovelace ", company: "Analytical Engines", phone: "+1 555 0100" });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe("We'll get back to you within 24 hours.");
    expect(typeof res.body.id).toBe("string");
    const row = stored(res.body.id)!;
    expect(row).toBeDefined();
    expect(row.name).toBe("Ada Lovelace");
    expect(row.email).toBe(VALID.email);
    expect(row.subject).toBe(VALID.subject);
    expect(row.message).toBe(VALID.message);
    expect(row.company).toBe("Analytical Engines");
    expect(row.phone).toBe("+1 555 0100");
    expect(row.priority).toBe("normal");
    expect(row.userId).toBeNull();
    expect(row.handledAt).toBeNull();
  });

  test.each(["low", "normal", "high", "critical"])("priority %s is stored", async (priority) => {
    const res = await contact({ ...VALID, priority });
    expect(res.status).toBe(201);
    expect(stored(res.body.id)!.priority).toBe(priority);
  });

  test("empty optional fields are stored as null", async () => {
    const res = await contact({ ...VALID, company: "  ", phone: "" });
    expect(res.status).toBe(201);
    const row = stored(res.body.id)!;
    expect(row.company).toBeNull();
    expect(row.phone).toBeNull();
  });

  test("a signed-in sender is recorded; an invalid token is ignored, not refused", async () => {
    const account = await t.signUp();
    const signedIn = await contact(VALID, account.token);
    expect(signedIn.status).toBe(201);
    expect(stored(signedIn.body.id)!.userId).toBe(account.user.id);
    const bogus = await contact(VALID, "not.a.token");
    expect(bogus.status).toBe(201);
    expect(stored(bogus.body.id)!.userId).toBeNull();
  });
});
