/**
 * The key the list is sorted by name with (contact_names.name_key, migration 0052): names as people read them, each
 * letter of the Latin alphabets with its base letter and without regard to case ("Ángel" with "Adams", "Łukasz"
 * with "Lucas", "JOHN" with "john"), the first name then the last. SQLite here has no collation per language, so the
 * key is written with the name: by the bulk importer in JavaScript (nameKey, on the thread that sorts its names), by
 * the triggers in SQL (nameKeySql, with the table name_folds). Both fold exactly the same letters the same way (a test
 * compares them on every letter folded and on names of every kind).
 * The search (a trigram index that folds accents, migration 0039) does not fold the letters that are no letter
 * with an accent (ß, æ, ø, ł...): a name holding one is indexed with those folded too (searchExtra), and a query is
 * folded the same way (foldSearch), so "strasse" finds "Straße" and "Straße" "Strasse".
 */

/** Letters whose decomposition holds no base letter of their own, or a different one: what people write for them. */
const OWN_BASE: Record<string, string> = {
  Æ: "ae", æ: "ae", Ø: "o", ø: "o", ß: "ss", Ð: "d", ð: "d", Þ: "th", þ: "th", Đ: "d", đ: "d", Ħ: "h", ħ: "h", ı: "i",
  ĸ: "k", Ł: "l", ł: "l", Ŋ: "n", ŋ: "n", Œ: "oe", œ: "oe", Ŧ: "t", ŧ: "t", ſ: "s",
};

/**
 * Every letter of Latin-1 and Latin Extended-A (U+00C0 to U+017F, which hold the letters of the languages written
 * with the Latin alphabet in Europe and the Americas) with its base letter(s) in lower case: its compatibility
 * decomposition's ASCII letters ("Ĳ" "ij", "ŉ" "n"), else its own base above. The multiplication and division signs
 * in that range are no letters and stay.
 */
export const FOLDED_LETTERS: ReadonlyMap<string, string> = (() => {
  const folds = new Map<string, string>();
  for (let code = 0xc0; code <= 0x17f; code++) {
    const letter = String.fromCharCode(code);
    const base = OWN_BASE[letter] ?? letter.normalize("NFKD").replace(/[^A-Za-z]/g, "").toLowerCase();
    if (base) folds.set(letter, base);
  }
  return folds;
})();

/** The characters foldName may change. */
export const FOLDABLE = /[A-Z\u00c0-\u017f]/g;

/** A name as the list orders it: ASCII capitals made small (as SQLite's lower()), the letters above folded, nothing else changed. */
export function foldName(name: string): string {
  // Most names are ASCII, which toLowerCase folds exactly as lower() does.
  return NOT_ASCII.test(name) ? name.replace(FOLDABLE, (c) => FOLDED_LETTERS.get(c) ?? (c <= "Z" ? c.toLowerCase() : c)) : name.toLowerCase();
}
const NOT_ASCII = /[^\u0000-\u007f]/;

/** The sort key of a contact's name: the first name folded, U+0001 (below every character of a name), the last. */
export function nameKey(first: string, last: string): string {
  return `${foldName(first)}\u0001${foldName(last)}`;
}

/**
 * Keys in SQLite's order (BINARY: their UTF-8 bytes, which is code point order), where JavaScript compares UTF-16
 * units: a character above U+FFFF (an emoji) sorts after U+E000-U+FFFF there, before them here.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x < 0xe000 ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * One character of `text` at a time, each mapped by `letter` (an SQL expression of the character `ch`), joined again:
 * a recursive CTE over the positions, so the expression stays a few levels deep whatever the number of letters
 * folded. Written as ~500 nested replace() calls it overflowed the parser of sqlite3 3.40 (Debian 12), which then
 * called the whole database malformed. group_concat joins the positions in the order the CTE makes them.
 */
function eachCharSql(text: string, letter: (ch: string) => string): string {
  const ch = `substr(${text}, p.i, 1)`;
  return `(WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(${text})) SELECT group_concat(${letter(ch)}, '') FROM p)`;
}

/**
 * foldName as an SQL expression of `column`: SQLite's lower() (ASCII letters only) for a name in printable ASCII,
 * which costs one pattern test; else each character looked up in name_folds (migration 0052: FOLDED_LETTERS, a test
 * compares them), lower() for the others.
 */
export function foldNameSql(column: string): string {
  const fold = eachCharSql(column, (ch) => `coalesce((SELECT base FROM name_folds WHERE letter = ${ch}), lower(${ch}))`);
  return `CASE WHEN ${column} GLOB '*[^ -~]*' THEN ${fold} ELSE lower(${column}) END`;
}

/** nameKey as an SQL expression of a row's first and last name columns. */
export function nameKeySql(first: string, last: string): string {
  return `(${foldNameSql(first)}) || char(1) || (${foldNameSql(last)})`;
}

/** The folded letters the search index's accent folding leaves as they are: those whose canonical decomposition starts with no ASCII letter. */
export const SEARCH_FOLDS = [...FOLDED_LETTERS].filter(([letter]) => !/[A-Za-z]/.test(letter.normalize("NFD")[0]!));
export const SEARCH_FOLDABLE = new RegExp(`[${SEARCH_FOLDS.map(([l]) => l).join("")}]`, "g");
const SEARCH_FOLD = new Map(SEARCH_FOLDS);

/** A query with those letters folded ("straße" "strasse", "Øre" "ore"). */
export function foldSearch(text: string): string {
  return text.replace(SEARCH_FOLDABLE, (c) => SEARCH_FOLD.get(c)!);
}

/** What a contact's search text gets after it when its name holds one of those letters (its name so folded), else "". */
export function searchExtra(first: string, last: string): string {
  const name = `${first} ${last}`;
  return name.search(SEARCH_FOLDABLE) < 0 ? "" : foldSearch(name);
}

/** The contacts_fts text of a row as an SQL expression (`p` "new" or a table): its fields, then searchExtra's (name_folds.search). */
export function searchBodySql(p: string): string {
  const name = `${p}.first_name || ' ' || ${p}.last_name`;
  const folded = eachCharSql(`(${name})`, (ch) => `coalesce((SELECT search FROM name_folds WHERE letter = ${ch}), ${ch})`);
  const extra = `CASE WHEN ${name} GLOB '*[${SEARCH_FOLDS.map(([l]) => l).join("")}]*' THEN ' ' || ${folded} ELSE '' END`;
  return `${name} || ' ' || coalesce(${p}.email, '') || ' ' || ${p}.phone_digits || ${extra}`;
}

/** The rows of name_folds (migration 0052): each folded letter, its base letter(s), and those of the search (SEARCH_FOLDS) or null. */
export function nameFoldRows(): [string, string, string | null][] {
  return [...FOLDED_LETTERS].map(([letter, base]) => [letter, base, SEARCH_FOLD.get(letter) ?? null]);
}
