import { Database } from "bun:sqlite";
import { join } from "node:path";
import { migrationJournal, migrationSql } from "../../db/migrations/embedded";

/**
 * The database of `dataDir` as the version before migration `tag` left it: every migration before that one applied
 * and recorded as drizzle's migrator records them, so the server started on the folder applies `tag` and those after.
 * The caller adds its rows, then closes it.
 */
export function databaseBefore(dataDir: string, tag: string): Database {
  const mine = migrationJournal.entries.findIndex((e) => e.tag === tag);
  if (mine < 0) throw new Error(`no migration ${tag}`);
  const old = new Database(join(dataDir, "smsdesk.db"), { create: true });
  // As drizzle's migrator makes it (the same SQL but for spaces), so a backup of this folder can be restored.
  old.exec(`CREATE TABLE "__drizzle_migrations" (\n id SERIAL PRIMARY KEY,\n hash text NOT NULL,\n created_at numeric\n)`);
  for (const entry of migrationJournal.entries.slice(0, mine)) {
    for (const statement of migrationSql[entry.tag]!.split("--> statement-breakpoint")) if (statement.trim()) old.exec(statement);
    old.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('x', ?)").run(entry.when);
  }
  return old;
}
