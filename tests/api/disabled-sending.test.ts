import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { ACCOUNT_DISABLED } from "../../src/campaigns/lifecycle";
import { runDueJobs } from "../../src/campaigns/scheduler";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
let admin: Account;
// 23:00 in Los Angeles (the zone of the +1415 recipients): marketing waits for the morning, so campaign rows stay
// queued for as long as a test needs them to.
const LATE_EVENING = Date.parse("2026-01-14T07:00:00Z");
const offset = LATE_EVENING - Date.now();
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  t.ctx.now = () => Date.now() + offset;
  const email = t.newEmail("admin");
  await createOrPromoteAdmin(t.ctx, email, "admin-password-1");
  admin = await t.confirm(await t.login(email, "admin-password-1"));
});
afterAll(() => t?.stop());

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body: body ?? {} });

/** A verified account sending through the simulator from its own number, with quiet hours 21:00-08:00 on. */
async function sender() {
  const acc = await t.signUpVerified();
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: true, quietHoursStart: "21:00", quietHoursEnd: "08:00" } });
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await t.api(`/api/sms-providers/${provider.body.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 0 } } });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  const number = await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 0 });
  expect(number.status).toBe(201);
  return { acc, numberId: number.body.id as string, providerId: provider.body.id as string, from: number.body.phoneNumber as string };
}

async function campaign(acc: Account, recipients: string[], scheduledAt?: number) {
  const c = await post(acc, "/api/campaigns", { type: "sms", name: "Sale", content: "Sale tonight", recipients });
  expect(c.status).toBe(201);
  const sent = await post(acc, `/api/campaigns/${c.body.id}/send`, scheduledAt ? { scheduledAt: new Date(scheduledAt).toISOString() } : {});
  expect(sent.status).toBe(202);
  return c.body.id as string;
}

const db = () => t.ctx.db.$client;
const campaignRow = (id: string) => db().query(`SELECT status, pause_reason FROM campaigns WHERE id = ?`).get(id) as { status: string; pause_reason: string | null };
const rowsOf = (id: string) =>
  db().query(`SELECT status, error_message FROM messages WHERE campaign_id = ? ORDER BY phone`).all(id) as { status: string; error_message: string | null }[];
const messageStatus = (id: string) => (db().query(`SELECT status FROM messages WHERE id = ?`).get(id) as { status: string }).status;

/** A queued one-off text due now, written straight into the outbox (as any code path could, at any moment). */
function queueSingle(s: Awaited<ReturnType<typeof sender>>, userId: string, phone: string): string {
  const id = Bun.randomUUIDv7();
  const now = t.ctx.now();
  db()
    .query(
      `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, provider_id, phone_number_id, from_number, segments, next_attempt_at, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, 'Hello', 'outbound', 'queued', 'single', ?, ?, ?, 1, 0, ?, ?, ?)`,
    )
    .run(id, userId, phone, s.providerId, s.numberId, s.from, now + HOUR, now, now);
  return id;
}

describe("disabling a user stops their sending", () => {
  test("scheduled and sending campaigns are cancelled with the reason, queued rows end cancelled, sessions end; nothing goes out later", async () => {
    const s = await sender();
    const sending = await campaign(s.acc, ["+14155550101", "+14155550102", "+14155550103"]);
    const scheduled = await campaign(s.acc, ["+14155550104", "+14155550105"], t.ctx.now() + HOUR);
    // Quiet hours hold the marketing rows in the outbox.
    await waitFor(() => rowsOf(sending).map((r) => r.status), (s) => s.length === 3 && s.every((x) => x === "queued"));
    expect(campaignRow(sending).status).toBe("sending");
    expect(campaignRow(scheduled).status).toBe("scheduled");

    const res = await post(admin, `/api/admin/users/${s.acc.user.id}/disable`);
    expect(res.status).toBe(200);
    expect(res.body.data.disabled).toBe(true);

    expect(campaignRow(sending)).toEqual({ status: "cancelled", pause_reason: ACCOUNT_DISABLED });
    expect(campaignRow(scheduled)).toEqual({ status: "cancelled", pause_reason: ACCOUNT_DISABLED });
    expect(ACCOUNT_DISABLED).toBe("Account disabled by an administrator");
    expect(rowsOf(sending)).toEqual([
      { status: "cancelled", error_message: "Account disabled by an administrator" },
      { status: "cancelled", error_message: "Account disabled by an administrator" },
      { status: "cancelled", error_message: "Account disabled by an administrator" },
    ]);
    expect((db().query(`SELECT count(*) AS n FROM jobs WHERE ref_id = ? AND state = 'pending'`).get(scheduled) as { n: number }).n).toBe(0);
    expect((await t.api("/api/campaigns", { token: s.acc.token })).status).toBe(401);

    // Its time comes (fake clock): the scheduler starts nothing.
    const realNow = t.ctx.now;
    t.ctx.now = () => realNow() + HOUR + 1000;
    try {
      await runDueJobs(t.ctx);
    } finally {
      t.ctx.now = realNow;
    }
    expect(campaignRow(scheduled).status).toBe("cancelled");
    expect(rowsOf(scheduled)).toEqual([]);
  });

  test("the sending manager claims nothing of a disabled account, even rows written after it was disabled", async () => {
    const off = await sender();
    const on = await sender();
    const res = await post(admin, `/api/admin/users/${off.acc.user.id}/disable`);
    expect(res.status).toBe(200);
    // Written after the disable (a keyword reply, an automation): it must still never be claimed.
    const stuck = queueSingle(off, off.acc.user.id, "+14155550110");
    // Two rows of an enabled account, each sent by a pass that had the disabled account's lane in front of it.
    for (const phone of ["+14155550111", "+14155550112"]) {
      const control = queueSingle(on, on.acc.user.id, phone);
      t.ctx.sending.wake();
      await waitFor(() => messageStatus(control), (s) => s === "delivered" || s === "sent");
    }
    expect(messageStatus(stuck)).toBe("queued");
    expect((db().query(`SELECT attempts FROM messages WHERE id = ?`).get(stuck) as { attempts: number }).attempts).toBe(0);
  });

  test("an account disabled without the admin action (written between) has its due schedule cancelled, not sent", async () => {
    const s = await sender();
    const scheduled = await campaign(s.acc, ["+14155550106"], t.ctx.now() + HOUR);
    t.ctx.db.update(users).set({ disabled: true }).where(eq(users.id, s.acc.user.id)).run();
    const realNow = t.ctx.now;
    t.ctx.now = () => realNow() + HOUR + 1000;
    try {
      await runDueJobs(t.ctx);
    } finally {
      t.ctx.now = realNow;
    }
    expect(campaignRow(scheduled)).toEqual({ status: "cancelled", pause_reason: ACCOUNT_DISABLED });
    expect(rowsOf(scheduled)).toEqual([]);
  });
});
