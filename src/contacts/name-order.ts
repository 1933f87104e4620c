import type { Database } from "bun:sqlite";
import { eq } from "drizzle-orm";
import { contactImports } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { nextTurn } from "../time/next-turn";
import { nextSlice, ownTime, SLICE_ROWS } from "./import-pace";
import { compareKeys, FOLDABLE, FOLDED_LETTERS, nameKey, searchExtra } from "./name-key";

/**
 * A CSV import's contacts get their rows of contact_names (the list in name order, migration 0042) a part at a
 * time, once this many contacts were stored since the last part, and the rest at the end. Sorted by name, a part's
 * names fill neighbouring pages of the table: the more names a part holds, the fewer pages each transaction writes.
 * The more memory too: the sorter holds a part's names several times over (rows, keys, their JSON), and the part's
 * JSON crosses to this thread; a million-row import peaked at 545 MB of RSS with parts of 250,000, 512 MB with
 * 125,000 (issue 29 item 2 bounds it at 400 MB). Parts of 60,000 took 200,000 rows into the executable to 398 and
 * 394 MB against 439 and 488 with 125,000, in alternating runs (scripts/bench/import.ts --data plain --exe), and
 * leave less to sort at the end, while the import waits.
 */
const NAMES_PART = 60_000;

/**
 * One owner's contacts from one rowid to another as the rows of contact_names need them: each a JSON array
 * [rowid, first name, last name, name key] (name-key.ts; the row is added only while those are still the contact's
 * names), joined by commas in `json`, `ends[i]` where row i's text ends. Made where the names are read (the sorting
 * worker), so that a transaction of them costs this thread one slice of text. In name order where a worker sorted them.
 */
export type NamedRows = { json: string; ends: Int32Array };
type Sorter = { sort: (userId: string, from: number, to: number) => Promise<NamedRows>; stop: () => void };

/** Rowids in pieces of this many on the main thread (no worker): each a short read, with a turn after it. */
const UNSORTED_PIECE = 20_000;
/**
 * A part of at most this many rowids is not sorted: its names go in a few transactions all the same (about 17 us a
 * name unsorted, 0.3 s in all), and most imports are this small, so they start no thread for it.
 */
const SORTED_FROM = 20_000;

/** NamedRows of contacts' [rowid, first name, last name] in that order. */
export function namedRows(rows: Iterable<{ r: number; f: string; l: string }>): NamedRows {
  const texts: string[] = [];
  for (const { r, f, l } of rows) texts.push(JSON.stringify([r, f, l, nameKey(f, l)]));
  const ends = new Int32Array(texts.length);
  let at = -1;
  texts.forEach((t, i) => (ends[i] = at += t.length + 1));
  return { json: texts.join(","), ends };
}

/** Without a worker: the rowids in their own order (the names go in all the same, on pages all over). */
function onThisThread(db: Database): Sorter {
  const piece = db.query<{ r: number; f: string; l: string }, [string, number, number]>(
    "SELECT rowid AS r, first_name AS f, last_name AS l FROM contacts WHERE rowid BETWEEN ?2 AND ?3 AND user_id = ?1",
  );
  return {
    sort: async (userId, from, to) => {
      const rows: { r: number; f: string; l: string }[] = [];
      for (let a = from; a <= to; a += UNSORTED_PIECE) {
        for (const row of piece.all(userId, a, Math.min(to, a + UNSORTED_PIECE - 1))) rows.push(row);
        await nextTurn();
      }
      return namedRows(rows);
    },
    stop: () => {},
  };
}

/**
 * Sorts on a worker thread with a connection of its own, so a quarter of a million names (about half a second of
 * SQLite's sorter) never hold the event loop; its page cache is small (8 MB), as it reads each contact once. Made
 * from source at run time like the checkpoint worker (db/checkpoints.ts): no entry point of its own in the executable. Where no worker starts, or it fails, the rowids
 * are read on this thread unsorted.
 */
function startSorter(db: Database, log: (line: string) => void): Sorter {
  const fallback = onThisThread(db);
  if (!db.filename || db.filename === ":memory:") return fallback;
  // The worker folds names with the same letters as name-key.ts (their map is passed in), so its keys are the triggers'.
  const code = `import { Database } from "bun:sqlite";
    const db = new Database(${JSON.stringify(db.filename)});
    db.exec("PRAGMA busy_timeout = 5000; PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY");
    const read = db.query("SELECT rowid, first_name, last_name FROM contacts WHERE rowid BETWEEN ?2 AND ?3 AND user_id = ?1");
    const folds = new Map(${JSON.stringify([...FOLDED_LETTERS])});
    const fold = (s) => (/[^\\u0000-\\u007f]/.test(s) ? s.replace(${FOLDABLE}, (c) => folds.get(c) ?? (c <= "Z" ? c.toLowerCase() : c)) : s.toLowerCase());
    self.onmessage = (e) => {
      if (e.data === "stop") { read.finalize(); db.close(); self.postMessage("closed"); return; }
      const { userId, from, to } = e.data;
      try {
        // Sorted as text: each row's key, U+0000 and its place among the rows read, which the array's own sort orders
        // three times as fast as a comparing function (1.4 against 4-5 us a name); ties (the same key) fall in any
        // order, which moves no row of contact_names, only when it is written. Each row read, [rowid, first, last],
        // gets its key as a fourth value and is then its own JSON.
        const rows = read.values(userId, from, to);
        const keys = rows.map((row, i) => fold(row[1]) + "\\u0001" + fold(row[2]) + "\\u0000" + i);
        keys.sort();
        const texts = keys.map((k) => {
          const cut = k.lastIndexOf("\\u0000");
          const row = rows[+k.slice(cut + 1)];
          row.push(k.slice(0, cut));
          return JSON.stringify(row);
        });
        keys.length = 0;
        rows.length = 0;
        const ends = new Int32Array(texts.length);
        let at = -1;
        for (let i = 0; i < texts.length; i++) ends[i] = at += texts[i].length + 1;
        const json = texts.join(",");
        texts.length = 0;
        self.postMessage({ json, ends }, [ends.buffer]);
      } catch (err) {
        self.postMessage({ error: String(err) });
      }
      // A part's rows are garbage now; left to itself the collector keeps them for the next part to add to.
      Bun.gc(true);
    };`;
  let worker: Worker | null;
  try {
    worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  } catch (err) {
    log(`contacts: the name sorter could not start (${(err as Error).message}); names are added unsorted`);
    return fallback;
  }
  type Answer = { json?: string; ends?: Int32Array; error?: string };
  const waiting: ((answer: Answer) => void)[] = [];
  worker.onmessage = (e) => waiting.shift()?.(e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    log(`contacts: the name sorter stopped (${e.message}); names are added unsorted`);
    worker = null;
    for (const answer of waiting.splice(0)) answer({ error: e.message });
  };
  return {
    sort: async (userId, from, to) => {
      if (!worker) return fallback.sort(userId, from, to);
      const answer = await new Promise<Answer>((resolve) => {
        waiting.push(resolve);
        worker!.postMessage({ userId, from, to });
      });
      return answer.ends && answer.json !== undefined ? { json: answer.json, ends: answer.ends } : fallback.sort(userId, from, to);
    },
    // Told to stop, it closes its connection, says so, and is ended then: a thread ended mid-query would leave its
    // read lock on the database for the life of the process.
    stop: () => {
      const stopping = worker;
      worker = null;
      if (!stopping) return;
      stopping.onmessage = (e) => e.data === "closed" && stopping.terminate();
      stopping.postMessage("stop");
    },
  };
}

/**
 * Writes the rows of contact_names of NamedRows, a range of them at a time. A row is written only while the contact
 * still has the name its key was made from: one renamed or deleted since has its row kept by the triggers.
 */
export class NameWriter {
  private add: ReturnType<Database["prepare"]>;
  private moved: ReturnType<Database["prepare"]>;

  constructor(db: Database) {
    this.add = db.prepare(
      `INSERT OR IGNORE INTO contact_names (user_id, name_key, contact_rowid)
       SELECT c.user_id, j.value ->> 3, c.rowid FROM json_each(?) AS j CROSS JOIN contacts AS c ON c.rowid = j.value ->> 0
       WHERE c.first_name = j.value ->> 1 AND c.last_name = j.value ->> 2`,
    );
    // The list by name changed: its saved positions (list-marks.ts, migration 0078) no longer hold.
    this.moved = db.prepare("UPDATE contact_totals SET list_version = list_version + 1 WHERE user_id = ?");
  }

  /** Writes rows `start` to `end` (exclusive) of `named`, the contacts of `userId`. */
  write(named: NamedRows, start: number, end: number, userId: string) {
    if (end <= start) return;
    this.add.run(`[${named.json.slice(start ? named.ends[start - 1]! + 1 : 0, named.ends[end - 1])}]`);
    this.moved.run(userId);
  }
}

/**
 * The names of one import's contacts, added after them (the importer leaves them out: namesLater). `from` is the
 * first contact rowid whose name may be missing, kept in the job's record (contact_imports.names_from) with each part
 * added, so that a restart adds the rest (resumeImportNames in csv-import.ts). The keys are made where the names are
 * read (the sorting worker): a contact renamed or deleted meanwhile has its row kept by the triggers, and none is
 * added here (NameWriter).
 */
export class ImportNames {
  private unsorted: Sorter;
  private sorter: Sorter | null = null;
  private writer: NameWriter;
  private maxRowid: ReturnType<Database["prepare"]>;
  /** A sorted part being added: its rows, how many are in, and the last rowid it covers. */
  private part: { named: NamedRows; at: number; to: number } | null = null;
  private sorting: Promise<void> | null = null;
  private askedAt = 0;
  private rows = SLICE_ROWS.first;
  private pace = { msPerRow: 0 };

  constructor(
    private ctx: AppContext,
    private userId: string,
    private jobId: string,
    private from: number | null = null,
    private partSize = NAMES_PART,
  ) {
    const db = ctx.db.$client;
    this.unsorted = onThisThread(db);
    this.writer = new NameWriter(db);
    this.maxRowid = db.prepare("SELECT coalesce(max(rowid), 0) AS m FROM contacts");
  }

  /**
   * After a transaction of the import: `from` is the first rowid it created (null until it created one), `created`
   * how many it created so far. Asks the worker to sort the next part once `partSize` more are stored.
   */
  stored(from: number | null, created: number) {
    if (this.from === null) this.from = from;
    if (this.from === null || this.sorting || this.part || created - this.askedAt < this.partSize) return;
    this.askedAt = created;
    this.ask();
  }

  private ask() {
    const from = this.from!;
    const to = (this.maxRowid.get() as { m: number }).m;
    const sorter = to - from < SORTED_FROM ? this.unsorted : (this.sorter ??= startSorter(this.ctx.db.$client, this.ctx.log));
    // A part that could not be read (the database closed by a stop meanwhile) is asked for again by finish, or the
    // next start: `from` has not moved.
    this.sorting = sorter
      .sort(this.userId, from, to)
      .then((named) => {
        this.part = { named, at: 0, to };
      })
      .catch((err) => this.ctx.log(`contacts: the names from contact ${from} could not be read: ${(err as Error)?.message ?? err}`))
      .finally(() => {
        this.sorting = null;
      });
  }

  /**
   * Adds one transaction of names if a sorted part waits (about SLICE_TARGET_MS); whether it did. `then` runs in the
   * part's last. The transaction is a ctx.withTransaction whose callback awaits nothing.
   */
  async step(then?: () => void): Promise<boolean> {
    const part = this.part;
    if (!part) return false;
    const count = part.named.ends.length;
    const end = Math.min(count, part.at + this.rows);
    const last = end === count;
    const began = ownTime();
    await this.ctx.withTransaction(async () => {
      this.writer.write(part.named, part.at, end, this.userId);
      if (last) {
        this.from = part.to + 1;
        this.ctx.db.update(contactImports).set({ namesFrom: this.from }).where(eq(contactImports.id, this.jobId)).run();
        then?.();
      }
    });
    this.rows = nextSlice(this.pace, this.rows, end - part.at, ownTime() - began);
    part.at = end;
    if (last) this.part = null;
    return true;
  }

  /**
   * Adds every name still missing, up to the last contact, with a turn of the event loop between transactions; `then`
   * runs in the last one (the job's end). Stops early, leaving the rest to the next start, when `stopping` says so.
   */
  async finish(stopping: () => boolean, then: () => void): Promise<boolean> {
    try {
      if (this.sorting) await this.sorting;
      while (this.part) {
        if (stopping()) return false;
        await this.step();
        await nextTurn();
      }
      if (this.from !== null) {
        this.ask();
        await this.sorting;
        // Nothing to end the job with: the names stay to add (names_from), by the next start.
        if (!this.part) throw new Error(`the names from contact ${this.from} could not be read`);
        while (this.part) {
          if (stopping()) return false;
          await this.step(then);
          if (!this.part) return true;
          await nextTurn();
        }
      }
      await this.ctx.withTransaction(async () => then());
      return true;
    } finally {
      this.stop();
    }
  }

  /** Stops the worker; the names not added yet are left to the next start. */
  stop() {
    this.sorter?.stop();
    this.sorter = null;
  }
}

/** Rows of the names keyed at start written a transaction at a time. */
const EARLIER_PIECE = 20_000;

/**
 * The contacts stored before migration 0052 get their name keys (and a name that needs it its folded search text)
 * at the first start after it, an owner at a time, before the server answers (server.ts awaits it before it builds
 * the routes; a restore's database-replaced hook too): in JavaScript about 2-5 us a contact, where the migration's
 * SQL would take 15-45. Sorted by key, so each transaction (ctx.withTransaction, whose callback awaits nothing) fills
 * neighbouring pages. The owner's mark goes in the last transaction: a stop before leaves it to the next start, which
 * writes the same rows.
 */
export async function keyEarlierNames(ctx: AppContext) {
  await ready(ctx.db);
  const db = ctx.db.$client;
  const owners = db.query<{ u: string }, []>("SELECT user_id AS u FROM contact_names_pending").all();
  if (!owners.length) return;
  const began = performance.now();
  const writer = new NameWriter(db);
  const read = db.query<{ r: number; f: string; l: string }, [string]>("SELECT rowid AS r, first_name AS f, last_name AS l FROM contacts WHERE user_id = ?");
  // The search index's row of a contact whose name needs its letters folded, again with them (as the triggers write it).
  const unindex = db.prepare("DELETE FROM contacts_fts WHERE rowid = ?");
  const index = db.prepare(
    "INSERT INTO contacts_fts (rowid, body) SELECT rowid, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits || ' ' || ?2 FROM contacts WHERE rowid = ?1",
  );
  const done = db.prepare("DELETE FROM contact_names_pending WHERE user_id = ?");
  let count = 0;
  for (const { u } of owners) {
    await ready(ctx.db);
    const rows = read.all(u).map((row) => ({ ...row, key: nameKey(row.f, row.l) }));
    rows.sort((a, b) => compareKeys(a.key, b.key) || a.r - b.r);
    count += rows.length;
    for (let at = 0; at < rows.length || at === 0; at += EARLIER_PIECE) {
      const piece = rows.slice(at, at + EARLIER_PIECE);
      await ctx.withTransaction(async () => {
        writer.write(namedRows(piece), 0, piece.length, u);
        for (const { r, f, l } of piece) {
          const extra = searchExtra(f, l);
          if (!extra) continue;
          unindex.run(r);
          index.run(r, extra);
        }
        if (at + EARLIER_PIECE >= rows.length) done.run(u);
      });
    }
  }
  ctx.log(`contacts: the names of ${count} contacts keyed for the list by name in ${Math.round(performance.now() - began)} ms`);
}
