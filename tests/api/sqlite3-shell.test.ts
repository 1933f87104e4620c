// The database, and a backup archive's copy of it, open in Debian 12's sqlite3 shell (3.40): an administrator reads a
// downloaded backup with it. Its parser fails on an expression nested past ~25 levels and then calls the whole
// database malformed, as it did with the first name keys' triggers (~500 nested replace() calls, reverted in 9730ca1).
// Here every migration is applied and the triggers that fold names run, in the app and in the shell itself.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractArchive } from "../../src/backups/archive";
import { backupFile, createBackup } from "../../src/backups/backups";
import { nameKey, nameKeySql, searchBodySql, searchExtra } from "../../src/contacts/name-key";
import { startTestServer, type TestServer } from "../support/test-server";

const SQLITE3 = "/usr/bin/sqlite3";
const present = existsSync(SQLITE3);
if (!present) console.warn(`SKIPPED: ${SQLITE3} is missing (apt-get install -y sqlite3): the database is not checked against the sqlite3 shell`);

/** What the shell prints for `sql` on the database at `path`, and its exit status. */
function shell(path: string, sql: string) {
  const run = Bun.spawnSync([SQLITE3, "-batch", path, sql], { stdout: "pipe", stderr: "pipe" });
  return { out: run.stdout.toString().trim(), err: run.stderr.toString().trim(), code: run.exitCode };
}

let t: TestServer;
let dir: string;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  dir = mkdtempSync(join(tmpdir(), "smsdesk-sqlite3-"));
});
afterAll(async () => {
  await t.stop();
  rmSync(dir, { recursive: true, force: true });
});

test.skipIf(!present)("the migrated database and a backup's database pass integrity_check in the sqlite3 shell, whose triggers fold names as the app does", async () => {
  const owner = await t.signUpVerified();
  const people = [["Ángel", "Ruiz"], ["Łukasz", "Straße"], ["adams", "Øre"]];
  for (const [i, [firstName, lastName]] of people.entries()) {
    const res = await t.api("/api/contacts", { method: "POST", token: owner.token, body: { firstName, lastName, phone: `+1415555${String(700 + i).padStart(4, "0")}` } });
    expect(res.status).toBe(201);
  }
  const live = join(t.dataDir, "smsdesk.db");
  expect(shell(live, "PRAGMA integrity_check")).toEqual({ out: "ok", err: "", code: 0 });
  expect(shell(live, "SELECT sqlite_version() < '3.41'").out).toBe("1");

  // A backup's database, as the archive holds it.
  const backup = createBackup(t.ctx);
  const copy = join(dir, "backup.db");
  await extractArchive(backupFile(t.dataDir, backup.id), { toFile: { "smsdesk.db": { path: copy, maxBytes: 1 << 30 } }, toMemory: {} });
  expect(shell(copy, "PRAGMA integrity_check")).toEqual({ out: "ok", err: "", code: 0 });
  expect(shell(copy, "SELECT count(*) FROM contact_names").out).toBe("3");

  // The shell folds names as the app does: the key and the search text the triggers write, evaluated there.
  const names = "(SELECT 'Íñigo' AS first_name, 'Ødegård' AS last_name, NULL AS email, '14155550799' AS phone_digits) AS n";
  expect(shell(copy, `SELECT ${nameKeySql("n.first_name", "n.last_name")} FROM ${names}`)).toEqual({ out: nameKey("Íñigo", "Ødegård"), err: "", code: 0 });
  expect(shell(copy, `SELECT ${searchBodySql("n")} FROM ${names}`).out).toBe(`Íñigo Ødegård  14155550799 ${searchExtra("Íñigo", "Ødegård")}`);
  // And runs the triggers of contact_names on the copy (those of the search index are dropped there: its trigram
  // tokenizer's remove_diacritics, migration 0039, needs sqlite 3.45): a contact inserted, renamed and deleted.
  const noSearch = "DROP TRIGGER contacts_fts_ai; DROP TRIGGER contacts_fts_au; DROP TRIGGER contacts_fts_ad;";
  const insert = `INSERT INTO contacts (id, user_id, first_name, last_name, phone, created_at) VALUES ('c-shell', '${owner.user.id}', 'Íñigo', 'Ødegård', '+14155550799', 0);`;
  const keyOf = "SELECT name_key FROM contact_names WHERE contact_rowid = (SELECT rowid FROM contacts WHERE id = 'c-shell')";
  expect(shell(copy, `${noSearch} ${insert} ${keyOf}`)).toEqual({ out: nameKey("Íñigo", "Ødegård"), err: "", code: 0 });
  expect(shell(copy, `UPDATE contacts SET first_name = 'Œdipe' WHERE id = 'c-shell'; ${keyOf}`).out).toBe(nameKey("Œdipe", "Ødegård"));
  expect(shell(copy, "DELETE FROM contacts WHERE id = 'c-shell'; SELECT count(*) FROM contact_names").out).toBe("3");
  expect(shell(copy, "PRAGMA integrity_check")).toEqual({ out: "ok", err: "", code: 0 });
});
