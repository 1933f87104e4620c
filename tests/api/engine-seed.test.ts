// What a restart counts into each number's pace (issue 29 item 4): the outbox store's recentCalls, on the real
// schema, finds the calls of the last second through the event log (accepted ones, at their sent_at) and the rows
// left mid-call ('sending', at the moment they were marked), per sender number, each once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { outboxStore } from "../../src/messages/outbox-store";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
let twilio: TwilioFake;
beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550170" }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
});
afterAll(async () => {
  await t?.stop();
  twilio?.stop();
});

test("the calls of the last second before a restart, per sender number, accepted and cut off alike", async () => {
  const acc = await t.signUpVerified();
  const post = (path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  const p = await post("/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
  const number = await post("/api/phone-numbers", { providerId: p.body.id, phoneNumber: "+14155550170", messagesPerSecond: 100 });
  const recipients = Array.from({ length: 20 }, (_, i) => `+1415${String(2100000 + i)}`);
  const c = await post("/api/campaigns", { name: "Seed", content: "Sale today", recipients });
  await post(`/api/campaigns/${c.body.id}/send`);
  await waitFor(() => t.api(`/api/campaigns/${c.body.id}`, { token: acc.token }).then((r) => r.body.status), (s) => s === "completed", 20_000);
  const db = t.ctx.db.$client;
  const rows = db.query(`SELECT id, sent_at AS at, segments FROM messages WHERE campaign_id = ? ORDER BY sent_at`).all(c.body.id) as { id: string; at: number; segments: number }[];
  // One of them as a crash would leave it: marked sending (at its updated_at), no answer recorded.
  const cut = rows.at(-1)!;
  db.run(`UPDATE messages SET status = 'sending', sent_at = NULL, updated_at = ? WHERE id = ?`, [cut.at, cut.id]);
  const since = rows[0]!.at;
  const calls = await outboxStore(t.ctx).recentCalls(since);
  expect(calls.length).toBe(20);
  expect(new Set(calls.map((x) => x.laneId))).toEqual(new Set([number.body.id]));
  expect(calls.map((x) => x.at).sort((a, b) => a - b)).toEqual(rows.map((r) => r.at));
  // Calls older than the window are left out.
  expect(await outboxStore(t.ctx).recentCalls(cut.at + 1)).toEqual([]);
  db.run(`UPDATE messages SET status = 'sent', sent_at = ? WHERE id = ?`, [cut.at, cut.id]);
});
