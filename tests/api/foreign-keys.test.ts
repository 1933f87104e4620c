/**
 * Deleting a row makes SQLite look up the rows that point at it (ON DELETE CASCADE or SET NULL) in every child
 * table, and without an index starting with the child column that is a scan of the whole table, every account's rows:
 * deleting one contact scanned all messages (70 ms at 500,000 messages; a bulk delete of 10,000 contacts held the
 * server for about 12 minutes) until migration 0040. Every foreign key of the migrated schema is checked here.
 */
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../db/client";

/**
 * Foreign keys whose lookup may scan, each with why: parents the appliance never deletes. (messages.provider_id
 * was here until migration 0043: its scan held the server 136 ms per million messages at each provider deletion.)
 */
const SCANNED: Record<string, string> = {
  "error_reports.user_id": "accounts are never deleted",
  "support_messages.user_id": "accounts are never deleted",
  "auth_challenges.user_id": "accounts are never deleted",
  "license_codes.redeemed_by": "accounts are never deleted",
  "license_codes.created_by": "accounts are never deleted",
  "automation_runs.user_id": "accounts are never deleted",
  "contact_purchases.user_id": "accounts are never deleted (a contact's deletion finds its purchases by contact_id)",
  "licenses.plan_id": "plans are never deleted (NO ACTION)",
  "pending_sign_ups.user_id": "accounts are never deleted (and a pending sign-up lives until its code expires)",
};

type ForeignKey = { table: string; from: string; to: string; on_delete: string };

function foreignKeysWithoutIndex(): string[] {
  const db = openDatabase(":memory:").$client;
  const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
  const missing: string[] = [];
  for (const table of tables) {
    const keys = db.query(`PRAGMA foreign_key_list("${table}")`).all() as ForeignKey[];
    if (!keys.length) continue;
    // The leading column of each index a lookup of `column = ?` can use: a partial one only if it leaves out NULLs.
    const leading = new Set<string>();
    for (const index of db.query(`PRAGMA index_list("${table}")`).all() as { name: string; partial: number }[]) {
      const first = (db.query(`PRAGMA index_info("${index.name}")`).all() as { seqno: number; name: string }[]).find((c) => c.seqno === 0)?.name;
      if (!first) continue;
      const sql = (db.query("SELECT sql FROM sqlite_master WHERE name = ?").get(index.name) as { sql: string | null } | null)?.sql ?? "";
      if (!index.partial || new RegExp(`WHERE\\s+\`?${first}\`?\\s+IS\\s+NOT\\s+NULL\\s*$`, "i").test(sql)) leading.add(first);
    }
    const primaryKey = (db.query(`PRAGMA table_info("${table}")`).all() as { name: string; pk: number }[]).filter((c) => c.pk > 0);
    if (primaryKey.length === 1) leading.add(primaryKey[0]!.name);
    for (const key of keys) if (!leading.has(key.from)) missing.push(`${table}.${key.from}`);
  }
  db.close();
  return missing.sort();
}

describe("foreign keys", () => {
  test("every child column a deletion looks up is the first column of an index, but for the few listed with a reason", () => {
    expect(foreignKeysWithoutIndex()).toEqual(Object.keys(SCANNED).sort());
  });
});
