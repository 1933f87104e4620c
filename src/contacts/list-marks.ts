import type { RecordsDb } from "../../db/records";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { nextTurn } from "../time/next-turn";
import type { PageQuery } from "./search";

/**
 * A page of an owner's whole contact list (no search, no filter) by its number, without stepping over every row
 * before it: OFFSET reads each entry of the index it skips (page 10,000 of a million, newest first: 500,000 entries,
 * 27 ms of CPU, 80-140 ms on the loaded benchmark machine). Saved positions ("marks") hold the key of every
 * MARK_EVERYth row of the list counted from one end; a page is read from an end, from the mark before it, and steps
 * over fewer than MARK_EVERY rows. The total (contact_totals) is exact, so a page's distance from the other end is
 * known.
 *
 * Marks are kept in this process for the owner's list as it was at one list_version (contact_totals, migration 0078:
 * bumped by every insert and delete of a contact, every change of its names, phone, email, creation time or owner,
 * and every write of an import's names to contact_names), and dropped when it differs, so a page answers exactly what
 * OFFSET would. They are made as pages need them, each one step of MARK_EVERY rows from the one before: the first deep
 * page after a change costs about what OFFSET cost (32-35 ms of CPU for page 10,000 of a million against 28-31), in
 * turns of a few steps (markAhead), the pages after it (the next, the previous, any nearer the end) a step at most
 * (0.3-0.9 ms). A list shorter than its total (an import's names not all added yet) stops making marks at its end and
 * steps from the last one.
 */
const MARK_EVERY = 5_000;
/** Lists (an owner, an order and a direction) whose marks are kept, the least recently used dropped first. */
const KEPT_LISTS = 64;

type Key = [number | string, number];
type Marks = { version: number; keys: Key[] };
/** Per database: a restored database (backups) is a new connection, whose lists start again. */
const kept = new WeakMap<RecordsDb, Map<string, Marks>>();

/**
 * Each order of the list as an index holds it: its key then the rowid. A phone may be null, which a comparison of
 * keys passes over: the phone order's marks are counted from the start, where the null phones come (SQLite sorts
 * NULL first; PostgreSQL is told to), and none is made at a null phone (past more than MARK_EVERY of them a page
 * steps from the start). SQLite's planner is named the index to read; PostgreSQL's chooses it.
 */
const ORDERS = {
  createdAt: { from: { sqlite: "contacts INDEXED BY contacts_user_created_idx", postgres: "contacts" }, key: "created_at", rowid: "rowid", nulls: false },
  name: { from: { sqlite: "contact_names", postgres: "contact_names" }, key: "name_key", rowid: "contact_rowid", nulls: false },
  phone: { from: { sqlite: "contacts INDEXED BY contacts_user_phone_idx", postgres: "contacts" }, key: "phone", rowid: "rowid", nulls: true },
} as const;

/** The list's order in a direction, as an ORDER BY of the engine's text. */
function orderOf(db: RecordsDb, sort: PageQuery["sort"], dir: "ASC" | "DESC"): string {
  const o = ORDERS[sort];
  const nulls = o.nulls && db.$engine === "postgres" ? (dir === "ASC" ? " NULLS FIRST" : " NULLS LAST") : "";
  return `ORDER BY ${o.key} ${dir}${nulls}, ${o.rowid} ${dir}`;
}

/** The owner's list_version: what their marks were made at must equal it. */
async function listVersion(db: RecordsDb, userId: string): Promise<number> {
  const [row] = await db.$rows<{ v: number }>("SELECT list_version AS v FROM contact_totals WHERE user_id = ?", [userId]);
  return row?.v ?? 0;
}

/** How many marks of the list are kept and still hold (none when the list changed since). */
async function marksMade(db: RecordsDb, userId: string, list: string): Promise<number> {
  const marks = kept.get(db)?.get(`${userId}\u0000${list}`);
  return marks && marks.version === (await listVersion(db, userId)) ? marks.keys.length : 0;
}

async function marksOf(db: RecordsDb, userId: string, list: string): Promise<Marks> {
  const version = await listVersion(db, userId);
  let lists = kept.get(db);
  if (!lists) kept.set(db, (lists = new Map()));
  const id = `${userId}\u0000${list}`;
  let marks = lists.get(id);
  lists.delete(id);
  if (!marks || marks.version !== version) marks = { version, keys: [] };
  lists.set(id, marks);
  if (lists.size > KEPT_LISTS) lists.delete(lists.keys().next().value!);
  return marks;
}

/** Rowids of the owner's list in `sort` order, `dir`, from position `offset` (OFFSET: each row before it read). */
async function stepped(db: RecordsDb, userId: string, sort: PageQuery["sort"], dir: "ASC" | "DESC", offset: number, limit: number): Promise<number[]> {
  const o = ORDERS[sort];
  const rows = await db.$rows<{ r: number }>(`SELECT ${o.rowid} AS r FROM ${o.from[db.$engine]} WHERE user_id = ? ${orderOf(db, sort, dir)} LIMIT ? OFFSET ?`, [
    userId,
    limit,
    offset,
  ]);
  return rows.map((x) => x.r);
}

/** A list's order and direction as statements: a range from a key on, and the count of a key's rows before a mark (ties). */
function rangeOf(db: RecordsDb, userId: string, sort: PageQuery["sort"], dir: "ASC" | "DESC") {
  const o = ORDERS[sort];
  const table = o.from[db.$engine];
  const order = orderOf(db, sort, dir);
  // From a mark's key on, as a range of the index; the rows of that key before the mark's rowid (ties, few) are
  // counted and stepped over. Written as a comparison of (key, rowid) pairs, the index of contacts (whose rowid
  // SQLite does not range over) tested the pair on every row stepped over: the marks to page 10,000 cost 38-42 ms
  // against 26-33 for OFFSET.
  const from = (what: string) => `SELECT ${what} FROM ${table} WHERE user_id = ? AND ${o.key} ${dir === "ASC" ? ">=" : "<="} ? ${order} LIMIT ? OFFSET ?`;
  const ties = `SELECT count(*) AS n FROM ${table} WHERE user_id = ? AND ${o.key} = ? AND ${o.rowid} ${dir === "ASC" ? "<" : ">"} ?`;
  const before = async ([k, r]: Key) => (await db.$rows<{ n: number }>(ties, [userId, k, r]))[0]!.n;
  return { o, table, order, from, before };
}

/**
 * The list's marks made up to `want` of them (keys[i] is the key of the row at position (i + 1) * MARK_EVERY), at most
 * `steps` more; `done` when it got there or to the list's end.
 */
async function extendMarks(db: RecordsDb, userId: string, sort: PageQuery["sort"], dir: "ASC" | "DESC", want: number, steps = Infinity) {
  const { o, table, order, from, before } = rangeOf(db, userId, sort, dir);
  type Row = { k: number | string; r: number };
  const marks = await marksOf(db, userId, `${sort} ${dir}`);
  const first = `SELECT ${o.key} AS k, ${o.rowid} AS r FROM ${table} WHERE user_id = ? ${order} LIMIT 1 OFFSET ?`;
  const next = from(`${o.key} AS k, ${o.rowid} AS r`);
  for (let step = 0; marks.keys.length < want; step++) {
    if (step >= steps) return { marks, done: false };
    const made = marks.keys.length;
    const at = marks.keys[made - 1];
    const [row] = at
      ? await db.$rows<Row>(next, [userId, at[0], 1, MARK_EVERY + (await before(at))])
      : await db.$rows<Row>(first, [userId, MARK_EVERY]);
    // Another page of this list made this mark while the statement ran (PostgreSQL's reads overlap; SQLite's do not).
    if (marks.keys.length !== made) continue;
    if (!row || row.k === null) break;
    marks.keys.push([row.k, row.r]);
  }
  return { marks, done: true };
}

/**
 * Rowids of the owner's list in `sort` order, `dir`, from position `offset` (in that direction), at most `limit`,
 * from the mark before it.
 */
async function marked(db: RecordsDb, userId: string, sort: PageQuery["sort"], dir: "ASC" | "DESC", offset: number, limit: number): Promise<number[]> {
  const { o, from, before } = rangeOf(db, userId, sort, dir);
  const want = Math.floor(offset / MARK_EVERY);
  const { marks } = await extendMarks(db, userId, sort, dir, want);
  const reached = Math.min(want, marks.keys.length);
  if (!reached) return stepped(db, userId, sort, dir, offset, limit);
  const mark = marks.keys[reached - 1]!;
  const rows = await db.$rows<{ r: number }>(from(`${o.rowid} AS r`), [userId, mark[0], limit, offset - reached * MARK_EVERY + (await before(mark))]);
  return rows.map((x) => x.r);
}

/**
 * The rowids of page `p` of the owner's whole list (`total` contacts), in its order. A page within MARK_EVERY rows of
 * an end is read from that end with OFFSET; a deeper one from a mark.
 */
export async function listPage(ctx: AppContext, userId: string, p: PageQuery, total: number): Promise<number[]> {
  await ready(ctx.db);
  const db = ctx.records;
  const at = await placeOf(db, userId, p, total);
  if (!at) return [];
  const { fromStart, depth, dir, limit } = at;
  const rows = depth < MARK_EVERY ? await stepped(db, userId, p.sort, dir, depth, limit) : await marked(db, userId, p.sort, dir, depth, limit);
  return fromStart === (p.order === "asc") ? rows : rows.reverse();
}

/**
 * Where page `p` of a list of `total` is read from: the end (fromStart or not), its depth from that end and its
 * rows; undefined for a page past the list.
 */
async function placeOf(db: RecordsDb, userId: string, p: PageQuery, total: number) {
  const offset = (p.page - 1) * p.pageSize;
  // The page as a window of the ascending list: [lo, lo + limit), and `after` rows after it.
  const end = p.order === "asc" ? offset + p.pageSize : total - offset;
  const lo = Math.max(0, end - p.pageSize);
  const limit = Math.max(0, Math.min(end, total) - lo);
  if (!limit) return undefined;
  const after = total - lo - limit;
  // Read from the end with fewer rows to step over: fewer rows before the page, or marks made nearer to it (the
  // pages either side of the middle would otherwise each make a whole set from their own end); the phone order's
  // marks only from the start.
  const toStep = async (depth: number, list: string) => depth - Math.min(Math.floor(depth / MARK_EVERY), await marksMade(db, userId, list)) * MARK_EVERY;
  const fromStart =
    after < MARK_EVERY ? false : p.sort === "phone" || lo < MARK_EVERY || (await toStep(lo, `${p.sort} ASC`)) <= (await toStep(after, `${p.sort} DESC`));
  return { fromStart, depth: fromStart ? lo : after, dir: fromStart ? ("ASC" as const) : ("DESC" as const), limit };
}

/**
 * Marks made in one turn of the event loop by markAhead: each steps over MARK_EVERY entries of an index (0.3 ms of
 * CPU on a quiet machine, 1-2 ms on the loaded benchmark machine).
 */
const MARKS_A_TURN = 4;

/**
 * Makes the marks page `p` of the owner's whole list will start from, MARKS_A_TURN at a time with a turn of the event
 * loop between, before the page is read (listContacts reads it in a transaction, in one turn): made there, the first
 * deep page after a change held the loop as long as OFFSET did (page 10,000 of a million: 100 steps, 31-51 ms of the
 * loop's own work on the search bench at a load of 21-24). Each turn reads the total and the list's version again:
 * marks of a list that changed meanwhile start again (marksOf), and after as many turns as the marks first needed
 * the page makes what is still missing itself.
 */
export async function markAhead(ctx: AppContext, userId: string, p: PageQuery): Promise<void> {
  let turns = Infinity;
  for (let turn = 0; turn < turns; turn++) {
    if (turn) await nextTurn();
    await ready(ctx.db);
    const db = ctx.records;
    const [row] = await db.$rows<{ n: number }>("SELECT total AS n FROM contact_totals WHERE user_id = ?", [userId]);
    const at = await placeOf(db, userId, p, row?.n ?? 0);
    if (!at || at.depth < MARK_EVERY) return;
    const want = Math.floor(at.depth / MARK_EVERY);
    const { marks, done } = await extendMarks(db, userId, p.sort, at.dir, want, MARKS_A_TURN);
    if (done) return;
    if (turn === 0) turns = Math.ceil((want - marks.keys.length) / MARKS_A_TURN) + 1;
  }
}
