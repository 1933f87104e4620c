/**
 * One schema, two engines (issue 31 item 1): a PostgreSQL database migrated by db/postgres/migrate.ts has the tables,
 * columns, keys, indexes, foreign keys, triggers and seeded rows of a SQLite database migrated by db/client.ts; every
 * SQLite migration from the PostgreSQL baseline on has its PostgreSQL counterpart; the same writes leave the same
 * counters and rollups on both; the search's trigram index serves a substring query; several processes migrating
 * at once apply each migration once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { migrateUpTo } from "../../db/client";
import { migrationJournal } from "../../db/migrations/embedded";
import { POSTGRES_BASELINE } from "../../db/postgres/baseline";
import { KEPT_ROWIDS } from "../../db/postgres/ddl";
import { MIGRATION_LOCK, migratePostgres, postgresMigrations } from "../../db/postgres/migrate";
import { readSqliteSchema, type Schema } from "../../db/postgres/sqlite-schema";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";

const ROOT = join(import.meta.dir, "../..");
/** SQLite's FTS5 search table and its triggers; PostgreSQL's pg_trgm index on the same text stands for them. */
const SEARCH = { virtualTable: "contacts_fts", triggers: ["contacts_fts_ai", "contacts_fts_ad", "contacts_fts_au"], index: "contacts_search_idx" };
const TYPE_OF: Record<string, string> = { INTEGER: "bigint", TEXT: "text", REAL: "double precision", BLOB: "bytea", NUMERIC: "numeric" };

let pg: ThrowawayDatabase;
let sqlite: Database;
let lite: Schema;

beforeAll(async () => {
  pg = await throwawayDatabase();
  expect(await migratePostgres(pg.sql)).toEqual(postgresMigrations().map((m) => m.tag));
  sqlite = migrateUpTo(Infinity);
  lite = readSqliteSchema(sqlite);
});
afterAll(() => pg?.drop());

type Row = Record<string, any>;

describe("PostgreSQL migrations are numbered as SQLite's", () => {
  test("every SQLite migration from the baseline on has a PostgreSQL file of the same name, embedded", () => {
    const start = migrationJournal.entries.findIndex((e) => e.tag === POSTGRES_BASELINE);
    expect(start).toBeGreaterThanOrEqual(0);
    const missing = migrationJournal.entries
      .slice(start)
      .map((e) => e.tag)
      .filter((tag) => !existsSync(join(ROOT, "db/postgres/migrations", `${tag}.sql`)));
    // A new SQLite migration needs its PostgreSQL counterpart: run scripts/gen-postgres-migrations.ts (it writes plain
    // DDL changes itself and says what to write by hand).
    expect(missing).toEqual([]);
    expect(postgresMigrations().map((m) => m.tag)).toEqual(migrationJournal.entries.slice(start).map((e) => e.tag));
  });
});

describe("a freshly migrated PostgreSQL database has SQLite's schema", () => {
  test("the same tables, and in each the same columns, types, nullability and generated columns", async () => {
    const tables = (await pg.sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'smsdesk_migrations' ORDER BY 1`) as Row[];
    expect(tables.map((t) => t.table_name)).toEqual(lite.tables.map((t) => t.name).sort());
    const cols = (await pg.sql`SELECT table_name, column_name, data_type, is_nullable, is_generated FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> 'smsdesk_migrations' ORDER BY table_name, ordinal_position`) as Row[];
    const pgColumns = cols.map((c) => `${c.table_name}.${c.column_name} ${c.data_type}${c.is_nullable === "NO" ? " not null" : ""}${c.is_generated === "ALWAYS" ? " generated" : ""}`);
    const sqliteColumns = [...lite.tables]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .flatMap((t) => [
        ...t.columns.map((c) => `${t.name}.${c.name} ${TYPE_OF[c.type]}${c.notNull ? " not null" : ""}${c.generated ? " generated" : ""}`),
        // PostgreSQL has no rowid: the tables whose rowid is stored elsewhere keep it as a column.
        ...(KEPT_ROWIDS.includes(t.name) ? [`${t.name}.rowid bigint not null`] : []),
      ]);
    expect(pgColumns).toEqual(sqliteColumns);
  });

  test("the same primary keys, unique constraints and indexes (partial where SQLite's are)", async () => {
    const rows = (await pg.sql`SELECT t.relname AS tbl, i.relname AS name, x.indisunique AS uniq, x.indisprimary AS pk,
        x.indpred IS NOT NULL AS partial,
        (SELECT array_agg(a.attname ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS cols
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace ns ON ns.oid = t.relnamespace
      WHERE ns.nspname = 'public' AND t.relname <> 'smsdesk_migrations' ORDER BY 1, 2`) as Row[];
    const keys = rows.filter((r) => r.pk).map((r) => `${r.tbl} (${r.cols.join(",")})`);
    expect(keys).toEqual(lite.tables.filter((t) => t.primaryKey.length).map((t) => `${t.name} (${t.primaryKey.join(",")})`).sort());
    const rowids = rows.filter((r) => !r.pk && r.cols?.length === 1 && r.cols[0] === "rowid").map((r) => r.tbl);
    expect(rowids).toEqual(KEPT_ROWIDS);
    const named = rows
      .filter((r) => !r.pk && !(r.cols?.length === 1 && r.cols[0] === "rowid") && r.name !== SEARCH.index)
      .map((r) => `${r.name} on ${r.tbl} (${r.cols.join(",")})${r.uniq ? " unique" : ""}${r.partial ? " partial" : ""}`)
      .sort();
    const sqliteNamed = lite.indexes
      .map((i) => `${i.name} on ${i.table} (${i.columns.join(",")})${i.unique ? " unique" : ""}${i.where ? " partial" : ""}`)
      .sort();
    expect(named).toEqual(sqliteNamed);
    expect(lite.virtualTables).toEqual([SEARCH.virtualTable]);
    expect(rows.some((r) => r.name === SEARCH.index && r.tbl === "contacts")).toBe(true);
  });

  test("the same foreign keys, with the same ON DELETE", async () => {
    const rows = (await pg.sql`SELECT c.conrelid::regclass::text AS tbl, c.confrelid::regclass::text AS ref,
        (SELECT array_agg(a.attname ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS cols,
        c.confdeltype AS del
      FROM pg_constraint c JOIN pg_namespace ns ON ns.oid = c.connamespace WHERE c.contype = 'f' AND ns.nspname = 'public'`) as Row[];
    const action: Record<string, string> = { a: "NO ACTION", c: "CASCADE", n: "SET NULL", r: "RESTRICT", d: "SET DEFAULT" };
    const fromPg = rows.map((r) => `${r.tbl} (${r.cols.join(",")}) → ${r.ref} ${action[r.del]}`).sort();
    const fromSqlite = lite.tables
      .flatMap((t) => t.foreignKeys.map((fk) => `${t.name} (${fk.columns.join(",")}) → ${fk.table} ${fk.onDelete.toUpperCase()}`))
      .sort();
    expect(fromPg).toEqual(fromSqlite);
  });

  test("a trigger of the same name for each of SQLite's (the search's: the trigram index instead)", async () => {
    const rows = (await pg.sql`SELECT DISTINCT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE NOT t.tgisinternal AND ns.nspname = 'public' ORDER BY 1`) as Row[];
    // PostgreSQL's own: the event log's notification of the processes' live hubs (migration 0081), which SQLite, one
    // process, has no use for.
    expect(rows.map((r) => r.tgname).filter((name) => name !== "events_notify")).toEqual(lite.triggers.filter((t) => !SEARCH.triggers.includes(t)).sort());
  });

  test("the rows a fresh database starts with (plans, name folds, the conversation sequence) are the same", async () => {
    const seeded = lite.tables.filter((t) => (sqlite.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as Row).n > 0);
    expect(seeded.map((t) => t.name).sort()).toEqual(["conversation_sequence", "name_folds", "plans"]);
    for (const t of seeded) {
      const order = t.primaryKey.map((c) => `"${c}"`).join(", ");
      const fromSqlite = sqlite.query(`SELECT * FROM "${t.name}" ORDER BY ${order}`).all() as Row[];
      const fromPg = ((await pg.sql.unsafe(`SELECT * FROM "${t.name}" ORDER BY ${order}`)) as Row[]).map((r) => ({ ...r }));
      // A seeded plan's updated_at is when its migration ran: on SQLite now, on PostgreSQL when the baseline was written.
      const unstamped = (r: Row) => ({ ...normalise(r), updated_at: undefined });
      expect(fromPg.map(unstamped)).toEqual(fromSqlite.map(unstamped));
    }
  });
});

/** A row as both engines return it: PostgreSQL's bigints arrive as strings, SQLite's as numbers. */
function normalise(row: Row): Row {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v]));
}

/**
 * Writes that fire every counting trigger, in SQL both engines read alike: contacts added, renamed, retagged and
 * deleted; campaign messages through their statuses; an account's rollups regrouped by hour; pictures made a
 * message's own and linked to another (each an MMS from then on), and the message with its own deleted.
 */
const WRITES = [
  `INSERT INTO users (id, email) VALUES ('u1', 'a@example.com'), ('u2', 'b@example.com')`,
  `INSERT INTO rollup_days (zone, quarter_hour) VALUES ('UTC', 0), ('UTC', 1995000 * 4 / 4), ('UTC', 1995096)`,
  `INSERT INTO rollup_granularity (user_id, quarters, zone) VALUES ('u2', 4, 'UTC')`,
  `INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, created_at, tags, source) VALUES
    ('c1', 'u1', 'José', 'Müller', 'j@example.com', '+1 (555) 010-0001', 1795500000000, '["vip","new"]', 'manual'),
    ('c2', 'u1', 'Straße', 'Øystein', NULL, '+15550100002', 1795500900000, '[]', 'manual'),
    ('c3', 'u1', 'JOHN', 'doe', '', '', 1795501800000, '["vip", 3]', 'import'),
    ('c4', 'u2', 'Ängel', 'Łukasz', 'x@example.com', '+15550100004', 1795500000000, '["a"]', 'api')`,
  `UPDATE contacts SET first_name = 'Jo', tags = '["new","gold"]', email = NULL WHERE id = 'c1'`,
  `UPDATE contacts SET user_id = 'u2', created_at = 1795600000000 WHERE id = 'c2'`,
  `DELETE FROM contacts WHERE id = 'c3'`,
  `INSERT INTO campaigns (id, user_id, name) VALUES ('k1', 'u1', 'Spring'), ('k2', 'u2', 'Summer')`,
  `INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted) VALUES
    ('p1', 'u1', 'twilio', 'T', 'x'), ('p2', 'u2', 'telnyx', 'X', 'x')`,
  `INSERT INTO phone_numbers (id, user_id, provider_id, phone_number) VALUES ('n1', 'u1', 'p1', '+15550109999'), ('n2', 'u2', 'p2', '+15550108888')`,
  `INSERT INTO messages (id, user_id, phone, content, direction, status, campaign_id, phone_number_id, provider_id, segments, segment_price_micros, created_at, sent_at) VALUES
    ('m1', 'u1', '+15550100001', 'hi', 'outbound', 'queued', 'k1', 'n1', 'p1', 1, 7900, 1795500000000, NULL),
    ('m2', 'u1', '+15550100002', 'hi', 'outbound', 'sent', 'k1', 'n1', 'p1', 2, 7900, 1795500000000, 1795500060000),
    ('m3', 'u2', '+15550100004', 'hi', 'outbound', 'delivered', 'k2', 'n2', 'p2', 1, 5000, 1795500000000, 1795500061000),
    ('m4', 'u1', '+15550100009', 'yo', 'inbound', 'received', NULL, 'n1', 'p1', 1, NULL, 1795500100000, NULL)`,
  `UPDATE messages SET status = 'sending' WHERE id = 'm1'`,
  `UPDATE messages SET status = 'sent', sent_at = 1795500120000 WHERE id = 'm1'`,
  `UPDATE messages SET status = 'delivered' WHERE id IN ('m1', 'm2')`,
  `UPDATE messages SET status = 'failed', segments = 3 WHERE id = 'm3'`,
  `INSERT INTO media (id, user_id, content_type, filename, message_id, status) VALUES ('p1', 'u1', 'image/png', 'a.png', 'm4', 'stored')`,
  `INSERT INTO message_media (message_id, position, media_id) VALUES ('m4', 0, 'p1'), ('m3', 0, 'p1')`,
  `INSERT INTO media (id, user_id, content_type, filename, status) VALUES ('p2', 'u1', 'image/png', 'b.png', 'stored')`,
  `UPDATE media SET message_id = 'm1' WHERE id = 'p2'`,
  `DELETE FROM messages WHERE id = 'm4'`,
  `UPDATE rollup_granularity SET quarters = 1 WHERE user_id = 'u2'`,
  `INSERT INTO rollup_granularity (user_id, quarters, zone) VALUES ('u1', 4, 'UTC')`,
  `DELETE FROM messages WHERE id = 'm2'`,
];
const KEPT_BY_TRIGGERS: Record<string, string> = {
  contact_totals: "user_id",
  contact_rollups: "user_id, quarter_hour",
  contact_names: "user_id, name_key, contact_rowid",
  contact_tags: "user_id, tag, contact_rowid",
  campaign_message_counts: "campaign_id, status",
  message_rollups: "user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id",
  message_day_rollups: "user_id, day, status, phone_number_id, campaign_id",
  media: "id",
  message_media: "message_id, position",
};

describe("the triggers keep the same counts on both engines", () => {
  let scratch: ThrowawayDatabase;
  let db: Database;
  beforeAll(async () => {
    scratch = await throwawayDatabase();
    await migratePostgres(scratch.sql);
    db = migrateUpTo(Infinity);
    db.exec("PRAGMA foreign_keys = ON");
    for (const w of WRITES) {
      db.exec(w);
      await scratch.sql.unsafe(w);
    }
  });
  afterAll(() => scratch?.drop());

  for (const [table, order] of Object.entries(KEPT_BY_TRIGGERS))
    test(table, async () => {
      const columns = table === "media" ? "id, status, message_id" : "*";
      const fromSqlite = db.query(`SELECT ${columns} FROM ${table} ORDER BY ${order}`).all() as Row[];
      const fromPg = ((await scratch.sql.unsafe(`SELECT ${columns} FROM ${table} ORDER BY ${order}`)) as Row[]).map((r) => ({ ...r }));
      expect(fromSqlite.length).toBeGreaterThan(0);
      expect(fromPg.map(normalise)).toEqual(fromSqlite.map(normalise));
    });

  test("the counts are the ones the writes make", async () => {
    const totals = (await scratch.sql`SELECT user_id, total, with_email, with_phone FROM contact_totals ORDER BY user_id`) as Row[];
    // contact_totals_au fires on email and phone only (as on SQLite): c2 moved to u2 is still counted under u1.
    expect(totals.map((r) => ({ ...r })).map(normalise)).toEqual([
      { user_id: "u1", total: 2, with_email: 0, with_phone: 2 },
      { user_id: "u2", total: 1, with_email: 1, with_phone: 1 },
    ]);
    const tags = (await scratch.sql`SELECT tag FROM contact_tags WHERE contact_rowid = (SELECT rowid FROM contacts WHERE id = 'c1') ORDER BY tag`) as Row[];
    expect(tags.map((r) => r.tag)).toEqual(["gold", "new"]);
    const counts = (await scratch.sql`SELECT campaign_id, status, n, unsent FROM campaign_message_counts WHERE n <> 0 ORDER BY 1, 2`) as Row[];
    expect(counts.map((r) => ({ ...r })).map(normalise)).toEqual([
      { campaign_id: "k1", status: "delivered", n: 1, unsent: 0 },
      { campaign_id: "k2", status: "failed", n: 1, unsent: 0 },
    ]);
    // m3 took a linked picture after it failed (sent: one MMS at 3 segments x 5,000); m4's own was received, then
    // deleted; m1 was given an upload after it was delivered (1 segment x 7,900).
    const mms = (await scratch.sql`SELECT user_id, status, sum(n) AS n, sum(mms) AS mms, sum(mms_sent) AS mms_sent, sum(mms_spend_micros) AS mms_spend_micros
      FROM message_rollups WHERE n <> 0 GROUP BY 1, 2 ORDER BY 1, 2`) as Row[];
    expect(mms.map((r) => ({ ...r })).map(normalise)).toEqual([
      { user_id: "u1", status: "delivered", n: 1, mms: 1, mms_sent: 1, mms_spend_micros: 7_900 },
      { user_id: "u2", status: "failed", n: 1, mms: 1, mms_sent: 1, mms_spend_micros: 15_000 },
    ]);
  });
});

describe("the contact search on PostgreSQL", () => {
  test("the trigram index finds a name without its accents and other letters folded, by any part", async () => {
    await pg.sql.unsafe(`INSERT INTO users (id, email) VALUES ('s1', 's@example.com');
      INSERT INTO contacts (id, user_id, first_name, last_name, phone, created_at) VALUES
        ('a', 's1', 'Straße', 'Øystein', '+15550100001', 1), ('b', 's1', 'José', 'Müller', '+15550100002', 2),
        ('c', 's1', 'Ann', 'Lee', '+15550100003', 3)`);
    const find = async (text: string) =>
      ((await pg.sql`SELECT id FROM contacts WHERE smsdesk_contact_search(first_name, last_name, email, phone_digits)
        LIKE '%' || lower(unaccent(${text})) || '%' ORDER BY id`) as Row[]).map((r) => r.id);
    expect(await find("strasse")).toEqual(["a"]);
    expect(await find("oyst")).toEqual(["a"]);
    expect(await find("MULL")).toEqual(["b"]);
    expect(await find("jose")).toEqual(["b"]);
    expect(await find("5550100003")).toEqual(["c"]);
    const plan = await pg.sql.begin(async (tx) => {
      await tx.unsafe("SET LOCAL enable_seqscan = off");
      return (await tx.unsafe(
        "EXPLAIN SELECT id FROM contacts WHERE smsdesk_contact_search(first_name, last_name, email, phone_digits) LIKE '%mull%'",
      )) as Row[];
    });
    expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toContain(SEARCH.index);
  });
});

describe("upgrades: one process migrates, the others wait", () => {
  test("three connections (as three processes) migrating one database at once apply each migration once", async () => {
    const db = await throwawayDatabase();
    try {
      const { SQL } = await import("bun");
      const clients = [0, 1, 2].map(() => new SQL(db.url, { max: 1 }));
      const results = await Promise.all(clients.map((c) => migratePostgres(c)));
      expect(results.map((r) => r.length).sort()).toEqual([0, 0, postgresMigrations().length]);
      const rows = (await db.sql`SELECT tag FROM smsdesk_migrations ORDER BY tag`) as Row[];
      expect(rows.map((r) => r.tag)).toEqual(postgresMigrations().map((m) => m.tag));
      await db.sql`INSERT INTO smsdesk_migrations VALUES ('9999_from_the_future', 'x', 0)`;
      await expect(migratePostgres(clients[0]!)).rejects.toThrow(
        "The PostgreSQL database was migrated by a newer smsdesk (9999_from_the_future); run that version or newer",
      );
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      await db.drop();
    }
  });

  test("a process that finds the lock taken waits for it: it applies nothing until the holder lets go, then everything", async () => {
    const db = await throwawayDatabase();
    try {
      const { SQL } = await import("bun");
      const holder = new SQL(db.url, { max: 1 });
      const waiter = new SQL(db.url, { max: 1 });
      // The first process, mid-migration: it holds the lock (on its one connection).
      await holder`SELECT pg_advisory_lock(${MIGRATION_LOCK.toString()}::bigint)`;
      let settled = false;
      const migrating = migratePostgres(waiter).finally(() => (settled = true));
      const waiting = async () =>
        ((await db.sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`) as Row[])[0]!.n as number;
      for (let i = 0; i < 200 && (await waiting()) === 0; i++) await Bun.sleep(25);
      expect(await waiting()).toBe(1);
      expect(settled).toBe(false);
      expect(((await db.sql`SELECT to_regclass('smsdesk_migrations') AS t`) as Row[])[0]!.t).toBeNull();
      await holder`SELECT pg_advisory_unlock(${MIGRATION_LOCK.toString()}::bigint)`;
      expect(await migrating).toEqual(postgresMigrations().map((m) => m.tag));
      await Promise.all([holder.close(), waiter.close()]);
    } finally {
      await db.drop();
    }
  });
});
