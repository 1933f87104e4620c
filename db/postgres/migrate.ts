import { SQL } from "bun";
import { createHash } from "node:crypto";
import { migrationJournal } from "../migrations/embedded";
import { POSTGRES_BASELINE } from "./baseline";
import { postgresMigrationSql } from "./embedded";

/**
 * Brings a PostgreSQL database to this version's schema: the PostgreSQL migrations (db/postgres/migrations, one per
 * SQLite migration from the baseline on, in the SQLite journal's order), each in its own transaction with its row in
 * smsdesk_migrations. Several processes of one installation start at once: the first takes an advisory lock and
 * migrates, the others wait on the lock, then find nothing left to do. A database migrated by a newer version is
 * refused: this version would not know its tables.
 */

/** The advisory lock's key: any constant of the installation's own; "smsdesk" in ASCII. */
export const MIGRATION_LOCK = 0x736d736465736bn;

export class PostgresVersionError extends Error {}

/** The PostgreSQL migrations this version knows, in order. */
export function postgresMigrations(): { tag: string; sql: string; hash: string }[] {
  const start = migrationJournal.entries.findIndex((e) => e.tag === POSTGRES_BASELINE);
  return migrationJournal.entries.slice(start).map((e) => {
    const sql = postgresMigrationSql[e.tag];
    if (sql === undefined) throw new Error(`migration ${e.tag} has no PostgreSQL counterpart in db/postgres/migrations`);
    return { tag: e.tag, sql, hash: createHash("sha256").update(sql).digest("hex") };
  });
}

export async function migratePostgres(sql: SQL, log: (line: string) => void = () => {}): Promise<string[]> {
  const migrations = postgresMigrations();
  const conn = await sql.reserve();
  try {
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    try {
      await conn.unsafe(
        "CREATE TABLE IF NOT EXISTS smsdesk_migrations (tag text PRIMARY KEY, hash text NOT NULL, applied_at bigint NOT NULL)",
      );
      const done = new Set(((await conn`SELECT tag FROM smsdesk_migrations`) as { tag: string }[]).map((r) => r.tag));
      const unknown = [...done].filter((tag) => !migrations.some((m) => m.tag === tag));
      if (unknown.length)
        throw new PostgresVersionError(
          `The PostgreSQL database was migrated by a newer smsdesk (${unknown.join(", ")}); run that version or newer`,
        );
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.tag)) continue;
        log(`PostgreSQL: applying migration ${m.tag}`);
        await conn.unsafe("BEGIN");
        try {
          for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) await conn.unsafe(statement);
          await conn`INSERT INTO smsdesk_migrations (tag, hash, applied_at) VALUES (${m.tag}, ${m.hash}, ${Date.now()})`;
          await conn.unsafe("COMMIT");
        } catch (err) {
          await conn.unsafe("ROLLBACK");
          throw err;
        }
        applied.push(m.tag);
      }
      return applied;
    } finally {
      await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK.toString()}::bigint)`;
    }
  } finally {
    await conn.release();
  }
}
