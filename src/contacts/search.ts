import type { SQLQueryBindings } from "bun:sqlite";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { contacts } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { compareKeys, foldName, foldSearch, nameKey, searchExtra } from "./name-key";
import { phoneDigitsOf } from "./phones";

/** Counts of matching contacts stop here: the list answers `totalCapped: true` with this total. */
export const COUNT_CAP = 10_000;
/** Candidate rows the ordered walk checks against the search index at first, and at most, at a time. */
const WALK_CHUNK = { first: 500, max: 16_000 };
/**
 * Rough relative costs per row: starting from the matches (look each up, sort them all) against walking the
 * owner's contacts in list order (one index step; a search-index check per chunk).
 */
const FROM_MATCHES_COST = 4;
const WALK_COST = 1;
/**
 * A text search sorted by name or phone starts from its matches when there are at most this many (read from the
 * search index alone). Such a search often names what the list is sorted by ("José" in first names), so its
 * matches lie together in that order, where the walk's estimate assumes them spread out: "José" by name walked the
 * 400,000 names before it, 60-200 ms in a million contacts on the loaded benchmark machine, where looking up and
 * sorting its 16,000 matches took 20-45 ms. Past this many the lookups cost more than most walks.
 */
const SORTED_MATCHES_CAP = 20_000;
/**
 * A text search in name order with more matches than this looks for first names its matches share (clusteredNamePage):
 * below it, looking up and sorting the matches costs little (2,000 lookups).
 */
const CLUSTERED_FROM = 2_000;
/** The most matches clusteredNamePage reads from the search index (60,000 for "jose" in a million: 14 ms of CPU). */
const CLUSTERED_MATCHES_CAP = 200_000;
/** Matches whose first names tell the clusters; and the first rows of a first name that must match for it to be one. */
const CLUSTER_SAMPLE = 64;
const CLUSTER_PROBE = 64;

export type Sort = "createdAt" | "name" | "phone";
export type Order = "asc" | "desc";
export type PageQuery = { page: number; pageSize: number; q?: string; sort: Sort; order: Order };

/**
 * A search, always served by an index: three or more characters through the FTS5 trigram table (substring of
 * first/last name, email, phone digits, with accents folded: "jose" finds "José", migration 0039; a phone typed
 * with formatting is reduced to its digits); one or two
 * characters the start of the first name (as typed, lower, capitalised, upper) or of the phone digits through
 * contact_names (user_id, first_name, ...) and the index (user_id, phone).
 * A prefix search's `rows` selects the matching contacts' rowids (as r, meeting extra conditions) through the index
 * that holds the column, `counted` the same for a count (where it can, from that index alone), `where` is the
 * same as a condition on contacts, `filter` the test on a row already chosen, written (unary plus) so that SQLite
 * does not drive an index with it; `ranges` are the name index's ranges (rows in name order), one per prefix.
 */
type Search =
  | { kind: "text"; term: string; match: string }
  | { kind: "prefix"; rows: (extra: SQL | undefined) => SQL; counted: (extra: SQL | undefined) => SQL; where: SQL; filter: SQL; ranges: SQL[]; byName: boolean; prefixes: string[] };

/**
 * The contacts in name order: contact_names (migration 0042) with each name's contact row, which the conditions
 * and the page read. Its key is the list's order by name, so a page stops reading at its last row.
 */
const NAMED = sql.raw(`contact_names AS n CROSS JOIN contacts ON contacts.rowid = n.contact_rowid`);
const nameOrder = (order: Order) => sql.raw(["n.name_key", "n.contact_rowid"].map((c) => `${c} ${order === "asc" ? "ASC" : "DESC"}`).join(", "));

const escapeFts = (s: string) => `"${s.replaceAll('"', '""')}"`;

/**
 * The owner's contacts whose column starts with one of the prefixes, as an OR of (user_id, prefix range) terms:
 * SQLite then reads one index range per prefix, while a separate owner term would make it scan all of the owner's
 * entries. First names are read from contact_names (by their name key: the prefixes folded as names are), phones
 * from the index (user_id, phone) of contacts.
 */
function prefixSearch(userId: string, prefixes: string[], byName: boolean): Search {
  const ranges = (c: SQL) => prefixes.map((p) => sql`(${c} >= ${p} AND ${c} < ${p + "\uffff"})`);
  if (!byName) {
    const col = sql`${contacts.phone}`;
    const owned = ranges(col).map((r) => sql`(${contacts.userId} = ${userId} AND ${r})`);
    const where = sql`(${sql.join(owned, sql` OR `)})`;
    const rows = (extra: SQL | undefined) => sql`SELECT rowid AS r FROM ${contacts} WHERE ${where}${andAlso(extra)}`;
    return { kind: "prefix", rows, counted: rows, where, filter: sql`(${sql.join(ranges(sql`+${col}`), sql` OR `)})`, ranges: owned, byName, prefixes };
  }
  const owned = ranges(sql.raw("n.name_key")).map((r) => sql`(n.user_id = ${userId} AND ${r})`);
  const named = sql`(${sql.join(owned, sql` OR `)})`;
  const rows = (extra: SQL | undefined) => sql`SELECT n.contact_rowid AS r FROM ${NAMED} WHERE ${named}${andAlso(extra)}`;
  const where = sql`${contacts}.rowid IN (SELECT n.contact_rowid FROM contact_names AS n WHERE ${named})`;
  return {
    kind: "prefix",
    rows,
    // Without conditions on the contact, from contact_names alone: a count of 10,001 names reads no contact.
    counted: (extra) => (extra ? rows(extra) : sql`SELECT n.contact_rowid AS r FROM contact_names AS n WHERE ${named}`),
    where,
    filter: where,
    ranges: owned,
    byName,
    prefixes,
  };
}

function parseSearch(q: string | undefined, userId: string): Search | undefined {
  // Control characters (NUL among them) are never part of a name, email or phone, and SQLite's full-text query
  // parser fails on NUL: they separate words like a space.
  const text = (q ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  if (!text) return undefined;
  const digits = phoneDigitsOf(text);
  // The search index folds accents itself, and the letters it leaves (ß, æ, ø...) are folded in it and here alike.
  const term = digits ?? foldSearch(text.toLowerCase());
  if ([...term].length >= 3) return { kind: "text", term, match: escapeFts(term) };
  // Phones are stored in E.164: their digits start with the query's exactly when they start with "+" and it.
  if (digits) return prefixSearch(userId, [`+${digits}`], false);
  // Name keys fold the letters of the Latin alphabets and ASCII case; others' case ("ж", "Ж") needs a range each.
  const folded = new Set([text, text.toLowerCase(), text[0]!.toUpperCase() + text.slice(1).toLowerCase(), text.toUpperCase()].map(foldName));
  return prefixSearch(userId, [...folded].sort(compareKeys), true);
}

const FTS_MATCH = "SELECT rowid AS r FROM contacts_fts WHERE contacts_fts MATCH";
const matchesOf = (match: string) => sql`${sql.raw(FTS_MATCH)} ${match}`;

/** The most contacts an email-shaped search looks up to check its matches (emailMatches). */
const EMAIL_CANDIDATES = 2_000;
/** Printable ASCII without a space or a quote: what the search index folds as toLowerCase does (ASCII capitals only). */
const PLAIN_ASCII = /^[\x21\x23-\x7e]+$/;

/**
 * Every match of a search that holds an "@" (an email address, whole or in part), ascending by rowid as the search
 * index answers, found without asking the index for the whole term: its trigrams include very common ones ("com",
 * "ail", ".co"), which the index steps through up to each match (a whole address in a million contacts: 60-90 ms).
 * The part up to the "@" (or from it, when that is shorter than three characters) is a substring of the term, so
 * its matches hold all of the term's; each is checked here. An "@" of a contact's text is in its email (names and
 * phone digits checked to hold none), so the term, which has one, matches exactly when the email folded as the
 * index folds it holds the term: ASCII capitals made small, for an email in ASCII. Undefined (the index asked for
 * the whole term, as before) when the term is not plain ASCII, the part finds more than EMAIL_CANDIDATES, or a
 * candidate's text is not plain ASCII or has an "@" outside its email.
 */
function emailMatches(ctx: AppContext, term: string): number[] | undefined {
  const at = term.indexOf("@");
  if (at < 0 || !PLAIN_ASCII.test(term)) return undefined;
  const part = at >= 2 ? term.slice(0, at + 1) : term.slice(at);
  if (part.length < 3) return undefined;
  const db = ctx.db.$client;
  const candidates = db.query<{ r: number }, [string]>(`${FTS_MATCH} ? LIMIT ${EMAIL_CANDIDATES + 1}`).all(escapeFts(part)).map((x) => x.r);
  if (candidates.length > EMAIL_CANDIDATES) return undefined;
  const rows = db
    .query<{ r: number; f: string; l: string; e: string | null; d: string }, [string]>(
      `SELECT rowid AS r, first_name AS f, last_name AS l, email AS e, phone_digits AS d FROM contacts WHERE rowid IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(candidates));
  const byRowid = new Map(rows.map((x) => [x.r, x]));
  const found: number[] = [];
  for (const r of candidates) {
    const c = byRowid.get(r);
    if (!c || c.e === null || !PLAIN_ASCII.test(c.e) || `${c.f}${c.l}${c.d}`.includes("@")) return undefined;
    if (c.e.toLowerCase().includes(term)) found.push(r);
  }
  return found;
}

/**
 * The search as a condition on the user's contacts (the CSV export walks all matches in its own order), on either
 * engine: a text search is SQLite's FTS5 index or PostgreSQL's trigram one (postgresTextMatch).
 */
export function searchCondition(q: string | undefined, userId: string, engine: "sqlite" | "postgres"): SQL | undefined {
  const s = parseSearch(q, userId);
  if (!s) return undefined;
  if (s.kind === "prefix") return s.where;
  return engine === "sqlite" ? sql`${contacts}.rowid IN (${matchesOf(s.match)})` : postgresTextMatch(s.term);
}

/** LIKE's own characters in a term, escaped (PostgreSQL's LIKE escapes with a backslash unless told otherwise). */
const likeLiteral = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A text search on PostgreSQL: the contact's search text (migration 0064's smsdesk_contact_search: names, email and
 * phone digits, lowered and without accents, which its pg_trgm index holds) holds the term folded the same way, so
 * "jose" finds "José" and "José" "Jose", as SQLite's trigram index with remove_diacritics does.
 */
const postgresTextMatch = (term: string): SQL =>
  sql`smsdesk_contact_search(${contacts.firstName}, ${contacts.lastName}, ${contacts.email}, ${contacts.phoneDigits}) LIKE '%' || lower(public.unaccent('public.unaccent'::regdictionary, ${likeLiteral(term)})) || '%'`;

const SORT_INDEX: Record<Exclude<Sort, "name">, string> = {
  createdAt: "contacts_user_created_idx",
  phone: "contacts_user_phone_idx",
};
// Ties are broken by rowid (the order contacts were stored in), which each of these indexes ends with (and
// contact_names for the name): every list order is then read straight from an index, and a page stops reading at
// its last row. This order sorts rows already chosen (a search's matches); by name they are sorted by their name
// keys here (byName), as NAMED holds them.
const SORT_COLUMNS: Record<Exclude<Sort, "name">, string[]> = {
  createdAt: ["created_at", "rowid"],
  phone: ["phone", "rowid"],
};
const orderBy = (sort: Exclude<Sort, "name">, order: Order) =>
  sql.raw(SORT_COLUMNS[sort].map((c) => `contacts.${c} ${order === "asc" ? "ASC" : "DESC"}`).join(", "));

/** A page of rows already chosen (`rows` selects their rowids as r), sorted by name key and rowid as contact_names is. */
function byName(ctx: AppContext, rows: SQL, p: PageQuery): number[] {
  const named = ctx.db
    .all<{ r: number; f: string; l: string }>(sql`SELECT m.r AS r, ${contacts.firstName} AS f, ${contacts.lastName} AS l FROM (${rows}) AS m CROSS JOIN ${contacts} ON ${contacts}.rowid = m.r`)
    .map(({ r, f, l }) => ({ r, key: nameKey(f, l) }));
  const sign = p.order === "asc" ? 1 : -1;
  named.sort((a, b) => sign * (compareKeys(a.key, b.key) || a.r - b.r));
  return named.slice((p.page - 1) * p.pageSize, p.page * p.pageSize).map((x) => x.r);
}
const indexed = (index: string) => sql`${contacts} INDEXED BY ${sql.raw(index)}`;
const andAlso = (extra: SQL | undefined) => (extra ? sql` AND ${extra}` : sql``);

const dialect = new SQLiteSyncDialect();
const rowids = (ctx: AppContext, query: SQL) => ctx.db.all<{ r: number }>(query).map((x) => x.r);
const countUpTo = (ctx: AppContext, rows: SQL, cap: number) =>
  ctx.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM (${rows} LIMIT ${cap})`)[0]!.n;

/** Whether `ownerTotal` (the owner's stored total) is every contact of every account (contact_totals, kept by triggers). */
const ownsEveryContact = (ctx: AppContext, ownerTotal: number) =>
  ctx.db.$client.query<{ n: number }, []>("SELECT coalesce(sum(total), 0) AS n FROM contact_totals").get()!.n === ownerTotal;

/**
 * A text search in creation order over many matches: walks the owner's contacts newest first and checks them
 * against the search index a chunk at a time, by the chunk's rowid range (contacts created together have
 * neighbouring rowids), until the page is full; so the cost follows the page, not the number of matches.
 */
function walkText(ctx: AppContext, owner: SQL, match: string, p: PageQuery): number[] {
  const walk = dialect.sqlToQuery(
    sql`SELECT rowid AS r FROM ${indexed(SORT_INDEX.createdAt)} WHERE ${owner} ORDER BY ${orderBy("createdAt", p.order)}`,
  );
  const check = ctx.db.$client.query<{ r: number }, [string, number, number]>(`${FTS_MATCH} ? AND rowid BETWEEN ? AND ?`);
  const need = p.page * p.pageSize;
  const found: number[] = [];
  let chunk: number[] = [];
  let size = WALK_CHUNK.first;
  const sift = () => {
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of chunk) {
      if (r < lo) lo = r;
      if (r > hi) hi = r;
    }
    const hits = new Set(check.all(match, lo, hi).map((h) => h.r));
    for (const r of chunk) if (hits.has(r)) found.push(r);
    chunk = [];
  };
  for (const { r } of ctx.db.$client
    .query<{ r: number }, SQLQueryBindings[]>(walk.sql)
    .iterate(...(walk.params as SQLQueryBindings[]))) {
    chunk.push(r);
    if (chunk.length === size) {
      sift();
      if (found.length >= need) break;
      // A sparse stretch: fewer, larger checks (each costs a search-index seek besides its matches).
      size = Math.min(WALK_CHUNK.max, size * 2);
    }
  }
  if (chunk.length) sift();
  return found.slice(need - p.pageSize, need);
}

/**
 * A first-name prefix search in creation or phone order over many matches: walks the owner's contacts in that order
 * and keeps those whose name key starts with a prefix, worked out here from the names (nameKey, as contact_names
 * holds it), until the page is full. The same test in SQL read the prefixes' whole ranges of contact_names first
 * ("jo": 100,000 names of a million, 60-90 ms); the walk stops after about page * pageSize * total / matches rows.
 */
function namePrefixWalk(ctx: AppContext, owner: SQL, prefixes: string[], p: PageQuery): number[] {
  const walk = dialect.sqlToQuery(
    sql`SELECT rowid AS r, first_name AS f, last_name AS l FROM ${indexed(SORT_INDEX[p.sort as Exclude<Sort, "name">])} WHERE ${owner} ORDER BY ${orderBy(p.sort as Exclude<Sort, "name">, p.order)}`,
  );
  const need = p.page * p.pageSize;
  const found: number[] = [];
  for (const { r, f, l } of ctx.db.$client.query<{ r: number; f: string; l: string }, SQLQueryBindings[]>(walk.sql).iterate(...(walk.params as SQLQueryBindings[]))) {
    const key = nameKey(f, l);
    if (prefixes.some((x) => key.startsWith(x)) && found.push(r) >= need) break;
  }
  return found.slice(need - p.pageSize, need);
}

/**
 * A first-name prefix search in name order: each prefix's range of contact_names is already in that order,
 * and the ranges follow one another, so the page is read range after range and stops when full.
 */
function namePrefixPage(ctx: AppContext, ranges: SQL[], extra: SQL | undefined, p: PageQuery): number[] {
  const need = p.page * p.pageSize;
  const found = new Set<number>();
  for (const range of p.order === "asc" ? ranges : [...ranges].reverse()) {
    const rows = sql`SELECT n.contact_rowid AS r FROM ${NAMED} WHERE ${range}${andAlso(extra)} ORDER BY ${nameOrder(p.order)}`;
    for (const r of rowids(ctx, sql`${rows} LIMIT ${need - found.size}`)) found.add(r);
    if (found.size >= need) break;
  }
  return [...found].slice(need - p.pageSize, need);
}

/** Rowids as bits up to the largest: a test or a mark costs a shift, where a Set of 60,000 took 7 ms to build. */
class RowidBits {
  private bits: Uint32Array;
  constructor(readonly max: number) {
    this.bits = new Uint32Array(Math.floor(max / 32) + 1);
  }
  static of(rows: number[]) {
    let max = 0;
    for (const r of rows) if (r > max) max = r;
    const bits = new RowidBits(max);
    for (const r of rows) bits.add(r);
    return bits;
  }
  add(r: number) {
    if (r <= this.max) this.bits[Math.floor(r / 32)]! |= 1 << r % 32;
  }
  has(r: number) {
    return r <= this.max && (this.bits[Math.floor(r / 32)]! & (1 << r % 32)) !== 0;
  }
}

/**
 * A text search in name order whose matches are exactly the contacts of a few first names, each of which holds the
 * term ("jose": the Josés, Joses and Josephs; "angel": the Ángels and Angelas), read without reading the matches:
 * every contact of such a first name matches (below), so when the search index counts as many matches as those
 * names have contacts, they are all the matches, and the page is the first rows of the names' ranges of
 * contact_names in name order. Counting the matches and the ranges cost "jose" (60,000 matches in a million) about
 * 10 ms of CPU where reading them and checking each name's rows against them cost 25-30 ms. Undefined when the
 * counts differ (another match: a last name, an email, a first name not sampled), and clusteredNamePage reads them.
 *
 * Why every contact of the first name matches: the term and the name, as nameKey folds them, are plain ASCII and the
 * name holds the term; the search index's text of a contact starts with its first name, which the index folds
 * letter by letter as foldName does, but for the letters it leaves (ø, ß, ł...), which the text then holds again
 * folded (searchExtra; name-key.test.ts shows both for every letter foldName folds). So the text holds the name
 * folded, and the term in it.
 */
function wholeNamesPage(ctx: AppContext, userId: string, term: string, firstNames: string[], hits: number[], p: PageQuery): number[] | undefined {
  const folded = foldName(term);
  if (!PLAIN_ASCII_TEXT.test(folded)) return undefined;
  const names = firstNames.filter((f) => PLAIN_ASCII_TEXT.test(f) && f.includes(folded)).sort(compareKeys);
  if (!names.length) return undefined;
  const db = ctx.db.$client;
  // Every match: the hits read, and those after the last one (the index answers in rowid order) counted.
  const last = hits[hits.length - 1]!;
  const matches = hits.length <= SORTED_MATCHES_CAP ? hits.length : hits.length + db.query<{ n: number }, [string, number]>(`SELECT count(*) AS n FROM contacts_fts WHERE contacts_fts MATCH ? AND rowid > ?`).get(escapeFts(term), last)!.n;
  const range = (f: string): [string, string, string] => [userId, `${f}\u0001`, `${f}\u0002`];
  const count = db.query<{ n: number }, [string, string, string]>("SELECT count(*) AS n FROM contact_names WHERE user_id = ? AND name_key >= ? AND name_key < ?");
  let named = 0;
  for (const f of names) named += count.get(...range(f))!.n;
  if (named !== matches) return undefined;
  const dir = p.order === "asc" ? "ASC" : "DESC";
  const rows = db.query<{ r: number }, [string, string, string, number]>(
    `SELECT contact_rowid AS r FROM contact_names WHERE user_id = ? AND name_key >= ? AND name_key < ? ORDER BY name_key ${dir}, contact_rowid ${dir} LIMIT ?`,
  );
  const need = p.page * p.pageSize;
  const found: number[] = [];
  for (const f of p.order === "asc" ? names : names.reverse()) {
    for (const { r } of rows.all(...range(f), need - found.length)) found.push(r);
    if (found.length >= need) break;
  }
  return found.slice(need - p.pageSize, need);
}
/** Printable ASCII, spaces included: a term or a name the search index folds as foldName does (ASCII capitals made small). */
const PLAIN_ASCII_TEXT = /^[\x20-\x7e]+$/;

/**
 * A text search in name order whose matches are mostly a few first names: "jose" finds the Josés, Joses and Josephs,
 * 60,000 in a million contacts, which lie together in name order after 400,000 others, so a walk of the name order
 * read those first (1.4 s), and looking up and sorting 60,000 matches costs 200 ms. The first names (folded as the
 * name key folds them) shared by a sample of the matches are candidates; one whose first rows nearly all match is a
 * cluster, its range of contact_names (in name order) is read and kept where it matches: only the first `need` of
 * it can be on the page. The page is then sorted from those and from every match outside the clusters (looked up). Exact whatever the
 * clusters are, since a match is either in a cluster's rows or among the rest; undefined when no cluster explains
 * enough of the matches (then they are spread over the name order, where the walk is short).
 */
function clusteredNamePage(ctx: AppContext, userId: string, s: { term: string; match: string }, hits: number[], p: PageQuery, page: (rows: SQL) => number[]) {
  const { match } = s;
  const db = ctx.db.$client;
  const step = hits.length / CLUSTER_SAMPLE;
  const sample = Array.from({ length: CLUSTER_SAMPLE }, (_, i) => hits[Math.floor(i * step)]!);
  const seen = new Map<string, number>();
  for (const { f } of db.query<{ f: string }, [string]>("SELECT first_name AS f FROM contacts WHERE rowid IN (SELECT value FROM json_each(?))").all(JSON.stringify(sample))) {
    // A first name's contacts lie together in contact_names: their keys start with it folded (nameKey), then U+0001.
    const folded = foldName(f);
    seen.set(folded, (seen.get(folded) ?? 0) + 1);
  }
  const whole = wholeNamesPage(ctx, userId, s.term, [...seen.keys()], hits, p);
  if (whole) return whole;
  const candidates = [...seen].filter(([, n]) => n > 1).map(([folded]) => [`${folded}\u0001`, `${folded}\u0002`] as const);
  // The matches read so far are every match up to the last one's rowid (the index answers in rowid order): a first
  // name is a cluster when nearly all of its rows up to there match, checked on the first of them in name order.
  const first = RowidBits.of(hits);
  const last = hits[hits.length - 1]!;
  const probe = db.query<unknown, [string, string, string, number]>(
    `SELECT contact_rowid FROM contact_names WHERE user_id = ? AND name_key >= ? AND name_key < ? AND contact_rowid <= ? LIMIT ${CLUSTER_PROBE}`,
  );
  const clusters = candidates.filter(([from, to]) => {
    const rows = probe.values(userId, from, to, last) as [number][];
    return rows.length > 0 && rows.filter(([r]) => first.has(r)).length >= rows.length * 0.9;
  });
  if (!clusters.length) return undefined;
  // The matches after the last one read (the index seeks to a rowid): reading them all again cost "jose" 5 ms of 35.
  const all =
    hits.length > SORTED_MATCHES_CAP
      ? hits.concat(rowids(ctx, sql`${matchesOf(match)} AND rowid > ${last} LIMIT ${CLUSTERED_MATCHES_CAP + 1 - hits.length}`))
      : hits;
  if (all.length > CLUSTERED_MATCHES_CAP) return undefined;
  const matched = all === hits ? first : RowidBits.of(all);
  const dir = p.order === "asc" ? "ASC" : "DESC";
  // Rows as objects: bun:sqlite builds them faster than an array each (40,000 Josés: 4.4 against 6.3 ms).
  const range = db.query<{ r: number }, [string, string, string]>(
    `SELECT contact_rowid AS r FROM contact_names WHERE user_id = ? AND name_key >= ? AND name_key < ? ORDER BY name_key ${dir}, contact_rowid ${dir}`,
  );
  const need = p.page * p.pageSize;
  const onPage: number[] = [];
  const clustered = new RowidBits(matched.max);
  let inClusters = 0;
  for (const [from, to] of clusters) {
    let taken = 0;
    for (const { r } of range.all(userId, from, to)) {
      if (!matched.has(r)) continue;
      clustered.add(r);
      inClusters++;
      if (taken++ < need) onPage.push(r);
    }
  }
  const rest = all.filter((r) => !clustered.has(r));
  if (!inClusters || rest.length > SORTED_MATCHES_CAP) return undefined;
  const rows = JSON.stringify([...onPage, ...rest]);
  return page(sql`SELECT ${contacts}.rowid AS r FROM json_each(${rows}) AS m CROSS JOIN ${contacts} ON ${contacts}.rowid = m.value WHERE ${contacts.userId} = ${userId}`);
}

/** A text search in name or phone order over many matches walks the list when that reads at most this many rows. */
const TEXT_WALK_ROWS = 10_000;
/** The most rows the walk asks the search index about (those it cannot decide: 0.1-0.3 ms each, 30-60 rows' worth). */
const UNSURE_ROWS = 100;
const ALL_ASCII = /^[\x00-\x7f]*$/;

/**
 * Whether a contact's search text (as contacts_fts holds it) holds the term (printable ASCII, small letters) as the
 * trigram index folds both: ASCII capitals made small, every other character folded to one character (its small
 * letter, its base letter) which may be any. True or false when the ASCII letters decide; undefined when a
 * character outside ASCII stands where the term could match.
 */
function holdsTerm(text: string, term: string): boolean | undefined {
  if (ALL_ASCII.test(text)) return text.toLowerCase().includes(term);
  const codes: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    codes.push(c >= 128 ? -1 : c >= 65 && c <= 90 ? c + 32 : c);
  }
  let unsure = false;
  starts: for (let i = 0; i + term.length <= codes.length; i++) {
    let any = false;
    for (let j = 0; j < term.length; j++) {
      const c = codes[i + j]!;
      if (c === -1) any = true;
      else if (c !== term.charCodeAt(j)) continue starts;
    }
    if (!any) return true;
    unsure = true;
  }
  return unsure ? undefined : false;
}

/**
 * A text search in name or phone order over many matches spread over the list ("gmail.com", a tenth of the
 * contacts): walks the owner's contacts in that order and tests each one's search text here (holdsTerm; the index
 * asked for the rows it cannot decide) until the page is full. Looking its matches up in the search index instead
 * read them all first (90,000 for "gmail.com", 130 ms in a million contacts) for a page that needs 500 rows.
 * Undefined when the term is not plain ASCII, the page is not full within `budget` rows (then the matches lie
 * together somewhere in the order, and the caller reads them from the index), or UNSURE_ROWS were not enough.
 */
function textWalk(ctx: AppContext, userId: string, owner: SQL, term: string, p: PageQuery, budget: number): number[] | undefined {
  if (!/^[\x20-\x7e]+$/.test(term)) return undefined;
  const fields = sql`${contacts}.rowid AS r, ${contacts.firstName} AS f, ${contacts.lastName} AS l, ${contacts.email} AS e, ${contacts.phoneDigits} AS d`;
  const walk = dialect.sqlToQuery(
    p.sort === "name"
      ? sql`SELECT ${fields} FROM ${NAMED} WHERE n.user_id = ${userId} AND ${owner} ORDER BY ${nameOrder(p.order)}`
      : sql`SELECT ${fields} FROM ${indexed(SORT_INDEX[p.sort as Exclude<Sort, "name">])} WHERE ${owner} ORDER BY ${orderBy(p.sort as Exclude<Sort, "name">, p.order)}`,
  );
  const check = ctx.db.$client.query<{ r: number }, [string, number]>(`${FTS_MATCH} ? AND rowid = ?`);
  const match = escapeFts(term);
  const need = p.page * p.pageSize;
  const found: number[] = [];
  let rows = 0;
  let unsure = 0;
  type Row = { r: number; f: string; l: string; e: string | null; d: string };
  for (const c of ctx.db.$client.query<Row, SQLQueryBindings[]>(walk.sql).iterate(...(walk.params as SQLQueryBindings[]))) {
    const extra = searchExtra(c.f, c.l);
    let holds = holdsTerm(`${c.f} ${c.l} ${c.e ?? ""} ${c.d}${extra ? ` ${extra}` : ""}`, term);
    if (holds === undefined) {
      if (++unsure > UNSURE_ROWS) return undefined;
      holds = check.all(match, c.r).length > 0;
    }
    if (holds && found.push(c.r) >= need) return found.slice(need - p.pageSize, need);
    if (++rows > budget) return undefined;
  }
  return found.slice(need - p.pageSize, need);
}

/**
 * A page of the owner's contacts in name order (rowids) that meet `where` (conditions on contacts; the whole list's
 * pages are list-marks.ts').
 */
function namePage(ctx: AppContext, userId: string, p: PageQuery, where: SQL): number[] {
  return rowids(
    ctx,
    sql`SELECT n.contact_rowid AS r FROM ${NAMED} WHERE n.user_id = ${userId} AND ${where} ORDER BY ${nameOrder(p.order)} LIMIT ${p.pageSize} OFFSET ${(p.page - 1) * p.pageSize}`,
  );
}

/**
 * One page of the owner's contacts (rowids in list order) matching a search and optional conditions, and
 * their number up to COUNT_CAP. With few matches the page starts from them (the search index, or the prefix
 * range of an index) and sorts them; with many it walks the list order and keeps the matching rows, which
 * stops as soon as the page is full. The choice compares the two costs from the capped count.
 */
/**
 * Conditions that can also be read from their own index (a segment of one tag: contact_tags): `counted` counts
 * their contacts up to a cap from it alone, `driven` is the condition written to start from it. With few rows
 * a page is sorted from them, with many the list order is walked (json_each per contact, as `extra` says).
 */
export type IndexedFilter = {
  counted: (cap: number) => Promise<number>;
  driven: SQL;
  /** A page of its contacts in creation order (rowids), from its own index, when it can. */
  inCreationOrder?: (order: Order, limit: number, offset: number) => Promise<number[]>;
};

export async function searchPage(ctx: AppContext, userId: string, p: PageQuery, extra: SQL | undefined, ownerTotal: number, fromIndex?: IndexedFilter) {
  await ready(ctx.db);
  const owner = and(eq(contacts.userId, userId), extra)!;
  const s = parseSearch(p.q, userId);
  const page = (rows: SQL) =>
    p.sort === "name" ? byName(ctx, rows, p) : rowids(ctx, sql`${rows} ORDER BY ${orderBy(p.sort, p.order)} LIMIT ${p.pageSize} OFFSET ${(p.page - 1) * p.pageSize}`);
  // The owner's contacts in list order, those that meet `condition`: by name from NAMED, else through the sort's index.
  const inOrder = (condition?: SQL) =>
    p.sort === "name"
      ? namePage(ctx, userId, p, and(owner, condition)!)
      : page(sql`SELECT rowid AS r FROM ${indexed(SORT_INDEX[p.sort])} WHERE ${owner}${andAlso(condition)}`);
  if (!s && fromIndex?.inCreationOrder && p.sort === "createdAt") {
    // A segment of one tag in creation order: a range of contact_tags's key (vip's page 20 walked 100,000 entries of
    // the index of contacts by creation, 12 ms of CPU).
    return { rowids: await fromIndex.inCreationOrder(p.order, p.pageSize, (p.page - 1) * p.pageSize), n: await fromIndex.counted(COUNT_CAP + 1) };
  }
  if (!s && fromIndex) {
    // A segment of one tag: counted from contact_tags (walking a million contacts for 10,001 of a 1% tag's, with
    // json_each on each, took 0.7-1.5 s), the page sorted from the tag's rows when that costs less than the walk.
    // Counted past COUNT_CAP (from the index alone, a few ms) so that a deep page of a tag of 10,000-20,000 is
    // sorted from its rows: the walk to vip's page 20 read 100,000 contacts (122 ms p50 on the search bench).
    const n = await fromIndex.counted(SORTED_MATCHES_CAP + 1);
    const walkRows = (p.page * p.pageSize * ownerTotal) / Math.max(1, n);
    if (n <= SORTED_MATCHES_CAP && n * FROM_MATCHES_COST <= walkRows * WALK_COST) {
      return { rowids: page(sql`SELECT rowid AS r FROM ${contacts} WHERE ${contacts.userId} = ${userId} AND ${fromIndex.driven}`), n };
    }
    return { rowids: inOrder(), n };
  }
  if (!s) return { rowids: inOrder(), n: countUpTo(ctx, sql`SELECT rowid AS r FROM ${contacts} WHERE ${owner}`, COUNT_CAP + 1) };
  let matched =
    s.kind === "text"
      ? sql`SELECT ${contacts}.rowid AS r FROM (${matchesOf(s.match)}) AS m CROSS JOIN ${contacts} ON ${contacts}.rowid = m.r WHERE ${owner}`
      : s.rows(extra);
  const emails = s.kind === "text" ? emailMatches(ctx, s.term) : undefined;
  const listed = (hits: number[]) =>
    sql`SELECT ${contacts}.rowid AS r FROM json_each(${JSON.stringify(hits)}) AS m CROSS JOIN ${contacts} ON ${contacts}.rowid = m.value WHERE ${owner}`;
  if (emails) matched = listed(emails);
  let n: number;
  // How many matches the search index gave, when it was asked for more than the count's cap.
  let matches: number | undefined;
  if (s.kind === "text" && !extra && ownsEveryContact(ctx, ownerTotal)) {
    // The owner has every contact there is (one account, as in most installations), so every search-index row is
    // theirs: the matches up to the cap are read from the index alone, once. Their number is the count (no lookup
    // of 10,001 contacts to check their owner), and when few they are the page's candidates (a search of many
    // words costs its time in the index: it is not evaluated twice).
    const sorted = p.sort !== "createdAt";
    // An email's matches (at most EMAIL_CANDIDATES) are all of them, as the index would answer them below the cap.
    const hits = emails ?? rowids(ctx, sql`${matchesOf(s.match)} LIMIT ${(sorted ? SORTED_MATCHES_CAP : COUNT_CAP) + 1}`);
    n = Math.min(hits.length, COUNT_CAP + 1);
    matches = hits.length;
    if (p.sort === "name" && hits.length > CLUSTERED_FROM) {
      const clustered = clusteredNamePage(ctx, userId, s, hits, p, page);
      if (clustered) return { rowids: clustered, n };
    }
    const fromHits = listed(hits);
    if (sorted && hits.length <= SORTED_MATCHES_CAP) return { rowids: page(fromHits), n };
    if (n <= COUNT_CAP) matched = fromHits;
  } else n = countUpTo(ctx, s.kind === "prefix" ? s.counted(extra) : matched, COUNT_CAP + 1);
  if (s.kind === "prefix" && s.byName && p.sort === "name") return { rowids: namePrefixPage(ctx, s.ranges, extra, p), n };
  const walkRows = (p.page * p.pageSize * Math.max(ownerTotal, n)) / Math.max(1, n);
  if (n <= COUNT_CAP && n * FROM_MATCHES_COST <= walkRows * WALK_COST) return { rowids: page(matched), n };
  if (s.kind === "prefix") return { rowids: s.byName ? namePrefixWalk(ctx, owner, s.prefixes, p) : inOrder(s.filter), n };
  if (p.sort === "createdAt") return { rowids: walkText(ctx, owner, s.match, p), n };
  // Matches spread evenly would fill the page within this many rows (fewer: n is counted up to a cap); the walk
  // may read twice as many before it leaves the page to the search index.
  const spread = (p.page * p.pageSize * Math.max(ownerTotal, n)) / Math.max(1, matches ?? n);
  const walked = spread <= TEXT_WALK_ROWS ? textWalk(ctx, userId, owner, s.term, p, 2 * spread) : undefined;
  if (walked) return { rowids: walked, n };
  return { rowids: inOrder(sql`${contacts}.rowid IN (${matchesOf(s.match)})`), n };
}
