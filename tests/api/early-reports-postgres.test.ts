// Issue 31 item 2 on PostgreSQL: a delivery report that reaches one process before another has recorded its
// message's provider id is held in early_reports (src/messages/messages.ts), not in a process's memory, and is applied
// once: by the recording process, which takes the reports held for its batch after its commit, or, when the report
// was held by a transaction that committed after that take, by the holder, which looks again after its own commit.
// Also: the event log's trigger notifies listeners of what is appended (migration 0081, src/live/hub.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { migratePostgres } from "../../db/postgres/migrate";
import { openPostgresRecords, type PostgresRecords } from "../../db/postgres/records-db";
import { EARLY_REPORT_TTL_MS, PUT_EARLY_SQL_POSTGRES, TAKE_EARLY_SQL_POSTGRES, TAKE_RECORDED_SQL_POSTGRES, TRIM_EARLY_SQL } from "../../src/messages/messages";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";

const T0 = 1_800_000_000_000;

let pg: ThrowawayDatabase;
let records: PostgresRecords;
beforeAll(async () => {
  pg = await throwawayDatabase();
  await migratePostgres(pg.sql);
  records = openPostgresRecords(pg.sql);
  await records.run(`INSERT INTO users (id, email, created_at, updated_at) VALUES ('u1', 'pat@example.com', 0, 0)`);
  await records.run(`INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, created_at) VALUES ('a1', 'u1', 'twilio', 'Twilio', '', 0)`);
});
afterAll(async () => {
  await records?.close();
  await pg?.drop();
});

const hold = (id: string, status = "delivered", at = T0) => records.run(PUT_EARLY_SQL_POSTGRES, ["u1", "a1", at, JSON.stringify([[id, status, null, null]])]);
const take = (sql: string, ids: string[], now = T0) => records.rows(sql, [now - EARLY_REPORT_TTL_MS, JSON.stringify(ids.map((id) => ["a1", id]))]);

test("held reports are taken once, by provider id, unexpired; a second report for one message replaces the first", async () => {
  await hold("SM1", "sent");
  await hold("SM1", "delivered");
  await hold("SM2", "failed", T0 - EARLY_REPORT_TTL_MS - 1);
  expect(await take(TAKE_EARLY_SQL_POSTGRES, ["SM1", "SM2", "SM3"])).toEqual([
    { providerId: "a1", providerMessageId: "SM1", status: "delivered", errorCode: null, errorMessage: null },
  ]);
  expect(await take(TAKE_EARLY_SQL_POSTGRES, ["SM1"])).toEqual([]);
  // The expired one goes with the account's next trim; so do those beyond the newest 10,000 (here: the newest 1).
  await hold("SM4");
  await hold("SM5");
  await records.run(TRIM_EARLY_SQL, ["u1", T0 - EARLY_REPORT_TTL_MS, "u1", 1]);
  expect((await records.rows<{ id: string }>(`SELECT provider_message_id AS id FROM early_reports`)).map((r) => r.id)).toEqual(["SM5"]);
  await take(TAKE_EARLY_SQL_POSTGRES, ["SM5"]);
});

test("a report held by process B while process A records its message: applied once whichever commits last", async () => {
  await records.run(`INSERT INTO messages (id, user_id, phone, content, direction, status, created_at, updated_at) VALUES ('m1', 'u1', '+14155550101', 'Hi', 'outbound', 'sending', 0, 0)`);
  const a = await pg.sql.reserve();
  const b = await pg.sql.reserve();
  const numbered = (text: string) => {
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  };
  try {
    // B: the report comes, its message has no provider id yet (A's is not committed): B holds it, uncommitted.
    await b.unsafe("BEGIN");
    expect(await b.unsafe(`SELECT id FROM messages WHERE provider_id = 'a1' AND provider_message_id = 'SM9'`)).toHaveLength(0);
    await b.unsafe(numbered(PUT_EARLY_SQL_POSTGRES), ["u1", "a1", T0, JSON.stringify([["SM9", "delivered", null, null]])]);
    // A: records the id and commits, then looks for held reports: B's is not committed, so A finds none.
    await a.unsafe(`UPDATE messages SET provider_id = 'a1', provider_message_id = 'SM9', status = 'sent' WHERE id = 'm1'`);
    expect(await a.unsafe(numbered(TAKE_EARLY_SQL_POSTGRES), [T0 - EARLY_REPORT_TTL_MS, JSON.stringify([["a1", "SM9"]])])).toHaveLength(0);
    // B commits, and looks again for its held reports whose message has its id now: it finds it, to apply it itself.
    await b.unsafe("COMMIT");
    const found = await b.unsafe(numbered(TAKE_RECORDED_SQL_POSTGRES), [T0 - EARLY_REPORT_TTL_MS, JSON.stringify([["a1", "SM9"]])]);
    expect([...found]).toEqual([{ providerId: "a1", providerMessageId: "SM9", status: "delivered", errorCode: null, errorMessage: null }]);
    // Taken once: nothing left for anyone.
    expect(await take(TAKE_EARLY_SQL_POSTGRES, ["SM9"])).toEqual([]);
  } finally {
    a.release();
    b.release();
  }
});

test("a held report whose message has no id yet stays for the recorder", async () => {
  await hold("SM10");
  expect(await take(TAKE_RECORDED_SQL_POSTGRES, ["SM10"])).toEqual([]);
  expect(await take(TAKE_EARLY_SQL_POSTGRES, ["SM10"])).toHaveLength(1);
});
