import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { licenses, plans } from "../../db/schema";
import { grantLicense } from "../../src/licenses/licenses";
import { NO_LICENSE } from "../../src/licenses/limits";
import { recordInbound } from "../../src/inbound/receive";
import { findProviderById } from "../../src/providers/accounts";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body: body ?? {} });

async function withProvider(acc: Account) {
  const p = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  expect(p.status).toBe(201);
  return p.body.id as string;
}

const addNumber = (acc: Account, providerId: string, n: number) =>
  post(acc, "/api/phone-numbers", { providerId, phoneNumber: `+1415555${String(100 + n).padStart(4, "0")}` });

describe("sender numbers per plan", () => {
  test("Starter (the trial) allows 1: the second is refused with 402, a removed one frees its place", async () => {
    const acc = await t.signUpVerified();
    const providerId = await withProvider(acc);
    const first = await addNumber(acc, providerId, 0);
    expect(first.status).toBe(201);
    const second = await addNumber(acc, providerId, 1);
    expect(second.status).toBe(402);
    expect(second.body.message).toBe("Your Starter plan allows 1 phone number; you have 1. Remove one, upgrade your plan or redeem a license code to add another.");
    expect(second.body).toMatchObject({ kind: "phoneNumbers", used: 1, limit: 1, adding: 1 });
    expect((await t.api("/api/phone-numbers", { token: acc.token })).body.total).toBe(1);

    const usage = await t.api("/api/license/usage", { token: acc.token });
    expect(usage.body.data.phoneNumbers).toEqual({ used: 1, limit: 1, unlimited: false, notice: null });

    expect((await t.api(`/api/phone-numbers/${first.body.id}`, { method: "DELETE", token: acc.token })).status).toBe(200);
    expect((await addNumber(acc, providerId, 1)).status).toBe(201);
  });

  test("Professional allows 3 and Enterprise 10, counting inactive numbers too", async () => {
    const acc = await t.signUpVerified();
    const providerId = await withProvider(acc);
    await grantLicense(t.ctx, acc.user.id, "professional", 30);
    for (let i = 0; i < 3; i++) expect((await addNumber(acc, providerId, i)).status).toBe(201);
    const list = (await t.api("/api/phone-numbers", { token: acc.token })).body.data;
    await t.api(`/api/phone-numbers/${list[0].id}`, { method: "PATCH", token: acc.token, body: { isActive: false } });
    const fourth = await addNumber(acc, providerId, 3);
    expect(fourth.status).toBe(402);
    expect(fourth.body.message).toBe("Your Professional plan allows 3 phone numbers; you have 3. Remove one, upgrade your plan or redeem a license code to add another.");

    await grantLicense(t.ctx, acc.user.id, "enterprise", 30);
    for (let i = 3; i < 10; i++) expect((await addNumber(acc, providerId, i)).status).toBe(201);
    const eleventh = await addNumber(acc, providerId, 10);
    expect(eleventh.status).toBe(402);
    expect(eleventh.body.message).toBe("Your Enterprise plan allows 10 phone numbers; you have 10. Remove one, upgrade your plan or redeem a license code to add another.");
    expect((await t.api("/api/license/usage", { token: acc.token })).body.data.phoneNumbers).toEqual({ used: 10, limit: 10, unlimited: false, notice: null });
  });

  test("without a license in force no number can be added; an administrator is not limited", async () => {
    const acc = await t.signUpVerified();
    const providerId = await withProvider(acc);
    t.ctx.db.update(licenses).set({ startsAt: new Date(Date.now() - 20 * DAY), expiresAt: new Date(Date.now() - 6 * DAY) }).where(eq(licenses.userId, acc.user.id)).run();
    const refused = await addNumber(acc, providerId, 0);
    expect(refused.status).toBe(402);
    expect(refused.body.message).toBe(NO_LICENSE);

    const email = t.newEmail("admin");
    await createOrPromoteAdmin(t.ctx, email, "admin-password-1");
    const admin = await t.login(email, "admin-password-1");
    const adminProvider = await withProvider(admin);
    for (let i = 0; i < 11; i++) expect((await addNumber(admin, adminProvider, i)).status).toBe(201);
  }, 20_000);
});

// The plan's check and the write it guards are one transaction (ctx.withTransaction, whose callback awaits the check's
// records): two requests at the limit at once cannot both pass it.
describe("two adds at once at the limit", () => {
  test("the Starter plan's one sender number: one is added, the other refused", async () => {
    const acc = await t.signUpVerified();
    const providerId = await withProvider(acc);
    const answers = await Promise.all([addNumber(acc, providerId, 60), addNumber(acc, providerId, 61)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 402]);
    expect(answers.find((a) => a.status === 402)!.body).toMatchObject({ kind: "phoneNumbers", used: 1, limit: 1, adding: 1 });
    expect((await t.api("/api/phone-numbers", { token: acc.token })).body.total).toBe(1);
  });

  test("a plan of 2 contacts with 1 stored: one of two contacts added at once is stored, the other refused", async () => {
    t.ctx.db.update(plans).set({ monthlyContacts: 2 }).where(eq(plans.id, "starter")).run();
    try {
      const acc = await t.signUpVerified();
      expect((await post(acc, "/api/contacts", { firstName: "Ann", phone: "+14155550301" })).status).toBe(201);
      const answers = await Promise.all([
        post(acc, "/api/contacts", { firstName: "Bo", phone: "+14155550302" }),
        post(acc, "/api/contacts", { firstName: "Cy", phone: "+14155550303" }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 402]);
      expect(answers.find((a) => a.status === 402)!.body).toMatchObject({ kind: "contacts", used: 2, limit: 2, adding: 1 });
      expect((t.ctx.db.$client.query(`SELECT count(*) AS n FROM contacts WHERE user_id = ?`).get(acc.user.id) as { n: number }).n).toBe(2);
    } finally {
      t.ctx.db.update(plans).set({ monthlyContacts: 1000 }).where(eq(plans.id, "starter")).run();
    }
  });
});

describe("contacts created by an inbound START count against the contact limit", () => {
  test("at the limit the message is recorded but no contact is created and no confirmation goes out; existing contacts still opt back in", async () => {
    // A Starter plan of 2 contacts for this server's accounts.
    t.ctx.db.update(plans).set({ monthlyContacts: 2 }).where(eq(plans.id, "starter")).run();
    try {
      const acc = await t.signUpVerified();
      const providerId = await withProvider(acc);
      expect((await addNumber(acc, providerId, 50)).status).toBe(201);
      const account = (await findProviderById(t.ctx, providerId))!;
      let seq = 0;
      const inbound = (from: string, body: string) =>
        recordInbound(t.ctx, account, { type: "inbound", providerMessageId: `in-${acc.user.id}-${++seq}`, from, to: "+14155550150", body });
      const contactCount = () =>
        (t.ctx.db.$client.query(`SELECT count(*) AS n FROM contacts WHERE user_id = ?`).get(acc.user.id) as { n: number }).n;
      const replies = () =>
        t.ctx.db.$client.query(`SELECT phone, content FROM messages WHERE user_id = ? AND kind = 'compliance' ORDER BY created_at, id`).all(acc.user.id);

      // Below the limit: a new number's START creates a subscribed contact and gets its confirmation.
      const first = await inbound("+14155550201", "START");
      expect(first).toMatchObject({ keyword: "start", reply: "Test User: You are subscribed again. Reply HELP for help, STOP to unsubscribe." });
      expect(contactCount()).toBe(1);
      expect((await post(acc, "/api/contacts", { firstName: "Ann", phone: "+14155550202" })).status).toBe(201);
      expect(contactCount()).toBe(2);

      // At the limit: recorded, no contact, no reply.
      const blocked = await inbound("+14155550203", "START");
      expect(blocked.keyword).toBe("start");
      expect(blocked.reply).toBeNull();
      expect(blocked.message).toMatchObject({ phone: "+14155550203", content: "START", direction: "inbound", status: "received", contactId: null });
      expect(contactCount()).toBe(2);
      expect(replies()).toEqual([{ phone: "+14155550201", content: "Test User: You are subscribed again. Reply HELP for help, STOP to unsubscribe." }]);

      // An existing contact's STOP and START still work at the limit.
      await inbound("+14155550201", "STOP");
      const back = await inbound("+14155550201", "START");
      expect(back.reply).toBe("Test User: You are subscribed again. Reply HELP for help, STOP to unsubscribe.");
      expect((t.ctx.db.$client.query(`SELECT status FROM contacts WHERE user_id = ? AND phone = '+14155550201'`).get(acc.user.id) as { status: string }).status).toBe("subscribed");
      expect(contactCount()).toBe(2);
    } finally {
      t.ctx.db.update(plans).set({ monthlyContacts: 1000 }).where(eq(plans.id, "starter")).run();
    }
  });
});
