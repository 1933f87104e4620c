// Every multi-step write is one transaction: a failure injected at its last step (a trigger that aborts that
// statement, as a crash there would stop it) leaves nothing of the earlier steps behind.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { applyUserAction } from "../../src/admin/users";
import { cancelByUser, pauseByUser, resumeByUser, sendCampaign } from "../../src/campaigns/campaigns";
import { PARKED } from "../../src/messages/due";
import { runDueJobs } from "../../src/campaigns/scheduler";
import { mergeContacts } from "../../src/contacts/contacts";
import { redeemLicenseCode } from "../../src/licenses/licenses";
import { recordInbound } from "../../src/inbound/receive";
import { findProviderById } from "../../src/providers/accounts";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { findUserById } from "../../src/users/queries";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
// 23:00 in Los Angeles: campaign rows to +1415 numbers wait in the outbox for the morning (quiet hours).
const LATE_EVENING = Date.parse("2026-01-14T07:00:00Z");
const offset = LATE_EVENING - Date.now();
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  t.ctx.now = () => Date.now() + offset;
});
afterAll(() => t?.stop());
afterEach(() => db().exec(`DROP TRIGGER IF EXISTS injected_failure`));

const db = () => t.ctx.db.$client;
const one = <T>(sql: string, ...args: (string | number)[]) => db().query(sql).get(...args) as T;
const n = (sql: string, ...args: (string | number)[]) => one<{ n: number }>(sql, ...args).n;
const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body: body ?? {} });

/** The next statement matching `when` fails, as if the process had died right there. */
function failOn(event: string, table: string, when: string) {
  db().exec(`CREATE TEMP TRIGGER injected_failure BEFORE ${event} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
}

async function sender() {
  const acc = await t.signUpVerified();
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: true, quietHoursStart: "21:00", quietHoursEnd: "08:00" } });
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  expect((await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 0 })).status).toBe(201);
  return { acc, user: (await findUserById(t.ctx, acc.user.id))!, providerId: provider.body.id as string };
}

async function draft(acc: Account) {
  const c = await post(acc, "/api/campaigns", { type: "sms", name: "Sale", content: "Sale tonight", recipients: ["+14155550101", "+14155550102", "+14155550103"] });
  expect(c.status).toBe(201);
  return c.body.id as string;
}

const status = (id: string) => one<{ status: string }>(`SELECT status FROM campaigns WHERE id = ?`, id).status;
const rows = (id: string) => n(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`, id);

describe("campaigns", () => {
  test("starting: a failure writing the status leaves no outbox rows (and the campaign still a draft)", async () => {
    const s = await sender();
    const id = await draft(s.acc);
    failOn("UPDATE OF status", "campaigns", "NEW.status = 'sending'");
    await expect(sendCampaign(t.ctx, s.user, id)).rejects.toThrow("injected failure");
    expect(status(id)).toBe("draft");
    expect(rows(id)).toBe(0);
  });

  test("a scheduled start that fails keeps its job pending, and runs at the next tick", async () => {
    const s = await sender();
    const id = await draft(s.acc);
    expect((await post(s.acc, `/api/campaigns/${id}/send`, { scheduledAt: new Date(t.ctx.now() + HOUR).toISOString() })).status).toBe(202);
    const realNow = t.ctx.now;
    t.ctx.now = () => realNow() + HOUR + 1000;
    try {
      failOn("UPDATE OF status", "campaigns", "NEW.status = 'sending'");
      await runDueJobs(t.ctx);
      expect(status(id)).toBe("scheduled");
      expect(rows(id)).toBe(0);
      expect(n(`SELECT count(*) AS n FROM jobs WHERE ref_id = ? AND state = 'pending'`, id)).toBe(1);
      db().exec(`DROP TRIGGER injected_failure`);
      await runDueJobs(t.ctx);
      expect(status(id)).toBe("sending");
      expect(rows(id)).toBe(3);
      expect(n(`SELECT count(*) AS n FROM jobs WHERE ref_id = ? AND state = 'pending'`, id)).toBe(0);
    } finally {
      t.ctx.now = realNow;
    }
  });

  test("pause, resume and cancel: the status and the rows change together or not at all", async () => {
    const s = await sender();
    const id = await draft(s.acc);
    expect((await post(s.acc, `/api/campaigns/${id}/send`)).status).toBe(202);
    const parked = () => n(`SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status = 'queued' AND next_attempt_at >= ?`, id, PARKED);

    failOn("UPDATE OF next_attempt_at", "messages", `NEW.next_attempt_at >= ${PARKED}`);
    await expect(pauseByUser(t.ctx, s.user.id, id)).rejects.toThrow("injected failure");
    expect([status(id), parked()]).toEqual(["sending", 0]);
    db().exec(`DROP TRIGGER injected_failure`);
    await pauseByUser(t.ctx, s.user.id, id);
    expect([status(id), parked()]).toEqual(["paused", 3]);

    failOn("UPDATE OF next_attempt_at", "messages", `NEW.next_attempt_at < ${PARKED}`);
    await expect(resumeByUser(t.ctx, s.user, id)).rejects.toThrow("injected failure");
    expect([status(id), parked()]).toEqual(["paused", 3]);
    db().exec(`DROP TRIGGER injected_failure`);

    failOn("UPDATE OF status", "messages", "NEW.status = 'cancelled'");
    await expect(cancelByUser(t.ctx, s.user.id, id)).rejects.toThrow("injected failure");
    expect([status(id), parked()]).toEqual(["paused", 3]);
    db().exec(`DROP TRIGGER injected_failure`);
    await cancelByUser(t.ctx, s.user.id, id);
    expect(status(id)).toBe("cancelled");
    expect(n(`SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status = 'cancelled'`, id)).toBe(3);
  });

  test("scheduling: the job and the status are written together", async () => {
    const s = await sender();
    const id = await draft(s.acc);
    failOn("UPDATE OF status", "campaigns", "NEW.status = 'scheduled'");
    await expect(sendCampaign(t.ctx, s.user, id, new Date(t.ctx.now() + HOUR).toISOString())).rejects.toThrow("injected failure");
    expect(status(id)).toBe("draft");
    expect(n(`SELECT count(*) AS n FROM jobs WHERE ref_id = ?`, id)).toBe(0);
  });
});

describe("accounts, contacts, licenses, inbound", () => {
  test("disabling a user: a failure revoking the sessions leaves the account enabled and its campaigns as they were", async () => {
    const s = await sender();
    const id = await draft(s.acc);
    expect((await post(s.acc, `/api/campaigns/${id}/send`)).status).toBe(202);
    const email = t.newEmail("admin");
    await createOrPromoteAdmin(t.ctx, email, "admin-password-1");
    const admin = (await findUserById(t.ctx, one<{ id: string }>(`SELECT id FROM users WHERE email = ?`, email).id))!;
    failOn("UPDATE", "sessions", `OLD.user_id = '${s.user.id}'`);
    await expect(applyUserAction(t.ctx, admin.id, s.user.id, "disable")).rejects.toThrow("injected failure");
    expect((await findUserById(t.ctx, s.user.id))!.disabled).toBe(false);
    expect(status(id)).toBe("sending");
    expect(n(`SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status = 'queued'`, id)).toBe(3);
  });

  test("merging contacts: a failure updating the primary leaves every contact and its history where it was", async () => {
    const s = await sender();
    const a = await post(s.acc, "/api/contacts", { firstName: "Ann", phone: "+14155550121" });
    const b = await post(s.acc, "/api/contacts", { firstName: "Bea", phone: "+14155550122", tags: ["vip"] });
    expect([a.status, b.status]).toEqual([201, 201]);
    // Bea's message moves with her (the messages domain's side of the merge, ctx.contactMessages), in the same transaction.
    db().query(`INSERT INTO messages (id, user_id, contact_id, phone, content, direction) VALUES (?, ?, ?, '+14155550122', 'hi', 'inbound')`).run(crypto.randomUUID(), s.user.id, b.body.id);
    failOn("UPDATE", "contacts", `OLD.id = '${a.body.id}'`);
    await expect(mergeContacts(t.ctx, s.user.id, a.body.id, [b.body.id])).rejects.toThrow("injected failure");
    expect(n(`SELECT count(*) AS n FROM contacts WHERE user_id = ?`, s.user.id)).toBe(2);
    expect(n(`SELECT count(*) AS n FROM contact_consents WHERE contact_id = ?`, b.body.id)).toBe(1);
    expect(n(`SELECT count(*) AS n FROM messages WHERE contact_id = ?`, b.body.id)).toBe(1);
    db().exec(`DROP TRIGGER injected_failure`);
    await mergeContacts(t.ctx, s.user.id, a.body.id, [b.body.id]);
    expect(n(`SELECT count(*) AS n FROM contacts WHERE user_id = ?`, s.user.id)).toBe(1);
    expect(n(`SELECT count(*) AS n FROM messages WHERE contact_id = ?`, a.body.id)).toBe(1);
    expect(n(`SELECT count(*) AS n FROM contact_consents WHERE contact_id = ?`, a.body.id)).toBe(2);
  });

  test("redeeming a license code: a failure writing the license leaves the code unredeemed", async () => {
    const s = await sender();
    db().query(`INSERT INTO license_codes (code, plan_id, duration_days, created_at) VALUES ('ATOMIC1', 'professional', 30, ?)`).run(Date.now());
    failOn("INSERT", "licenses", "NEW.source = 'code'");
    await expect(redeemLicenseCode(t.ctx, s.user.id, "ATOMIC1")).rejects.toThrow("injected failure");
    expect(one<{ redeemed_at: number | null }>(`SELECT redeemed_at FROM license_codes WHERE code = 'ATOMIC1'`).redeemed_at).toBeNull();
    db().exec(`DROP TRIGGER injected_failure`);
    expect((await redeemLicenseCode(t.ctx, s.user.id, "ATOMIC1")).planName).toBe("Professional");
  });

  test("an inbound STOP: a failure recording the opt-out stores nothing, so the provider's retry opts the sender out", async () => {
    const s = await sender();
    const account = (await findProviderById(t.ctx, s.providerId))!;
    const stop = { type: "inbound" as const, providerMessageId: `stop-${s.user.id}`, from: "+14155550131", to: "+14155550150", body: "STOP" };
    failOn("INSERT", "contact_consents", "NEW.kind = 'opt_out'");
    await expect(recordInbound(t.ctx, account, stop)).rejects.toThrow("injected failure");
    expect(n(`SELECT count(*) AS n FROM messages WHERE user_id = ? AND direction = 'inbound'`, s.user.id)).toBe(0);
    db().exec(`DROP TRIGGER injected_failure`);
    expect((await recordInbound(t.ctx, account, stop)).keyword).toBe("stop");
    expect(one<{ status: string }>(`SELECT status FROM contacts WHERE user_id = ? AND phone = '+14155550131'`, s.user.id).status).toBe("opted_out");
  });
});
