import type { Database } from "bun:sqlite";
import { eq } from "drizzle-orm";
import { contactImports } from "../../db/schema";
import type { AppContext } from "../context";
import { nextTurn } from "../time/next-turn";
import { nextSlice, SLICE_ROWS } from "./import-pace";

/**
 * A CSV import's contacts get their rows of contact_names (the list in name order, migration 0042) a part at a
 * time, once this many contacts were stored since the last part, and the rest at the end. Sorted by name, a part's
 * names fill neighbouring pages of the table: the more names a part holds, the fewer pages each transaction writes.
 */
const NAMES_PART = 250_000;

/** Rowids of one owner's contacts from `from` to `to`, in name order where a worker sorted them. */
type Sorter = { sort: (userId: string, from: number, to: number) => Promise<ArrayLike<number>>; stop: () => void };

/** Rowids in pieces of this many on the main thread (no worker): each a short read, with a turn after it. */
const UNSORTED_PIECE = 20_000;
/**
 * A part of at most this many rowids is not sorted: its names go in a few transactions all the same (about 17 us a
 * name unsorted, 0.3 s in all), and most imports are this small, so they start no thread for it.
 */
const SORTED_FROM = 20_000;

/** Without a worker: the rowids in their own order (the names go in all the same, on pages all over). */
function onThisThread(db: Database): Sorter {
  const piece = db.query<{ r: number }, [string, number, number]>("SELECT rowid AS r FROM contacts WHERE rowid BETWEEN ?2 AND ?3 AND user_id = ?1");
  return {
    sort: async (userId, from, to) => {
      const out: number[] = [];
      for (let a = from; a <= to; a += UNSORTED_PIECE) {
        for (const { r } of piece.all(userId, a, Math.min(to, a + UNSORTED_PIECE - 1))) out.push(r);
        await nextTurn();
      }
      return out;
    },
    stop: () => {},
  };
}

/**
 * Sorts on a worker thread with a connection of its own, so a quarter of a million names (about half a second of
 * SQLite's sorter) never hold the event loop. Made from source at run time like the checkpoint worker
 * (db/checkpoints.ts): no entry point of its own in the executable. Where no worker starts, or it fails, the rowids
 * are read on this thread unsorted.
 */
function startSorter(db: Database, log: (line: string) => void): Sorter {
  const fallback = onThisThread(db);
  if (!db.filename || db.filename === ":memory:") return fallback;
  const code = `import { Database } from "bun:sqlite";
    const db = new Database(${JSON.stringify(db.filename)});
    db.exec("PRAGMA busy_timeout = 5000; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY");
    const sorted = db.query("SELECT rowid FROM contacts WHERE rowid BETWEEN ?2 AND ?3 AND user_id = ?1 ORDER BY first_name COLLATE NOCASE, last_name COLLATE NOCASE, rowid");
    self.onmessage = (e) => {
      if (e.data === "stop") { sorted.finalize(); db.close(); self.postMessage("closed"); return; }
      const { userId, from, to } = e.data;
      try {
        const rows = sorted.values(userId, from, to);
        const rowids = new Float64Array(rows.length);
        for (let i = 0; i < rows.length; i++) rowids[i] = rows[i][0];
        self.postMessage({ rowids }, [rowids.buffer]);
      } catch (err) {
        self.postMessage({ error: String(err) });
      }
    };`;
  let worker: Worker | null;
  try {
    worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  } catch (err) {
    log(`contacts: the name sorter could not start (${(err as Error).message}); names are added unsorted`);
    return fallback;
  }
  const waiting: ((answer: { rowids?: Float64Array; error?: string }) => void)[] = [];
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
      const answer = await new Promise<{ rowids?: Float64Array; error?: string }>((resolve) => {
        waiting.push(resolve);
        worker!.postMessage({ userId, from, to });
      });
      return answer.rowids ?? fallback.sort(userId, from, to);
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
 * The names of one import's contacts, added after them (the importer leaves them out: namesLater). `from` is the
 * first contact rowid whose name may be missing, kept in the job's record (contact_imports.names_from) with each part
 * added, so that a restart adds the rest (resumeImportNames in csv-import.ts). Each transaction reads the contacts'
 * names as they are then: a contact renamed or deleted meanwhile has its name kept by the triggers, and the row
 * added here is the same one (INSERT OR IGNORE) or none.
 */
export class ImportNames {
  private unsorted: Sorter;
  private sorter: Sorter | null = null;
  private add: ReturnType<Database["prepare"]>;
  private maxRowid: ReturnType<Database["prepare"]>;
  /** A sorted part being added: its rowids, how many are in, and the last rowid it covers. */
  private part: { rowids: ArrayLike<number>; at: number; to: number } | null = null;
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
    this.add = db.prepare(
      `INSERT OR IGNORE INTO contact_names (user_id, first_name, last_name, contact_rowid)
       SELECT user_id, first_name, last_name, rowid FROM contacts WHERE rowid IN (SELECT value FROM json_each(?))`,
    );
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
      .then((rowids) => {
        this.part = { rowids, at: 0, to };
      })
      .catch((err) => this.ctx.log(`contacts: the names from contact ${from} could not be read: ${(err as Error)?.message ?? err}`))
      .finally(() => {
        this.sorting = null;
      });
  }

  /** Adds one transaction of names if a sorted part waits (about SLICE_TARGET_MS); whether it did. `then` runs in the part's last. */
  step(then?: () => void): boolean {
    const part = this.part;
    if (!part) return false;
    const end = Math.min(part.rowids.length, part.at + this.rows);
    const last = end === part.rowids.length;
    const chunk: number[] = [];
    for (let i = part.at; i < end; i++) chunk.push(part.rowids[i]!);
    const began = performance.now();
    this.ctx.db.$client.transaction(() => {
      if (chunk.length) this.add.run(JSON.stringify(chunk));
      if (last) {
        this.from = part.to + 1;
        this.ctx.db.update(contactImports).set({ namesFrom: this.from }).where(eq(contactImports.id, this.jobId)).run();
        then?.();
      }
    })();
    this.rows = nextSlice(this.pace, this.rows, end - part.at, performance.now() - began);
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
        this.step();
        await nextTurn();
      }
      if (this.from !== null) {
        this.ask();
        await this.sorting;
        // Nothing to end the job with: the names stay to add (names_from), by the next start.
        if (!this.part) throw new Error(`the names from contact ${this.from} could not be read`);
        while (this.part) {
          if (stopping()) return false;
          this.step(then);
          if (!this.part) return true;
          await nextTurn();
        }
      }
      this.ctx.db.$client.transaction(then)();
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
