import { AsyncLocalStorage } from "node:async_hooks";
import type { Database } from "bun:sqlite";
import type { Db } from "./client";
import type { PostgresRecords } from "./postgres/records-db";

/**
 * Transactions that async callers can share one bun:sqlite connection with (issue 30 item 2).
 *
 * A SQLite connection has one transaction at a time, and it belongs to whoever runs statements on the connection. As
 * long as every transaction ran synchronously, nothing else could run inside one. Once a transaction's callback
 * `await`s, other requests' code runs in the pause, and its statements would silently join the open transaction:
 * seeing its uncommitted rows, and rolled back with it. So here:
 *
 * - A transaction is a turn on the connection: transactions queue for it (an async lock), one at a time, each end
 *   handing it to the first waiter; a backlog yields to the event loop every TURN_BUDGET_MS.
 * - The code that runs inside one is known by an AsyncLocalStorage frame, carried across its `await`s. Any other
 *   caller's statement waits until the transaction has committed or rolled back, so it neither sees nor joins its
 *   writes. The check is made per statement, at the moment it would run: `ctx.records` (db/records.ts) runs each
 *   statement at once when no other caller's transaction is open, and otherwise waits for its turn and runs in the
 *   same synchronous step as its last check (`statementGate`), so no transaction can begin between them, however many
 *   `await`s a record takes. A record still running statements synchronously on `ctx.db` asks `ready(db)` first (the
 *   same wait, once) and runs them with no `await` between.
 * - A transaction claims the connection at once and runs its BEGIN a microtask later: a record let go just before
 *   (by `ready`, with nothing open or when a transaction ended) has its continuation queued already, so its
 *   synchronous statements run first, outside the transaction; a record asking after the claim waits for its end.
 * - A transaction begun inside another joins it as a savepoint: its error rolls back only its own writes (then
 *   rethrows), its success leaves them to the outer commit. Savepoints of one frame are taken one at a time, so two
 *   nested calls run side by side (Promise.all) do not release each other's savepoints.
 *
 * Code that still runs statements synchronously (the folders not yet converted, listed in the architecture test)
 * cannot wait; a synchronous bun:sqlite transaction begun inside an open one becomes a savepoint of it (bun:sqlite
 * and drizzle nest that way), which is right when it is called from the transaction's own code.
 */

type Frame = {
  /** The transaction this frame belongs to (itself, for the outermost). */
  root: Frame;
  /** Savepoints taken directly in this frame run one after another: the last one's end. */
  children: Promise<unknown>;
  /** Run once the transaction has ended (the outermost frame's list). */
  ended?: (() => void)[];
};

type State = {
  /** The outermost frame of the transaction open on the connection (or claimed, its BEGIN a microtask away), or null. */
  open: Frame | null;
  /** Resolves when the open transaction ends. */
  ended: Promise<void>;
  /**
   * Callers waiting to begin one, in arrival order, each as the call that begins it: a newcomer does not pass them,
   * and a transaction's end hands the connection to the first alone (waking every waiter on each end cost a backlog
   * of n transactions n² wake-ups).
   */
  waiting: (() => void)[];
  /** Whether the connection is being handed to the first waiter (its call is scheduled). */
  handing: boolean;
  /** When the first transaction of this turn of the event loop began (null: none yet this turn). */
  turnStarted: number | null;
  savepoints: number;
};

/**
 * Transactions handed on from one to the next within one turn of the event loop, for this long at most: then the next
 * begins in a later turn, so a backlog (a burst of webhooks, each its transaction) lets the loop answer requests and
 * write to sockets between, instead of holding it until the backlog is gone.
 */
export const TURN_BUDGET_MS = 8;
/** The budget in force (a test sets another to see the hand-off apart from it). */
export const turnBudget = { ms: TURN_BUDGET_MS };

const frames = new AsyncLocalStorage<Frame>();

/**
 * On PostgreSQL, `ctx.db` stands for the installation's database (src/server.ts `postgresDb`): its transactions are
 * PostgreSQL's, each on a connection of its own (db/postgres/records-db.ts), and a record needs no turn.
 */
const postgresOf = (db: Db) => (db as { $postgres?: PostgresRecords }).$postgres;
/**
 * One state per database file, not per connection: SQLite's write lock is the file's, and a connection waiting for it
 * blocks its thread (the busy timeout), so two connections of one thread to one file (a second app on the data
 * folder, as the shared-limits test runs one) each writing in a transaction across an await would hold the lock and
 * wait for it in turn until the timeout. Their transactions take turns here instead. In-memory databases are each
 * their own.
 */
const fileStates = new Map<string, State>();
const memoryStates = new WeakMap<Database, State>();
const isFile = (client: Database) => !!client.filename && client.filename !== ":memory:";
const knownState = (client: Database) => (isFile(client) ? fileStates.get(client.filename) : memoryStates.get(client));

function stateOf(client: Database): State {
  let state = knownState(client);
  if (!state) {
    state = { open: null, ended: Promise.resolve(), waiting: [], handing: false, turnStarted: null, savepoints: 0 };
    if (isFile(client)) fileStates.set(client.filename, state);
    else memoryStates.set(client, state);
  }
  return state;
}

/** Whether the caller runs inside the transaction open on `state`'s connection. */
const belongs = (state: State) => frames.getStore()?.root === state.open;

/**
 * Resolves once the caller may run statements on `db`: at once (undefined, no promise) when no transaction of another
 * caller is open, otherwise when the transaction open now (and any claimed before the caller's turn) has ended. A
 * record running synchronous statements on `ctx.db` awaits it, then runs them with no `await` between: a transaction
 * claimed meanwhile runs its BEGIN only after them (see `begin`). Statements on `ctx.records` wait by themselves
 * (`statementGate`); awaiting `ready` before them costs a microtask and changes nothing.
 */
export function ready(db: Db): Promise<void> | undefined {
  if (postgresOf(db)) return undefined;
  const state = stateOf(db.$client);
  return state.open && !belongs(state) ? waitTurn(state) : undefined;
}

async function waitTurn(state: State) {
  // Another transaction queued ahead may claim the connection as soon as this one ends: wait again until none is open.
  while (state.open && !belongs(state)) await state.ended;
}

/**
 * The per-statement check of `ctx.records` on SQLite (db/records.ts), for `client`'s connection: `free()` answers
 * whether the caller may run a statement now (no transaction open, or the caller inside it); `later(statement)` waits
 * until it may and runs `statement` in the same synchronous step as that last check, so no transaction begins between.
 * Split in two so the common case (free) costs a property read and no promise.
 */
export type StatementGate = { free(): boolean; later<T>(statement: () => T): Promise<T> };

export function statementGate(client: Database): StatementGate {
  const state = stateOf(client);
  return {
    free: () => !state.open || belongs(state),
    async later(statement) {
      while (state.open && !belongs(state)) await state.ended;
      return statement();
    },
  };
}

/**
 * Runs `fn` in a microtask once the caller's transaction has ended (committed or rolled back), outside it; with no
 * transaction, in a microtask, which a synchronous bun:sqlite transaction has ended by. A reader told that rows
 * were written (the event log's listeners) then reads only what committed, in its own turn.
 */
export function afterTransaction(db: Db, fn: () => void): void {
  const postgres = postgresOf(db);
  if (postgres) return postgres.afterTransaction(fn);
  const state = knownState(db.$client);
  const frame = frames.getStore();
  if (state?.open && frame?.root === state.open) (state.open.ended ??= []).push(fn);
  else frames.exit(() => queueMicrotask(fn));
}

/** Whether the caller runs inside a transaction of `db` (a test's and a record's check). */
export function inTransaction(db: Db): boolean {
  const postgres = postgresOf(db);
  if (postgres) return postgres.inTransaction();
  const state = knownState(db.$client);
  return !!state?.open && belongs(state);
}

/**
 * Runs `fn` in a transaction of `db`: committed when it resolves, rolled back when it throws (the error rethrown).
 * Inside another transaction of the same caller, a savepoint of it. Transactions of different callers run one after
 * another, and statements of records outside them wait (see `ready`).
 */
export function withTransaction<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const postgres = postgresOf(db);
  if (postgres) return postgres.withTransaction(fn);
  const client = db.$client;
  const state = stateOf(client);
  const parent = frames.getStore();
  if (parent && parent.root === state.open) return savepoint(client, state, parent, fn);
  // Nothing open and nobody queued: claim the connection at once. A synchronous bun:sqlite transaction open around the
  // caller (one that called this without awaiting it) has ended by the caller's next turn: wait for that.
  if (!state.open && !state.waiting.length && !state.handing && !client.inTransaction) return begin(client, state, fn);
  return queue(client, state, fn);
}

function queue<T>(client: Database, state: State, fn: () => Promise<T>): Promise<T> {
  // The caller's asynchronous context (its other AsyncLocalStorage stores) goes with it into the transaction.
  const inCallersContext = AsyncLocalStorage.snapshot();
  return new Promise<T>((resolve, reject) => {
    state.waiting.push(() => inCallersContext(() => begin(client, state, fn)).then(resolve, reject));
    handOn(client, state);
  });
}

/**
 * Hands the free connection to the first waiter: in a microtask while this turn's transactions have run less than
 * TURN_BUDGET_MS, otherwise in the next turn. Never synchronously: a synchronous bun:sqlite transaction open around
 * the caller has ended by then.
 */
function handOn(client: Database, state: State) {
  if (state.open || state.handing || !state.waiting.length) return;
  state.handing = true;
  const next = () => {
    state.handing = false;
    if (state.open) return; // its end hands on
    if (client.inTransaction) return void setImmediate(() => handOn(client, state));
    state.waiting.shift()?.();
  };
  if (state.turnStarted !== null && performance.now() - state.turnStarted >= turnBudget.ms) setImmediate(next);
  else queueMicrotask(next);
}

/**
 * Claims the connection now (from here on, other callers' statements wait) and runs BEGIN and `fn` in the next
 * microtask: records let go before the claim have their continuations queued already, ahead of it, and their
 * synchronous statements run outside the transaction rather than inside it.
 */
function begin<T>(client: Database, state: State, fn: () => Promise<T>): Promise<T> {
  const frame = { children: Promise.resolve() } as Frame;
  frame.root = frame;
  let end!: () => void;
  state.ended = new Promise((resolve) => (end = resolve));
  state.open = frame;
  if (state.turnStarted === null) {
    state.turnStarted = performance.now();
    setImmediate(() => (state.turnStarted = null));
  }
  return Promise.resolve().then(() => start(client, state, frame, end, fn));
}

function start<T>(client: Database, state: State, frame: Frame, end: () => void, fn: () => Promise<T>): Promise<T> {
  let begun = false;
  const finish = (commit: boolean) => {
    try {
      if (commit) client.run("COMMIT");
    } finally {
      // A failed COMMIT (the disk full) leaves the transaction open: it is rolled back too.
      if (begun && client.inTransaction) client.run("ROLLBACK");
      state.open = null;
      end();
      handOn(client, state);
      if (frame.ended) for (const after of frame.ended) frames.exit(() => queueMicrotask(after));
    }
  };
  let result: Promise<T>;
  try {
    client.run("BEGIN");
    begun = true;
    result = frames.run(frame, fn);
  } catch (err) {
    finish(false);
    return Promise.reject(err);
  }
  // A callback that awaited nothing (its records resolved synchronously underneath) has settled already: it commits
  // or rolls back now, as a synchronous bun:sqlite transaction would, with no turn for anyone else in between.
  const settled = Bun.peek.status(result);
  if (settled !== "pending") {
    try {
      finish(settled === "fulfilled");
    } catch (err) {
      result.catch(() => {});
      return Promise.reject(err);
    }
    return result;
  }
  return result.then(
    (value) => (finish(true), value),
    (err) => {
      finish(false);
      throw err;
    },
  );
}

async function savepoint<T>(client: Database, state: State, parent: Frame, fn: () => Promise<T>): Promise<T> {
  const run = async () => {
    const name = `sp${++state.savepoints}`;
    const frame: Frame = { root: parent.root, children: Promise.resolve() };
    client.run(`SAVEPOINT ${name}`);
    try {
      const result = await frames.run(frame, fn);
      client.run(`RELEASE ${name}`);
      return result;
    } catch (err) {
      client.run(`ROLLBACK TO ${name}`);
      client.run(`RELEASE ${name}`);
      throw err;
    }
  };
  const turn = parent.children.then(run, run);
  parent.children = turn.catch(() => {});
  return turn;
}
