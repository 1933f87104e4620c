/**
 * `smsdesk migrate --to postgres://...` (issue 31 item 3): a SQLite installation copied into an empty PostgreSQL
 * database (a real process of the command line), every table's rows counted and summed alike on both sides, the
 * counters copied as SQLite kept them (not counted again by the triggers) and the triggers and numbering working
 * afterwards; a database that is not empty, and a data folder whose server runs, refused with the reason; rows
 * written in batches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateUpTo, openDatabase, type Db } from "../../db/client";
import { migrationJournal } from "../../db/migrations/embedded";
import { copySqliteToPostgres } from "../../db/postgres/copy";
import { readSqliteSchema } from "../../db/postgres/sqlite-schema";
import { dataDirInstanceId } from "../../src/secrets/instance";
import { loadOrCreateSecretKey } from "../../src/secrets/secret-key";
import { startChildServer } from "../support/child-server";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";

const root = join(import.meta.dir, "../..");
const CONTACTS = 2_345;
const MESSAGES = 1_200;

let dataDir: string;
let db: Db;
let counts: Record<string, number>;
let total: number;
const targets: ThrowawayDatabase[] = [];

function migrate(url: string, env: Record<string, string> = {}) {
  const r = spawnSync(join(root, "node_modules/.bin/bun"), ["src/main.ts", "migrate", "--to", url], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, DATA_DIR: dataDir, SECRET_KEY_FILE: "", DATABASE_URL: "", ...env },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

type Row = Record<string, any>;
const plain = (rows: Row[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v])));

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "smsdesk-migrate-"));
  loadOrCreateSecretKey(dataDir);
  db = openDatabase(join(dataDir, "smsdesk.db"));
  const s = db.$client;
  s.transaction(() => {
    s.exec(`INSERT INTO users (id, email) VALUES ('u1', 'owner@example.com'), ('u2', 'other@example.com')`);
    s.exec(`INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted) VALUES ('p1', 'u1', 'twilio', 'Main', 'sealed')`);
    s.exec(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number) VALUES ('n1', 'u1', 'p1', '+14155550100')`);
    s.exec(`INSERT INTO campaigns (id, user_id, name) VALUES ('k1', 'u1', 'Spring sale')`);
    const contact = s.prepare(
      "INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, created_at, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    for (let i = 0; i < CONTACTS; i++)
      contact.run(
        `c${i}`,
        i % 5 === 0 ? "u2" : "u1",
        ["José", "Straße", "Ann", "Łukasz"][i % 4]!,
        `N${i}`,
        i % 3 ? `c${i}@example.com` : null,
        `+1415555${String(i).padStart(4, "0")}`,
        1795500000000 + i * 60_000,
        i % 7 ? "[]" : `["vip","t${i % 3}"]`,
      );
    const message = s.prepare(
      `INSERT INTO messages (id, user_id, phone, content, direction, status, campaign_id, phone_number_id, provider_id, segments,
        segment_price_micros, created_at, sent_at, contact_id) VALUES (?, 'u1', ?, ?, ?, ?, ?, 'n1', 'p1', ?, 7900, ?, ?, ?)`,
    );
    for (let i = 0; i < MESSAGES; i++) {
      const status = ["queued", "sent", "delivered", "failed", "received"][i % 5]!;
      message.run(
        `m${i}`,
        `+1415555${String(i).padStart(4, "0")}`,
        `Text ${i} with ünïcode ✓`,
        status === "received" ? "inbound" : "outbound",
        status,
        status === "received" ? null : "k1",
        1 + (i % 3),
        1795500000000 + i * 1000,
        status === "sent" || status === "delivered" ? 1795500000000 + i * 1000 + 500 : null,
        `c${i}`,
      );
    }
    s.exec(`INSERT INTO events (user_id, type, subject_kind, subject_id, payload, created_at) SELECT 'u1', 'message.sent', 'message', id, '{}', 1795500000000 FROM messages WHERE status = 'sent'`);
  })();
  const schema = readSqliteSchema(s);
  counts = Object.fromEntries(schema.tables.map((t) => [t.name, (s.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as Row).n as number]));
  total = Object.values(counts).reduce((a, b) => a + b, 0);
  db.$client.close();
});
afterAll(async () => {
  for (const t of targets) await t.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("smsdesk migrate --to", () => {
  test("copies every table into an empty database, verifies counts and checksums, and prints what to change", async () => {
    const pg = await throwawayDatabase();
    targets.push(pg);
    // What the rows made above add up to, counted apart from either database.
    const ids = [...Array(CONTACTS).keys()];
    const of = (user: string) => ids.filter((i) => (i % 5 === 0 ? "u2" : "u1") === user);
    const tagged = ids.filter((i) => i % 7 === 0).length;
    expect([counts.contacts, counts.messages, counts.events, counts.contact_names, counts.contact_tags]).toEqual([CONTACTS, MESSAGES, 240, CONTACTS, 2 * tagged]);
    const r = migrate(pg.url);
    expect(r.status).toBe(0);
    const tables = Object.keys(counts).length;
    expect(r.out).toContain(`smsdesk migrate: copying ${join(dataDir, "smsdesk.db")} into ${pg.url}`);
    expect(r.out).toContain(
      `Verified: ${tables} tables, ${total.toLocaleString("en-US")} rows; each table's row count and checksum are the same in SQLite and PostgreSQL.`,
    );
    expect(r.out).toMatch(/\n {2}contacts +2,345 {2}[0-9a-f]{16}\n/);
    expect(r.out).toMatch(/\n {2}messages +1,200 {2}[0-9a-f]{16}\n/);
    expect(r.out).toContain(`  1. Every process of the installation: DATABASE_URL=${pg.url} (with its password).`);
    expect(r.out).toContain(`  2. The secret key: copy ${join(dataDir, "secret.key")} into each process's DATA_DIR as secret.key`);
    expect(r.out).toContain(`(instance ${dataDirInstanceId(dataDir)})`);

    // Every table holds what SQLite held, and the counters were copied, not counted again by the triggers.
    for (const [table, n] of Object.entries(counts)) {
      const [row] = (await pg.sql.unsafe(`SELECT count(*) AS n FROM "${table}"`)) as Row[];
      expect([table, Number(row!.n)]).toEqual([table, n]);
    }
    const totals = plain((await pg.sql`SELECT user_id, total, with_email, with_phone FROM contact_totals ORDER BY user_id`) as Row[]);
    expect(totals).toEqual(
      ["u1", "u2"].map((user) => ({
        user_id: user,
        total: of(user).length,
        with_email: of(user).filter((i) => i % 3 !== 0).length,
        with_phone: of(user).length,
      })),
    );
    expect(totals.map((t) => t.total)).toEqual([1876, 469]);
    const counted = plain((await pg.sql`SELECT status, n, unsent FROM campaign_message_counts ORDER BY status`) as Row[]);
    expect(counted).toEqual([
      { status: "delivered", n: 240, unsent: 0 },
      { status: "failed", n: 240, unsent: 240 },
      { status: "queued", n: 240, unsent: 240 },
      { status: "sent", n: 240, unsent: 0 },
    ]);
    const [stored] = (await pg.sql`SELECT key_fingerprint FROM smsdesk_installation`) as Row[];
    expect(stored!.key_fingerprint).toBe(dataDirInstanceId(dataDir));

    // Afterwards the triggers count again and the numbering goes on from the copied rows.
    await pg.sql`INSERT INTO contacts (id, user_id, first_name, last_name, phone, created_at) VALUES ('new', 'u2', 'Zoë', 'New', '+14155559999', 1795600000000)`;
    const [after] = (await pg.sql`SELECT total FROM contact_totals WHERE user_id = 'u2'`) as Row[];
    expect(Number(after!.total)).toBe(470);
    const [rowid] = (await pg.sql`SELECT rowid FROM contacts WHERE id = 'new'`) as Row[];
    expect(Number(rowid!.rowid)).toBe(CONTACTS + 1);
    const [event] = (await pg.sql`INSERT INTO events (user_id, type, subject_kind, subject_id, payload, created_at) VALUES ('u1', 'x', 'message', 'm1', '{}', 1) RETURNING id`) as Row[];
    expect(Number(event!.id)).toBe(241);
    const names = (await pg.sql`SELECT count(*) AS n FROM contact_names WHERE user_id = 'u2'`) as Row[];
    expect(Number(names[0]!.n)).toBe(470);
  }, 180_000);

  test("a database that is not empty is refused, and left as it was", async () => {
    const pg = await throwawayDatabase();
    targets.push(pg);
    await pg.sql`CREATE TABLE notes (id int)`;
    const r = migrate(pg.url);
    expect(r.status).toBe(2);
    expect(r.out).toContain(
      `smsdesk: The PostgreSQL database 127.0.0.1:5432/${pg.name} is not empty (1 table(s): notes). smsdesk migrate copies only into an empty database: ` +
        "create a new one (CREATE DATABASE ...) and give its URL.",
    );
    const tables = (await pg.sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`) as Row[];
    expect(tables.map((t) => t.table_name)).toEqual(["notes"]);
  }, 60_000);

  test("the data folder of a running server is refused: the copy would miss what it writes", async () => {
    const pg = await throwawayDatabase();
    targets.push(pg);
    const server = await startChildServer({ DATA_DIR: dataDir });
    try {
      const r = migrate(pg.url);
      expect(r.status).toBe(2);
      expect(r.out).toContain(`smsdesk: Another smsdesk process (pid ${server.process.pid}) is serving the data folder ${dataDir}.`);
    } finally {
      await server.kill();
    }
    const tables = (await pg.sql`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'`) as Row[];
    expect(Number(tables[0]!.n)).toBe(0);
  }, 60_000);

  test("a database of an older version is refused: this version's tables would not fit it", async () => {
    const pg = await throwawayDatabase();
    targets.push(pg);
    const olderDir = mkdtempSync(join(tmpdir(), "smsdesk-migrate-old-"));
    try {
      loadOrCreateSecretKey(olderDir);
      const older = migrateUpTo(migrationJournal.entries.at(-2)!.when);
      older.exec(`VACUUM INTO '${join(olderDir, "smsdesk.db")}'`);
      older.close();
      const r = migrate(pg.url, { DATA_DIR: olderDir });
      expect(r.status).toBe(2);
      expect(r.out).toContain(
        `smsdesk: ${join(olderDir, "smsdesk.db")} is from an older smsdesk: start this version on it once (it migrates it, after a backup), stop it, then copy`,
      );
    } finally {
      rmSync(olderDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("no target, or not a postgres URL: the usage", () => {
    expect(migrate("mysql://x/y")).toEqual({ status: 2, out: "smsdesk: migrate --to needs a postgres:// URL: smsdesk migrate --to postgres://user:password@host:5432/database\n" });
  });

  test("rows are written in batches of the size asked, read one at a time from SQLite", async () => {
    const pg = await throwawayDatabase();
    targets.push(pg);
    const source = openDatabase(join(dataDir, "smsdesk.db"));
    try {
      const report = await copySqliteToPostgres(source.$client, pg.url, { keyFingerprint: "f", keySource: "test", batchRows: 500 });
      const of = (name: string) => report.tables.find((t) => t.table === name)!;
      expect([of("contacts").rows, of("contacts").batches]).toEqual([CONTACTS, 5]);
      expect([of("messages").rows, of("messages").batches]).toEqual([MESSAGES, 3]);
      // The server of the test before wrote its own rows (settings, jobs) since: counted again here.
      const now = readSqliteSchema(source.$client).tables.map((t) => (source.$client.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as Row).n as number);
      expect(report.rows).toBe(now.reduce((a, b) => a + b, 0));
      expect(report.rows).toBeGreaterThan(total);
    } finally {
      source.$client.close();
    }
  }, 120_000);
});
