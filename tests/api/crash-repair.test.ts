// A database left half-written by a crash in an older version (before each of these writes was one transaction)
// is repaired when the server starts again, on the same data folder.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { campaigns } from "../../db/schema";
import { eq } from "drizzle-orm";
import { PARKED } from "../../src/messages/due";
import { resolveRecipients, writeOutbox } from "../../src/campaigns/outbox";
import { loadConfig } from "../../src/config";
import { startServer, type RunningServer } from "../../src/server";
import { findUserByEmail } from "../../src/users/queries";
import { waitFor } from "../support/wait";

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-repair-"));
const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "", ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "repair-test-pass" };
let server: RunningServer | null = null;
const logs: string[] = [];

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(path: string, token?: string, body?: unknown, method?: string) {
  const res = await fetch(server!.url + path, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    // The sign-in comes from the appliance's own page, as a browser's would.
    headers: { "content-type": "application/json", origin: new URL(server!.ctx.config.publicUrl).origin, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test("at start-up: rows without a started campaign start it, a claimed job that never ran is back, a finished campaign still 'sending' is settled", async () => {
  server = await startServer(loadConfig(env, []), (l) => logs.push(l));
  const token = (await api("/api/auth/login", undefined, { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD })).body.token as string;
  await api("/api/user/settings", token, { quietHoursEnabled: false }, "PATCH");
  const provider = (await api("/api/sms-providers", token, { provider: "simulator", displayName: "Simulator" })).body;
  await api(`/api/sms-providers/${provider.id}`, token, { settings: { deliveryDelayMs: 0 } }, "PATCH");
  const numbers = (await api(`/api/providers/${provider.id}/available-numbers`, token)).body.numbers;
  const number = await api("/api/phone-numbers", token, { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 0 });
  expect(number.status).toBe(201);
  const draft = async (name: string) =>
    (await api("/api/campaigns", token, { type: "sms", name, content: "Hello", recipients: ["+14155550101", "+14155550102", "+14155550103"] })).body.id as string;
  const ctx = server.ctx;
  const db = ctx.db.$client;
  const user = (await findUserByEmail(ctx, env.ADMIN_EMAIL))!;

  // A: the outbox rows were written, the status was not; the engine parked the rows of a campaign still a draft.
  const a = await draft("A");
  const rowA = ctx.db.select().from(campaigns).where(eq(campaigns.id, a)).get()!;
  const { recipients } = await resolveRecipients(ctx, user, rowA);
  await writeOutbox(ctx, user, rowA, recipients, { numberId: number.body.id, providerId: provider.id, phoneNumber: number.body.phoneNumber }, ctx.now());
  db.query(`UPDATE messages SET next_attempt_at = ? WHERE campaign_id = ?`).run(PARKED, a);
  // B: scheduled; its start job was claimed, then the process died before starting it.
  const b = await draft("B");
  const at = Date.now() + 3600_000;
  expect((await api(`/api/campaigns/${b}/send`, token, { scheduledAt: new Date(at).toISOString() })).status).toBe(202);
  db.query(`UPDATE jobs SET state = 'done' WHERE ref_id = ?`).run(b);
  // C: every message went out, the campaign's own status was never settled.
  const c = await draft("C");
  expect((await api(`/api/campaigns/${c}/send`, token, {})).status).toBe(202);
  await waitFor(() => api(`/api/campaigns/${c}`, token).then((r) => r.body), (v) => v.status === "completed" && v.counts.delivered === 3);
  db.query(`UPDATE campaigns SET status = 'sending', completed_at = NULL WHERE id = ?`).run(c);

  await server.stop();
  server = await startServer(loadConfig(env, []), (l) => logs.push(l));
  expect(logs).toContain("sending: 3 campaign(s) left half-written by an earlier crash were repaired");

  const doneA = await waitFor(() => api(`/api/campaigns/${a}`, token).then((r) => r.body), (v) => v.status === "completed" && v.counts.delivered === 3, 15_000);
  expect(doneA).toMatchObject({ status: "completed", counts: { recipients: 3, delivered: 3, pending: 0 } });
  expect(doneA.sentAt).not.toBeNull();
  const scheduledAt = (server.ctx.db.$client.query(`SELECT scheduled_at FROM campaigns WHERE id = ?`).get(b) as { scheduled_at: number }).scheduled_at;
  expect(Math.abs(scheduledAt - at)).toBeLessThan(1000);
  expect(server.ctx.db.$client.query(`SELECT run_at, state FROM jobs WHERE ref_id = ? AND state = 'pending'`).all(b)).toEqual([{ run_at: scheduledAt, state: "pending" }]);
  expect((await api(`/api/campaigns/${b}`, token)).body.status).toBe("scheduled");
  expect((await api(`/api/campaigns/${c}`, token)).body).toMatchObject({ status: "completed", counts: { delivered: 3 } });
});
