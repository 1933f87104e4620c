// The database, and a backup archive's copy of it, open in Debian 12's sqlite3 shell (3.40): an administrator reads a
// downloaded backup with it. Its parser fails on an expression nested past ~25 levels and then calls the whole
// database malformed, as it did with the first name keys' triggers (~500 nested replace() calls, reverted in 9730ca1).
// Here every migration is applied and the triggers that fold names run, in the app and in the shell itself.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractArchive } from "../../src/backups/archive";
import { backupFile, createBackup } from "../../src/backups/backups";
import { nameKey, nameKeySql, searchBodySql, searchExtra } from "../../src/contacts/name-key";
import { hashPassword } from "../../src/auth/passwords";
import { databaseBefore } from "../support/old-database";
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
  const backup = await createBackup(t.ctx);
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

/**
 * How deep `sql` nests parentheses (each function call, subquery or parenthesised expression one level), outside
 * quotes and comments: what overflows the parser of sqlite3 3.40, where 25 nested replace() calls still parse and 30
 * do not. The name keys' first triggers nested ~500.
 */
function nesting(sql: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === "`") {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end;
    } else if (c === "(") deepest = Math.max(deepest, ++depth);
    else if (c === ")") depth--;
  }
  return deepest;
}

/** The deepest a trigger, view or index of the schema may nest (today's deepest: 7, the triggers that fold names). */
const MAX_NESTING = 8;

/** Triggers, views and indexes of the database at `path` nested deeper than MAX_NESTING, with their depth. */
function tooDeep(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const objects = db.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_schema WHERE type IN ('trigger', 'view', 'index') AND sql IS NOT NULL").all();
    expect(objects.filter((o) => o.name.startsWith("contact_names_")).length).toBe(3);
    return objects.map((o) => ({ name: o.name, depth: nesting(o.sql) })).filter((o) => o.depth > MAX_NESTING);
  } finally {
    db.close();
  }
}

/** Every trigger's name and SQL, in name order. */
function triggers(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name").all();
  } finally {
    db.close();
  }
}

test.skipIf(!present)("the shell refuses a database whose trigger nests 30 calls, which the nesting bound catches", () => {
  // So the checks below can fail: a trigger 25 calls deep opens, one 30 deep makes the whole database "malformed".
  const deep = (n: number) => `CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN UPDATE t SET a = ${"replace(".repeat(n)}new.a${", 'x', 'y')".repeat(n)} WHERE rowid = new.rowid; END`;
  for (const [n, code] of [[25, 0], [30, 1]] as const) {
    const path = join(dir, `deep-${n}.db`);
    const db = new Database(path, { create: true });
    db.exec("CREATE TABLE t (a TEXT)");
    db.exec(deep(n));
    db.close();
    const { out, err, code: exit } = shell(path, "PRAGMA integrity_check");
    expect([n, exit === 0 ? 0 : 1, exit === 0 ? out : err]).toEqual([n, code, code ? "Error: in prepare, malformed database schema (t_ai) - parser stack overflow (11)" : "ok"]);
    expect(nesting(deep(n))).toBe(n);
  }
});

test.skipIf(!present)("a freshly migrated database and one upgraded from before the name keys (0052) open in the sqlite3 shell; no trigger nests past 8", async () => {
  // Fresh: the running test server's database.
  const fresh = join(t.dataDir, "smsdesk.db");
  expect(shell(fresh, "PRAGMA integrity_check")).toEqual({ out: "ok", err: "", code: 0 });
  expect(tooDeep(fresh)).toEqual([]);

  // Upgraded: the version before 0052 with its contacts, started (0052 and every later migration applied, the
  // earlier names keyed at start), a contact added and one renamed by the triggers.
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-sqlite3-upgraded-"));
  const old = databaseBefore(dataDir, "0052_contact_name_keys");
  old.query("INSERT INTO users (id, email, password_hash, email_verified) VALUES ('u-1', 'old@example.com', ?, 1)").run(await hashPassword("old-password-1"));
  const contact = old.query("INSERT INTO contacts (id, user_id, first_name, last_name, phone, created_at) VALUES (?, 'u-1', ?, ?, ?, ?)");
  [["Zoë", "Quinn"], ["Łukasz", "Nowak"], ["Æsa", "Straße"]].forEach(([first, last], i) => contact.run(`c-${i}`, first!, last!, `+1312555${String(120 + i).padStart(4, "0")}`, i));
  old.close();
  const up = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
  try {
    const token = (await up.login("old@example.com", "old-password-1")).token;
    expect((await up.api("/api/contacts", { method: "POST", token, body: { firstName: "Ángel", lastName: "Østergaard", phone: "+13125550130" } })).status).toBe(201);
    expect((await up.api("/api/contacts/c-0", { method: "PUT", token, body: { firstName: "Íñigo", lastName: "Quinn", phone: "+13125550120" } })).status).toBe(200);
    const upgraded = join(dataDir, "smsdesk.db");
    expect(shell(upgraded, "PRAGMA integrity_check")).toEqual({ out: "ok", err: "", code: 0 });
    expect(shell(upgraded, "SELECT count(*) FROM contact_names; SELECT count(*) FROM contact_names_pending").out).toBe("4\n0");
    expect(tooDeep(upgraded)).toEqual([]);
    // The upgrade leaves the same triggers a fresh database has.
    expect(triggers(upgraded)).toEqual(triggers(fresh));
  } finally {
    await up.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
