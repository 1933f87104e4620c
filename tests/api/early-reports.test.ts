// Issue 31 item 2: a delivery report that reaches one process of an installation (B) before another (A) has recorded
// its message's provider id is held in the database (early_reports), so A applies it when it records the id; kept in
// B's memory, it was lost and the message stayed 'sent'. Two apps on one SQLite database, as in shared-limits.test.ts.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { AppContext } from "../../src/context";
import { applyStatusEvents, earlyReportCount } from "../../src/messages/messages";
import { outboxStore } from "../../src/messages/outbox-store";
import { findProviderById } from "../../src/providers/accounts";
import { openAppContext } from "../../src/server";
import { startTestServer, type TestServer } from "../support/test-server";

setDefaultTimeout(60_000);

let a: TestServer;
let b: AppContext;
beforeAll(async () => {
  a = await startTestServer({ smtp: false, dev: true });
  b = await openAppContext(a.ctx.config, () => {});
});
afterAll(async () => {
  for (const hook of b?.onStop ?? []) await hook();
  await a?.stop();
});

test("a report held by process B is applied by process A when A records the message's provider id", async () => {
  const acc = await a.signUpVerified();
  const created = await a.api("/api/sms-providers", { token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  expect(created.status).toBe(201);
  const account = (await findProviderById(b, created.body.id))!;
  const now = Date.now();
  // A message A has handed to the provider: marked sending, its provider id not recorded yet.
  a.ctx.db.$client.run(
    `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, segments, attempts, provider_id, created_at, updated_at)
     VALUES ('m-early', ?, '+14155550123', 'Hi', 'outbound', 'sending', 'single', 1, 1, ?, ?, ?)`,
    [acc.user.id, account.id, now, now],
  );
  // The provider's reports reach B first: B finds no message with that id, and holds the last of them.
  const reports = [
    { type: "status" as const, providerMessageId: "SIM-early", status: "sent" as const },
    { type: "status" as const, providerMessageId: "SIM-early", status: "delivered" as const },
  ];
  expect(await applyStatusEvents(b, account, reports)).toEqual([]);
  expect(await earlyReportCount(a.ctx, acc.user.id)).toBe(1);
  // A records the call's answer: the report held by B is applied to it.
  const row = { id: "m-early", userId: acc.user.id, campaignId: null, phone: "+14155550123", content: "Hi", segments: 1, attempts: 1 };
  await outboxStore(a.ctx).record([{ row, kind: "accepted", accountId: account.id, providerMessageId: "SIM-early", status: "sent", segments: 1 }], [], now);
  expect(a.ctx.db.$client.query(`SELECT status, provider_message_id AS pid FROM messages WHERE id = 'm-early'`).get()).toEqual({ status: "delivered", pid: "SIM-early" });
  expect(await earlyReportCount(a.ctx, acc.user.id)).toBe(0);
});
