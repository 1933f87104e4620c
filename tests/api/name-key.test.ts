// Issue 28 item 5: the name key and the search's folding, the same in JavaScript (the importer) and in SQL (the
// triggers), and written into migration 0052's triggers as name-key.ts makes them.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { migrationSql } from "../../db/migrations/embedded";
import { compareKeys, FOLDED_LETTERS, foldName, foldSearch, nameFoldRows, nameKey, nameKeySql, searchBodySql, searchExtra } from "../../src/contacts/name-key";

/** Migration 0052's statements that make and fill name_folds, the table its triggers fold letters with. */
const MIGRATION = migrationSql["0052_contact_name_keys"]!;
const FOLDS_SQL = MIGRATION.split("--> statement-breakpoint").filter((s) => /(CREATE TABLE|INSERT INTO) `name_folds`/.test(s));

test("letters fold to their base letters without regard to case", () => {
  expect(["Ángel", "Íñigo", "Łukasz", "Zoë", "adams", "JOHN", "Straße", "Æsa", "Øystein", "Œuvre", "Þóra", "Đorđe", "Ĳssel"].map(foldName)).toEqual([
    "angel", "inigo", "lukasz", "zoe", "adams", "john", "strasse", "aesa", "oystein", "oeuvre", "thora", "dorde", "ijssel",
  ]);
  // Outside the Latin letters, nothing changes (no SQL function could fold them the same way).
  expect(foldName("Жанна 李 ×÷")).toBe("Жанна 李 ×÷");
  expect(FOLDED_LETTERS.size).toBe(190);
  const names = ["Zoë", "Łukasz", "JOHN", "Íñigo", "adams", "Ángel"];
  expect(names.map((n) => nameKey(n, "")).sort(compareKeys).map((k) => names.find((n) => nameKey(n, "") === k))).toEqual(["adams", "Ángel", "Íñigo", "JOHN", "Łukasz", "Zoë"]);
  // SQLite orders by UTF-8 bytes: a character above U+FFFF after U+FFFD.
  expect(["a\u{1F600}", "a\uFFFD", "a"].sort(compareKeys)).toEqual(["a", "a\uFFFD", "a\u{1F600}"]);
});

test("the SQL key equals the JavaScript key for every folded letter in both places of a name, and for mixed names", () => {
  const db = new Database(":memory:");
  for (const statement of FOLDS_SQL) db.exec(statement);
  db.exec("CREATE TABLE c (first_name TEXT NOT NULL, last_name TEXT NOT NULL, email TEXT, phone_digits TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO c VALUES (?, ?, ?, '4155550100')");
  const pairs: [string, string][] = [];
  for (let code = 0x20; code <= 0x24f; code++) {
    const ch = String.fromCharCode(code);
    pairs.push([`x${ch}Y`, `${ch}${ch}`]);
  }
  pairs.push(["José María", "Álvarez-Ñúñez"], ["", ""], ["ŁUKASZ", "Żółć"], ["Жанна", "Straße 😀"], ["'=@", "O'Brien"], ["Ana\tMaría", "Ø"], ["É".repeat(300), `${"ß".repeat(150)}Z`]);
  for (const [f, l] of pairs) insert.run(f, l, null);
  const rows = db.query(`SELECT first_name AS f, last_name AS l, ${nameKeySql("first_name", "last_name")} AS k, ${searchBodySql("c")} AS b FROM c`).all() as {
    f: string; l: string; k: string; b: string;
  }[];
  expect(rows.length).toBe(pairs.length);
  for (const r of rows) {
    expect([r.f, r.l, r.k]).toEqual([r.f, r.l, nameKey(r.f, r.l)]);
    const extra = searchExtra(r.f, r.l);
    expect([r.f, r.l, r.b]).toEqual([r.f, r.l, `${r.f} ${r.l}  4155550100${extra ? ` ${extra}` : ""}`]);
  }
  expect(searchExtra("Ann", "Lee")).toBe("");
  expect(searchExtra("Øystein", "Straße")).toBe("oystein Strasse");
  expect(foldSearch("straße æsir øre")).toBe("strasse aesir ore");
});

test("migration 0052's name_folds holds the letters name-key.ts folds, and its triggers the keys and search text it makes", () => {
  expect(FOLDS_SQL.length).toBe(2);
  const db = new Database(":memory:");
  for (const statement of FOLDS_SQL) db.exec(statement);
  expect(db.query("SELECT letter, base, search FROM name_folds ORDER BY letter").values()).toEqual(nameFoldRows().sort(([a], [b]) => compareKeys(a, b)));
  expect(db.query("SELECT count(*) AS n, count(search) AS s FROM name_folds").get()).toEqual({ n: 190, s: 29 });
  const sql = MIGRATION;
  expect(sql).toContain(`INSERT OR IGNORE INTO \`contact_names\` VALUES (new.user_id, ${nameKeySql("new.first_name", "new.last_name")}, new.rowid);`);
  expect(sql).toContain(`name_key = ${nameKeySql("old.first_name", "old.last_name")} AND contact_rowid = old.rowid;`);
  expect(sql).toContain(`INSERT INTO \`contacts_fts\`(rowid, body) VALUES (new.rowid, ${searchBodySql("new")});`);
});

test("every letter the search index's accent folding leaves, the search folds itself", () => {
  const db = new Database(":memory:");
  db.exec("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='trigram remove_diacritics 1')");
  const unfolded: string[] = [];
  let rowid = 0;
  for (const [letter, base] of FOLDED_LETTERS) {
    db.query("INSERT INTO f (rowid, body) VALUES (?, ?)").run(++rowid, `qq${letter}zz`);
    if (!db.query("SELECT rowid FROM f WHERE f MATCH ? AND rowid = ?").all(`"qq${base}zz"`, rowid).length) unfolded.push(letter);
  }
  expect(unfolded.join("")).toBe("ÆÐØÞßæðøþĐđĦħıĲĳĸĿŀŁłŉŊŋŒœŦŧ");
  expect(unfolded.filter((l) => foldSearch(l) === l)).toEqual([]);
});
