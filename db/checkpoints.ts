import type { Database } from "bun:sqlite";

/**
 * Checkpoints of a connection's write-ahead log on a worker thread, for long runs of writes (a large campaign's
 * outbox, src/campaigns/outbox-writer.ts). Left to itself, the connection checkpoints after a commit that takes the
 * log past 1,000 pages, on the thread that commits: the checkpoint ends in an fsync of the database file, which on a
 * busy disk held the event loop for over a second at a time (scripts/bench/results.ts). While a run holds them, the
 * connection's own checkpoint is off and the run asks for checkpoints, which a worker does on its own connection.
 *
 * A run must also wait for them now and then. A checkpoint folds the log into the database, and the next commit
 * starts the log again from its beginning only if the checkpoint caught up with every commit before it; with commits
 * back to back it never does, and the log grew by about 6 KB per outbox row (1.8 GB at 300,000, gigabytes written to
 * disk). So a run awaits `checkpoint()` every few thousand rows (without holding the event loop: it answers when the
 * worker is done) and once at its end, and the log stays at what those rows wrote.
 *
 * A passive checkpoint takes no lock that a reader or writer of the main connection waits for, so that connection
 * never sleeps in its busy handler because of it (tests/api/outbox-checkpoints.test.ts runs with busy_timeout 0).
 */
export type Checkpoints = {
  /** Answers when a checkpoint has folded everything the log held when it was asked (or it could not). */
  checkpoint: () => Promise<void>;
  /** The run is over; the last one out restores the connection's own checkpoints. */
  release: () => void;
};

/** At most this many checkpoints in a row for one request (each later one folds only what commits added meanwhile). */
const PASSES = 4;

/** The connection checkpointing itself, as outside a run (and without a database file or a worker). */
const own: Checkpoints = { checkpoint: () => Promise.resolve(), release: () => {} };

/**
 * Starts the worker and turns the connection's own checkpoints off; where no worker starts or it fails, the
 * connection checkpoints itself again and the failure is logged ("could not start": the executable's test looks for it).
 */
function offThread(db: Database, log: (line: string) => void): Checkpoints {
  if (!db.filename || db.filename === ":memory:") return own;
  const autoWas = (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
  const limitWas = (db.query("PRAGMA journal_size_limit").get() as { journal_size_limit: number }).journal_size_limit;
  const done: (() => void)[] = [];
  let worker: Worker | null = null;
  const ownAgain = () => {
    worker = null;
    db.exec(`PRAGMA wal_autocheckpoint = ${autoWas}; PRAGMA journal_size_limit = ${limitWas}`);
    for (const resolve of done.splice(0)) resolve();
  };
  try {
    // A checkpoint is repeated until one finds nothing more to fold: commits made on the main connection while one
    // ran (the engine's, a request's) are after what it folded, and the log starts again from its beginning only
    // once everything in it is folded. Told to stop, it closes its connection between checkpoints, then is ended:
    // a thread killed mid-checkpoint would leave its locks on the database held for the life of the process
    // ("database is locked"). One that fails (another checkpoint under way) answers all the same: the next request
    // folds what it did not. Made from source at run time, it needs no entry point of its own in the executable.
    const code = `import { Database } from "bun:sqlite";
      const db = new Database(${JSON.stringify(db.filename)});
      const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
      self.onmessage = (e) => {
        if (e.data === "stop") { checkpoint.finalize(); db.close(); self.postMessage("closed"); return; }
        try {
          for (let i = 0, last = -1; i < ${PASSES}; i++) {
            const { log, checkpointed } = checkpoint.get();
            if (log === checkpointed && log === last) break;
            last = log;
          }
        } catch {}
        self.postMessage("done");
      };`;
    worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  } catch (err) {
    log(`db: the checkpoint worker could not start (${(err as Error).message}); the connection checkpoints itself`);
    return own;
  }
  worker.onmessage = () => done.shift()?.();
  worker.onerror = (e) => {
    e.preventDefault();
    if (!worker) return;
    log(`db: the checkpoint worker could not start or stopped (${e.message}); the connection checkpoints itself`);
    ownAgain();
  };
  // The log is cut back to its usual size (db/client.ts) when it starts again after the run, not at every restart.
  db.exec("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = -1");
  return {
    checkpoint: () =>
      new Promise<void>((resolve) => {
        if (!worker) return resolve();
        done.push(resolve);
        worker.postMessage("checkpoint");
      }),
    // The worker is ended once it says its connection is closed (Bun's workers have no self.close).
    release: () => {
      const stopping = worker;
      if (!stopping) return;
      stopping.onmessage = (e) => e.data === "closed" && stopping.terminate();
      stopping.postMessage("stop");
      ownAgain();
    },
  };
}

const held = new WeakMap<Database, { runs: number; checkpoints: Checkpoints }>();

/**
 * Off-thread checkpoints of `db` for a run of writes, shared by every run at the same time: started with the first,
 * released with the last. (A setting of the connection: a crash loses nothing, the log is checkpointed at the next
 * start.) Whoever else sets wal_autocheckpoint meanwhile should restore the connection's value, not the 0 it found.
 */
export function holdCheckpoints(db: Database, log: (line: string) => void): Checkpoints {
  let state = held.get(db);
  if (!state) held.set(db, (state = { runs: 0, checkpoints: own }));
  if (state.runs++ === 0) state.checkpoints = offThread(db, log);
  const shared = state;
  let released = false;
  return {
    checkpoint: () => shared.checkpoints.checkpoint(),
    release: () => {
      if (released) return;
      released = true;
      if (--shared.runs === 0) shared.checkpoints.release();
    },
  };
}
