/**
 * The write-ahead log while a large campaign's outbox is written in chunks (issue 17, src/campaigns/outbox-writer.ts).
 * Chunks committed back to back never let a checkpoint catch up with them, so the log never started again from its
 * beginning: it grew by about 6 KB a recipient (1.8 GB at 300,000, gigabytes written to disk while /api/health
 * waited), and when the writing ended the connection's own checkpoint folded the rest on the main thread. The
 * writer now waits for a checkpoint on the worker every few thousand rows, and the log stays small.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdCheckpoints } from "../../db/checkpoints";
import { startTestServer, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  // The plans' monthly messages would refuse this audience; the limit check is not what is tested here.
  t.ctx.db.$client.run("UPDATE plans SET monthly_messages = -1, monthly_contacts = -1");
});
afterAll(() => t?.stop());

const db = () => t.ctx.db.$client;
const RECIPIENTS = 30_000;

test(`${RECIPIENTS.toLocaleString("en-US")} recipients: the log never passes 24 MB, the main connection never waits for a lock, and its own checkpoint is back after`, async () => {
  const acc = await t.signUpVerified();
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  const provider = await t.api("/api/sms-providers", {
    method: "POST",
    token: acc.token,
    body: { provider: "simulator", displayName: "Simulator" },
  });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  const number = { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 1 };
  expect((await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: number })).status).toBe(201);
  const insert = db().prepare(
    `INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`,
  );
  db().transaction(() => {
    for (let i = 0; i < RECIPIENTS; i++)
      insert.run(Bun.randomUUIDv7(), acc.user.id, `Guest${i}`, `+1415${String(2_000_000 + i)}`, Date.now());
  })();
  const campaign = await t.api("/api/campaigns", {
    method: "POST",
    token: acc.token,
    body: { name: "Big", content: "Hi [Name]", audience: { kind: "all" } },
  });
  expect(campaign.status).toBe(201);
  // The log's file keeps the size of its longest run (it is written over from the start, not cut), so its size
  // afterwards is the most it held; emptied here, it measures this write alone.
  db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const wal = join(t.dataDir, "smsdesk.db-wal");
  expect(statSync(wal).size).toBe(0);
  // A lock the checkpoint thread held against the main connection would fail its statement at once instead of
  // sleeping in the busy handler with the event loop held.
  db().exec("PRAGMA busy_timeout = 0");
  try {
    const send = await t.api(`/api/campaigns/${campaign.body.id}/send`, { method: "POST", token: acc.token, body: {} });
    expect(send.body).toMatchObject({ queued: 0, campaign: { writingOutbox: true } });
    const writing = () =>
      (db().query(`SELECT outbox_writing FROM campaigns WHERE id = ?`).get(campaign.body.id) as { outbox_writing: string | null })
        .outbox_writing;
    await waitFor(writing, (w) => w === null, 60_000);
  } finally {
    db().exec("PRAGMA busy_timeout = 5000");
  }
  expect(db().query(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`).get(campaign.body.id)).toEqual({ n: RECIPIENTS });
  expect(t.logs.filter((l) => l.startsWith("campaigns:") || l.startsWith("db:"))).toEqual([]);
  // Before: 53 MB at 20,000 recipients and 96 MB at 50,000 (and 1.8 GB at 300,000); now about 12 MB at any size.
  expect(statSync(wal).size).toBeLessThan(24 * 1024 * 1024);
  // The writer waits for its last checkpoint before it lets go, and the connection checkpoints itself again.
  await waitFor(
    () => db().query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number },
    (r) => r.wal_autocheckpoint === 1000,
  );
}, 120_000);

test("holdCheckpoints: the connection's own checkpoint is off while any run holds it; an awaited checkpoint lets the next commit start the log again", async () => {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-ckpt-"));
  const file = join(dir, "t.db");
  const main = new Database(file);
  const other = new Database(file);
  try {
    main.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE t (x TEXT)");
    const insert = main.prepare("INSERT INTO t VALUES (randomblob(3000))");
    const commit = (rows: number) => main.transaction(() => Array.from({ length: rows }, () => insert.run()))();
    const autocheckpoint = () =>
      (main.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
    // How many frames the log holds (this passive checkpoint folds them, so it is read once, at the end).
    const frames = () => (other.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number }).log;
    const logs: string[] = [];
    const a = holdCheckpoints(main, (l) => logs.push(l));
    const b = holdCheckpoints(main, (l) => logs.push(l));
    expect(autocheckpoint()).toBe(0);
    // 1,500 pages and more: past the 1,000 at which the connection would have checkpointed itself (and started over).
    for (let i = 0; i < 15; i++) commit(100);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_500 * 4096);
    // Folded by the worker, the log starts again at the next commit: one page and the commit's, not 1,500 more.
    await a.checkpoint();
    commit(1);
    expect(frames()).toBeLessThan(10);
    a.release();
    a.release();
    expect(autocheckpoint()).toBe(0);
    b.release();
    expect(autocheckpoint()).toBe(1000);
    expect(logs).toEqual([]);
  } finally {
    other.close();
    main.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the log file is cut back to the connection's journal_size_limit when it starts again after a run, not at each restart during it", async () => {
  // The app's connections keep at most 64 MB of log file (a million-row import left 400 MB on disk).
  expect(db().query("PRAGMA journal_size_limit").get()).toEqual({ journal_size_limit: 64 * 1024 * 1024 });
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-ckpt-"));
  const file = join(dir, "t.db");
  const main = new Database(file);
  try {
    main.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 1048576; CREATE TABLE t (x TEXT)");
    const insert = main.prepare("INSERT INTO t VALUES (randomblob(3000))");
    const commit = (rows: number) => main.transaction(() => Array.from({ length: rows }, () => insert.run()))();
    const logBytes = () => statSync(`${file}-wal`).size;
    const run = holdCheckpoints(main, () => {});
    expect(main.query("PRAGMA journal_size_limit").get()).toEqual({ journal_size_limit: -1 });
    for (let i = 0; i < 20; i++) commit(100);
    const grown = logBytes();
    expect(grown).toBeGreaterThan(2_000 * 4096);
    // Folded and started again during the run: the file is reused at its size.
    await run.checkpoint();
    commit(1);
    expect(logBytes()).toBe(grown);
    await run.checkpoint();
    run.release();
    expect(main.query("PRAGMA journal_size_limit").get()).toEqual({ journal_size_limit: 1048576 });
    // The next start of the log after the run cuts the file back to the limit.
    commit(1);
    expect(logBytes()).toBeLessThanOrEqual(1048576);
  } finally {
    main.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
