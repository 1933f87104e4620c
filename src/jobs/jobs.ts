import { ready, withTransaction } from "../../db/transaction";
import type { AppContext } from "../context";
import { nextTurn } from "../time/next-turn";

/**
 * One durable table for delayed work: scheduled campaign starts, the event log's pruning; drip steps, webhook
 * retries and backups next. A job has a kind (its handler), a unique key (the same step is never queued twice),
 * the time it was meant to run and the time it is next due, attempts with exponential back-off, a lease while a
 * worker holds it (a crashed worker's job is due again when the lease expires), and its last error or result.
 */

export type JobState = "pending" | "running" | "done" | "failed" | "cancelled";

export type Job = {
  id: string;
  kind: string;
  key: string;
  userId: string | null;
  refId: string | null;
  payload: Record<string, unknown>;
  /** When it was meant to run (ms); back-off never moves it. */
  runAt: number;
  nextAttemptAt: number;
  state: JobState;
  /** Including the current one, while it runs. */
  attempts: number;
  leaseUntil: number | null;
  lastError: string | null;
  result: unknown;
};

export type NewJob = {
  kind: string;
  /** Unique across every job ever queued, done or not: names the step ("campaign_start:<id>", "drip:<enrolment>:3"). */
  key: string;
  runAt: number;
  userId?: string | null;
  refId?: string | null;
  payload?: Record<string, unknown>;
};

/** What a handler may answer: a result to keep, or a time to run again (a recurring job). */
export type JobOutcome = void | { result?: unknown; runAgainAt?: number };

export type JobHandlerOptions = {
  /**
   * Run the handler inside the transaction that claims the job and records its outcome, so the job and the work
   * it does commit together (a campaign start). The handler then awaits records only (the pass's transaction is
   * open while it runs: never a provider call or a timer). Otherwise the claim commits with a lease first and the
   * handler may await anything (a webhook call).
   */
  transactional?: boolean;
  /** How long a worker holds a job before it counts as crashed (non-transactional handlers). */
  leaseMs?: number;
  /** Back-off after the n-th failed attempt: firstDelayMs * 2^(n-1), at most maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Attempts before the job ends failed. */
  maxAttempts?: number;
  /**
   * Non-transactional handlers: at most `total` jobs of the kind running at once in this process, `perRef` of
   * one refId (outbound webhooks: per endpoint) and `perUser` of one account (so one account's slow work never
   * takes every slot of the kind; jobs without an account have no per-account bound). The rest stay pending,
   * unclaimed, so no lease runs out while a job waits its turn; a pass skips them (in its query, so they never
   * crowd out other jobs) and a finished one wakes the runner.
   */
  concurrency?: Concurrency | null;
};

export type Concurrency = {
  total: number;
  perRef: number;
  perUser: number;
  /**
   * The per-account bound shrinks as accounts run jobs of the kind: an account may hold at most
   * total / (accounts running, itself counted, + 1), and never more than perUser. There is always room for one
   * more account, so slow accounts (64 in all, 16 each: four used to fill every slot) never hold up a newcomer;
   * no job is stopped, an account above its share just takes no more until it is below.
   */
  fairShare?: boolean;
};

/** The most jobs of a kind an account may run now: perUser, or its fair share when the kind asks for one. */
function accountBound(counts: Map<string, number>, kind: string, userId: string, bound: Concurrency): number {
  if (!bound.fairShare) return bound.perUser;
  const prefix = `${kind}\x01`;
  let accounts = 0;
  for (const [slot, n] of counts) if (n > 0 && slot.startsWith(prefix)) accounts++;
  if (!counts.get(userSlot(kind, userId))) accounts++;
  return Math.max(1, Math.min(bound.perUser, Math.floor(bound.total / (accounts + 1))));
}

/**
 * Scratch space shared by the transactional handlers of one pass of the runner (a few milliseconds): what many jobs
 * of a pass would each look up again (an account's remaining messages, its sender) may be kept here, never longer.
 */
export type JobPass = Map<string, unknown>;

/** Where a pass keeps the rows its jobs leave to its end (see atPassEnd); absent outside a batched pass. */
const PASS_END = "jobs.passEnd";
type Flush<T> = (items: T[]) => void | Promise<void>;
type Deferred = { flush: Flush<unknown>; items: unknown[] };
type PassEnd = {
  /** The rows of the jobs whose savepoint committed, per key of atPassEnd, in the order the jobs ran. */
  done: Map<string, Deferred>;
  /** The rows of the job running now: they join `done` when its savepoint commits, and are dropped when it fails. */
  current: { key: string; item: unknown; flush: Deferred["flush"] }[];
};

/**
 * A row a transactional handler writes at the end of its pass, in one call of `flush` with the rows of the pass's
 * other jobs of the same `key` (one statement loop for a pass's outbox messages instead of one transaction each),
 * still inside the pass's transaction: the row commits with its job or not at all, and a job that fails leaves no
 * row. Should the flush itself fail, the pass is rolled back and run again with each job flushing its own rows in
 * its own savepoint, so one bad row fails its own job only. Outside a pass (a leased handler, a direct call) the
 * row is written at once.
 */
export async function atPassEnd<T>(pass: JobPass, key: string, item: T, flush: Flush<T>) {
  const end = pass.get(PASS_END) as PassEnd | undefined;
  if (!end) return flush([item]);
  end.current.push({ key, item, flush: flush as Deferred["flush"] });
}

/** The rows left to the end of this pass under `key` and not written yet (for a check that counts the written ones). */
export function unwrittenAtPassEnd<T>(pass: JobPass, key: string): T[] {
  const end = pass.get(PASS_END) as PassEnd | undefined;
  if (!end) return [];
  return [...(end.done.get(key)?.items ?? []), ...end.current.filter((r) => r.key === key).map((r) => r.item)] as T[];
}

/** Hands the running job's rows to the end of the pass (its savepoint committed). */
function keepForPassEnd(end: PassEnd) {
  for (const { key, item, flush } of end.current) {
    const deferred = end.done.get(key);
    if (deferred) deferred.items.push(item);
    else end.done.set(key, { flush, items: [item] });
  }
  end.current = [];
}

/** Writes the running job's rows now, inside its savepoint (a pass run again after its batched flush failed). */
async function flushNow(end: PassEnd) {
  const rows = end.current;
  end.current = [];
  for (const { item, flush } of rows) await flush([item]);
}

type Handler = { fn: (ctx: AppContext, job: Job, pass: JobPass) => JobOutcome | Promise<JobOutcome>; options: Required<JobHandlerOptions> };

const DEFAULTS: Required<JobHandlerOptions> = {
  transactional: false,
  leaseMs: 5 * 60_000,
  firstDelayMs: 30_000,
  maxDelayMs: 3600_000,
  maxAttempts: 8,
  concurrency: null,
};

const registries = new WeakMap<AppContext, Map<string, Handler>>();
const inFlight = new WeakMap<AppContext, Set<Promise<void>>>();
/** Jobs of kinds with a concurrency bound running now: per kind, per `kind\0refId` and per `kind\x01userId`. */
const runningCounts = new WeakMap<AppContext, Map<string, number>>();
const refSlot = (kind: string, refId: string | null) => `${kind}\0${refId ?? ""}`;
const userSlot = (kind: string, userId: string) => `${kind}\x01${userId}`;
/** The slots a running job of a bounded kind holds: its kind's, its ref's and, when it has one, its account's. */
const slotsOf = (kind: string, refId: string | null, userId: string | null) =>
  userId === null ? [kind, refSlot(kind, refId)] : [kind, refSlot(kind, refId), userSlot(kind, userId)];
/** The running job runner's alarm: told the due time of every job queued, so it wakes when that job is due. */
const wakers = new WeakMap<AppContext, (dueAt: number) => void>();

/** Registers the handler of a kind of job for this app; the runner claims only kinds it has a handler for. */
export function registerJobHandler(
  ctx: AppContext,
  kind: string,
  fn: Handler["fn"],
  options: JobHandlerOptions = {},
) {
  let registry = registries.get(ctx);
  if (!registry) registries.set(ctx, (registry = new Map()));
  registry.set(kind, { fn, options: { ...DEFAULTS, ...options } });
}

type JobRow = {
  id: string;
  kind: string;
  key: string;
  user_id: string | null;
  ref_id: string | null;
  payload: string;
  run_at: number;
  next_attempt_at: number;
  state: JobState;
  attempts: number;
  lease_until: number | null;
  last_error: string | null;
  result: string | null;
};

const toJob = (r: JobRow): Job => ({
  id: r.id,
  kind: r.kind,
  key: r.key,
  userId: r.user_id,
  refId: r.ref_id,
  payload: JSON.parse(r.payload),
  runAt: r.run_at,
  nextAttemptAt: r.next_attempt_at,
  state: r.state,
  attempts: r.attempts,
  leaseUntil: r.lease_until,
  lastError: r.last_error,
  result: r.result === null ? null : JSON.parse(r.result),
});

/** Queues a job unless one with its key was ever queued (insert-or-ignore). Answers whether it queued it. */
export async function enqueueJob(ctx: AppContext, job: NewJob): Promise<boolean> {
  await ready(ctx.db);
  const queued =
    (
      await ctx.records.$run(
        `INSERT INTO jobs (id, kind, key, user_id, ref_id, payload, run_at, next_attempt_at, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (key) DO NOTHING`,
        [Bun.randomUUIDv7(), job.kind, job.key, job.userId ?? null, job.refId ?? null, JSON.stringify(job.payload ?? {}), job.runAt, job.runAt, ctx.now(), ctx.now()],
      )
    ).changes > 0;
  if (queued) wakers.get(ctx)?.(job.runAt);
  return queued;
}

/**
 * Puts the job of a key on the schedule at a (new) time, whatever it was before: pending again with its attempts,
 * lease, error and result cleared. For a step that moves (a campaign's start when its time is edited).
 */
export async function rescheduleJob(ctx: AppContext, job: NewJob) {
  await ready(ctx.db);
  const now = ctx.now();
  await ctx.records.$run(
    `INSERT INTO jobs (id, kind, key, user_id, ref_id, payload, run_at, next_attempt_at, state, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
     ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, user_id = excluded.user_id, ref_id = excluded.ref_id,
       payload = excluded.payload, run_at = excluded.run_at, next_attempt_at = excluded.next_attempt_at, state = 'pending',
       attempts = 0, lease_until = NULL, last_error = NULL, result = NULL, updated_at = excluded.updated_at, done_at = NULL`,
    [Bun.randomUUIDv7(), job.kind, job.key, job.userId ?? null, job.refId ?? null, JSON.stringify(job.payload ?? {}), job.runAt, job.runAt, now, now],
  );
  wakers.get(ctx)?.(job.runAt);
}

/** Cancels the pending jobs of a key, of a subject (refId) or of an account; a job a worker holds finishes. */
export async function cancelJobs(ctx: AppContext, which: { key: string } | { refId: string } | { userId: string }): Promise<number> {
  await ready(ctx.db);
  const [column, value] = "key" in which ? ["key", which.key] : "refId" in which ? ["ref_id", which.refId] : ["user_id", which.userId];
  return (await ctx.records.$run(`UPDATE jobs SET state = 'cancelled', updated_at = ? WHERE ${column} = ? AND state = 'pending'`, [ctx.now(), value])).changes;
}

/** A job by its key, or null. */
export async function findJob(ctx: AppContext, key: string): Promise<Job | null> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<JobRow>(`SELECT * FROM jobs WHERE key = ?`, [key]);
  return row ? toJob(row) : null;
}

/** The subjects (refId) among `refIds` that have a pending job of `kind`. */
export async function pendingRefs(ctx: AppContext, kind: string, refIds: string[]): Promise<Set<string>> {
  if (!refIds.length) return new Set();
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ ref_id: string }>(
    `SELECT ref_id FROM jobs WHERE kind = ? AND state = 'pending' AND ref_id IN (${JSON_VALUES[ctx.records.$engine]})`,
    [kind, JSON.stringify(refIds)],
  );
  return new Set(rows.map((r) => r.ref_id));
}

/** The values of a JSON array of text given as one parameter, as each engine reads one (a list of any length). */
const JSON_VALUES = {
  sqlite: "SELECT value FROM json_each(?)",
  postgres: "SELECT jsonb_array_elements_text(CAST(? AS text)::jsonb)",
} as const;

/** A due job as a pass selects it. */
type Due = { id: string; kind: string; refId: string | null; userId: string | null; t: number };

/** The two ways a job is due: pending and its time come, or running with its lease run out; each walks its index. */
type DueIn = "pending" | "expired";
const DUE_IN = {
  pending: { state: "pending", column: "next_attempt_at", index: "jobs_due_idx" },
  expired: { state: "running", column: "lease_until", index: "jobs_lease_idx" },
} as const;

/**
 * The due jobs (at ?1) of the kinds in ?2 whose ref's slot (`kind\0refId`, ?4) and account's slot (`kind\x01userId`,
 * ?5) are not full, as Due rows; `indexed`: through the state's index (named: the per-kind index would have SQLite
 * sort every due job), else SQLite picks (the per-kind one, for a few kinds).
 */
const selectDue = (due: DueIn, indexed = true) => {
  const { state, column, index } = DUE_IN[due];
  return `SELECT id, kind, ref_id AS refId, user_id AS userId, ${column} AS t FROM jobs ${indexed ? `INDEXED BY ${index} ` : ""}WHERE state = '${state}' AND ${column} <= ?1
    AND kind IN (SELECT value FROM json_each(?2)) AND kind || char(0) || coalesce(ref_id, '') NOT IN (SELECT value FROM json_each(?4))
    AND (user_id IS NULL OR kind || char(1) || user_id NOT IN (SELECT value FROM json_each(?5)))`;
};

/**
 * selectDue on PostgreSQL, where several processes run passes at once (issue 31 item 2): the due jobs (pending and
 * their time come, or running with their lease run out) of the kinds in a JSON array, but for the full slots
 * (`[kind, refId or '']` and `[kind, userId]` pairs: PostgreSQL's text cannot hold SQLite's NUL separator), oldest
 * first, locked by the pass's transaction until it ends and skipped meanwhile by every other process's pass
 * (`FOR UPDATE SKIP LOCKED`): the processes share the due jobs instead of queueing on each other's. Each is then
 * claimed by CLAIM_JOB_SQL, the same text on both engines; a leased job's process killed mid-run leaves it due to the
 * others once its lease is over. Parameters: now, now, kinds, full refs, full accounts, limit.
 */
export const DUE_JOBS_SQL_POSTGRES = `SELECT id, kind, ref_id AS "refId", user_id AS "userId", state,
    CASE WHEN state = 'pending' THEN next_attempt_at ELSE lease_until END AS t
  FROM jobs WHERE ((state = 'pending' AND next_attempt_at <= ?) OR (state = 'running' AND lease_until <= ?))
    AND kind IN (SELECT jsonb_array_elements_text(CAST(? AS text)::jsonb))
    AND (kind, coalesce(ref_id, '')) NOT IN (SELECT r->>0, r->>1 FROM jsonb_array_elements(CAST(? AS text)::jsonb) AS r)
    AND (user_id IS NULL OR (kind, user_id) NOT IN (SELECT r->>0, r->>1 FROM jsonb_array_elements(CAST(? AS text)::jsonb) AS r))
  ORDER BY t LIMIT ? FOR UPDATE SKIP LOCKED`;

/** What a pass asks for: the due jobs at `now` of `kinds`, but for the full slots (`kind\0refId`, `kind\x01userId`). */
type DueQuery = { now: number; kinds: string[]; fullRefs: string[]; fullUsers: string[]; limit: number; others?: boolean };
type DueJobs = { pending: Due[]; expired: Due[] };

/**
 * On SQLite, one process: each state walks its index in due order and stops at the limit, however many jobs are due
 * (named: the per-kind index would have SQLite sort every due job). The other kinds of a flood are found through the
 * per-kind index instead (a few lookups, not a walk past the flood: without an ORDER BY, SQLite takes each kind's due
 * jobs from it, oldest first).
 */
async function dueOnSqlite(ctx: AppContext, q: DueQuery): Promise<DueJobs> {
  const params = [q.now, JSON.stringify(q.kinds), q.limit, JSON.stringify(q.fullRefs), JSON.stringify(q.fullUsers)];
  if (q.others) return { pending: await ctx.records.$rows<Due>(`${selectDue("pending", false)} LIMIT ?3`, params), expired: [] };
  const inOrder = (due: DueIn) => ctx.records.$rows<Due>(`${selectDue(due)} ORDER BY ${DUE_IN[due].column} LIMIT ?3`, params);
  return { pending: await inOrder("pending"), expired: await inOrder("expired") };
}

/**
 * On PostgreSQL, where the processes of an installation run passes at once: DUE_JOBS_SQL_POSTGRES locks what it
 * selects for the pass's transaction and skips what another process's pass holds. Its slots are pairs.
 */
async function dueOnPostgres(ctx: AppContext, q: DueQuery): Promise<DueJobs> {
  const pairs = (slots: string[]) => JSON.stringify(slots.map((slot) => slot.split(/[\0\x01]/)));
  const due = await ctx.records.$rows<Due & { state: JobState }>(DUE_JOBS_SQL_POSTGRES, [q.now, q.now, JSON.stringify(q.kinds), pairs(q.fullRefs), pairs(q.fullUsers), q.limit]);
  return { pending: due.filter((j) => j.state === "pending"), expired: due.filter((j) => j.state === "running") };
}

/** Jobs looked at per pass, at most. */
export const DUE_BATCH = 100;

/**
 * A job claimed in one statement: it must still be due (pending and its time come, or running with its lease
 * expired), so two workers never both hold it. It becomes running with a lease, its attempt counted. Parameters:
 * lease end, now, id, now, now.
 */
export const CLAIM_JOB_SQL = `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_until = ?, updated_at = ?
  WHERE id = ? AND ((state = 'pending' AND next_attempt_at <= ?) OR (state = 'running' AND lease_until <= ?))
  RETURNING *`;

async function claim(ctx: AppContext, id: string, now: number, leaseMs: number): Promise<Job | null> {
  const [row] = await ctx.records.$rows<JobRow>(CLAIM_JOB_SQL, [now + leaseMs, now, id, now, now]);
  return row ? toJob(row) : null;
}

/** Records a finished attempt: done with its result, or pending again at the time the handler asked for. */
async function complete(ctx: AppContext, job: Job, outcome: JobOutcome) {
  const now = ctx.now();
  const again = outcome?.runAgainAt;
  const result = outcome?.result === undefined ? null : JSON.stringify(outcome.result);
  // attempts = the claim's count: a worker whose lease expired and was taken over records nothing.
  if (again === undefined) {
    await ctx.records.$run(
      `UPDATE jobs SET state = 'done', lease_until = NULL, result = ?, updated_at = ?, done_at = ? WHERE id = ? AND state = 'running' AND attempts = ?`,
      [result, now, now, job.id, job.attempts],
    );
  } else {
    await ctx.records.$run(
      `UPDATE jobs SET state = 'pending', attempts = 0, lease_until = NULL, last_error = NULL, result = ?, updated_at = ?, done_at = ?,
         run_at = ?, next_attempt_at = ? WHERE id = ? AND state = 'running' AND attempts = ?`,
      [result, now, now, again, again, job.id, job.attempts],
    );
  }
}

/**
 * Records a failed attempt: due again after the back-off, or failed for good after the last attempt. `held`: only
 * while the job is still running on this attempt (a leased handler's: an expired lease may have been taken over);
 * a transactional job's claim was rolled back with its savepoint, so its row is written whatever it holds.
 */
async function fail(ctx: AppContext, job: Job, attempts: number, options: Required<JobHandlerOptions>, err: unknown, held = false) {
  const now = ctx.now();
  const message = err instanceof Error ? err.message : String(err);
  const failed = attempts >= options.maxAttempts;
  const delay = Math.min(options.maxDelayMs, options.firstDelayMs * 2 ** (attempts - 1));
  // Plain `?` parameters, repeated (PostgreSQL's are numbered in order): SQLite's ?1 would not translate.
  const state = failed ? "failed" : "pending";
  const condition = held ? ` AND state = 'running' AND attempts = ?` : "";
  await ctx.records.$run(
    `UPDATE jobs SET state = ?, attempts = ?, lease_until = NULL, last_error = ?, updated_at = ?,
       done_at = CASE WHEN ? = 'failed' THEN ? ELSE done_at END, next_attempt_at = CASE WHEN ? = 'failed' THEN next_attempt_at ELSE ? END
     WHERE id = ?${condition}`,
    [state, attempts, message, now, state, now, state, now + delay, job.id, ...(held ? [job.attempts] : [])],
  );
}

export type RunLimits = {
  /** Jobs looked at in this pass (DUE_BATCH by default). */
  limit?: number;
  /** Stop claiming once this much time (ms) went by, so one pass never holds the event loop for long. */
  budgetMs?: number;
};

/**
 * Runs the jobs due at ctx.now() whose kind has a handler, the longest-waiting first, at most `limit` of them and
 * within `budgetMs`. The transactional ones run in one transaction for the pass, one after another, each in a
 * savepoint of its own (withTransaction nested, awaited):
 * a job's claim, its work and its outcome commit together (a crash before the commit runs them again from scratch;
 * a failure rolls back that job's savepoint only), and a pass of many short jobs (10,000 drip steps due at once)
 * pays for one commit, not one each, and writes the rows its jobs left to its end (atPassEnd: a pass's outbox
 * messages) together before it commits. The others are claimed with a lease in the same transaction and run once it
 * has committed; the promise `settled` settles when they have. Answers (once the pass has committed) how many jobs it
 * claimed, and `more` when it stopped at a limit.
 */
export async function runDueJobs(ctx: AppContext, limits: RunLimits = {}): Promise<{ claimed: number; settled: Promise<void>; more: boolean }> {
  const registry = registries.get(ctx);
  if (!registry?.size) return { claimed: 0, settled: Promise.resolve(), more: false };
  let busy = runningCounts.get(ctx);
  if (!busy) runningCounts.set(ctx, (busy = new Map()));
  const counts = busy;
  const limit = limits.limit ?? DUE_BATCH;
  const budget = limits.budgetMs ?? Infinity;
  // The pass is one transaction (db/transaction.ts, as ctx.withTransaction) whose callback awaits records only (each
  // job's savepoint and the records its handler awaits): it waits for a transaction open when it starts, other
  // callers' records wait for its end, and it commits before this goes on.
  let started = 0;
  let now = 0;
  let due: Due[] = [];
  const select = async () => {
    started = performance.now();
    now = ctx.now();
    // Kinds, refs and accounts at their concurrency bound are left out of the selection: their jobs wait, pending.
    const full = [...counts]
      .filter(([slot, n]) => {
        const [kind, id] = slot.split(/[\0\x01]/) as [string, string | undefined];
        const bound = registry.get(kind)?.options.concurrency;
        return bound && n >= (slot.includes("\0") ? bound.perRef : slot.includes("\x01") ? accountBound(counts, kind, id!, bound) : bound.total);
      })
      .map(([slot]) => slot);
    const kinds = [...registry.keys()].filter((k) => !full.includes(k));
    const fullRefs = full.filter((slot) => slot.includes("\0"));
    const fullUsers = full.filter((slot) => slot.includes("\x01"));
    const pick = ctx.records.$engine === "sqlite" ? dueOnSqlite : dueOnPostgres;
    const { pending, expired } = await pick(ctx, { now, kinds, fullRefs, fullUsers, limit });
    // A flood of one kind (10,000 drip steps due in the same minute) must not hold back the other kinds' due jobs (a
    // scheduled campaign's start, a webhook delivery) until it has drained: when a pass is all of one kind and more
    // may be due, the other kinds' oldest due jobs go first.
    const flood = pending.length === limit && pending.every((j) => j.kind === pending[0]!.kind) ? pending[0]!.kind : null;
    const otherKinds = flood === null ? [] : kinds.filter((k) => k !== flood);
    const others = otherKinds.length ? (await pick(ctx, { now, kinds: otherKinds, fullRefs, fullUsers, limit: Math.ceil(limit / 4), others: true })).pending : [];
    others.sort((a, b) => a.t - b.t);
    due = [...others, ...[...pending, ...expired].sort((a, b) => a.t - b.t)].slice(0, limit);
  };
  /** Takes the running slots of a bounded kind for the job, or answers false when its kind, ref or account is at its bound. */
  const take = ({ kind, refId, userId }: Due, bound: Concurrency) => {
    const slots = slotsOf(kind, refId, userId);
    const bounds = [bound.total, bound.perRef, userId === null ? bound.perUser : accountBound(counts, kind, userId, bound)];
    if (slots.some((slot, i) => (counts.get(slot) ?? 0) >= bounds[i]!)) return false;
    for (const slot of slots) counts.set(slot, (counts.get(slot) ?? 0) + 1);
    return true;
  };
  let claimed = 0;
  let more = due.length === limit;
  let leased: { picked: Due; handler: Handler }[] = [];
  /** The pass is writing the rows its jobs left to its end (a failure now is theirs, not a job's). */
  let flushing = false;
  /** One pass over the due jobs in one transaction; `batched`: the rows left by atPassEnd are written at its end. */
  const runPass = async (batched: boolean) => {
    // A pass run again job by job gets its own time: the same jobs, so one bad row delays the others by one pass.
    const passStarted = batched ? started : performance.now();
    claimed = 0;
    more = due.length === limit;
    leased = [];
    const end: PassEnd = { done: new Map(), current: [] };
    const pass: JobPass = new Map([[PASS_END, end]]);
    for (const [i, picked] of due.entries()) {
      const { id, kind } = picked;
      // The first job always runs, so a pass makes progress however little time it has.
      if (i > 0 && performance.now() - passStarted >= budget) {
        more = true;
        break;
      }
      const handler = registry.get(kind)!;
      const { fn, options } = handler;
      if (!options.transactional) {
        leased.push({ picked, handler });
        continue;
      }
      let job: Job | null = null;
      try {
        // A savepoint of the pass's transaction (withTransaction nested): the job's claim, its work and its outcome.
        await withTransaction(ctx.db, async () => {
          job = await claim(ctx, id, now, options.leaseMs);
          if (!job) return;
          const outcome = await fn(ctx, job, pass);
          if (!batched) await flushNow(end);
          await complete(ctx, job, outcome);
        });
        keepForPassEnd(end);
      } catch (err) {
        // Its savepoint rolled back: the claim and its rows too. The attempt is counted and the job is due again
        // after its back-off.
        end.current = [];
        const failed = job as Job | null;
        if (!failed) throw err;
        ctx.log(`jobs: ${kind} ${failed.key} failed: ${(err as Error)?.stack ?? err}`);
        await fail(ctx, failed, failed.attempts, options, err);
      }
      if (job) claimed++;
    }
    flushing = true;
    for (const { flush, items } of end.done.values()) await flush(items);
    flushing = false;
  };
  const release = ({ kind, refId, userId }: Due) => {
    for (const slot of slotsOf(kind, refId, userId)) {
      const n = (counts.get(slot) ?? 1) - 1;
      if (n > 0) counts.set(slot, n);
      else counts.delete(slot);
    }
  };
  /** The leased jobs claimed in the pass's transaction (their lease commits with it), run once it has committed. */
  let toRun: { picked: Due; handler: Handler; job: Job }[] = [];
  const claimLeased = async () => {
    toRun = [];
    for (const { picked, handler } of leased) {
      // At the bound: the next pass selects without this kind, ref or account (a finished job wakes the runner).
      if (handler.options.concurrency && !take(picked, handler.options.concurrency)) {
        more = true;
        continue;
      }
      const job = await claim(ctx, picked.id, now, handler.options.leaseMs);
      if (!job) {
        if (handler.options.concurrency) release(picked);
        continue;
      }
      claimed++;
      toRun.push({ picked, handler, job });
    }
  };
  try {
    await withTransaction(ctx.db, async () => {
      await select();
      await runPass(true);
      await claimLeased();
    });
  } catch (err) {
    if (!flushing) throw err;
    flushing = false;
    // The pass rolled back whole (as after a crash before its commit): run it again with each job's rows in its
    // own savepoint, so a row that cannot be written fails its job alone instead of every pass that picks it.
    ctx.log(`jobs: a pass's batched rows failed, running it again job by job: ${(err as Error)?.stack ?? err}`);
    await withTransaction(ctx.db, async () => {
      await runPass(false);
      await claimLeased();
    });
  }
  const running: Promise<void>[] = [];
  for (const { picked, handler, job } of toRun) {
    const run = runLeased(ctx, job, handler);
    running.push(
      handler.options.concurrency
        ? run.finally(() => {
            release(picked);
            wakers.get(ctx)?.(ctx.now());
          })
        : run,
    );
  }
  const settled = Promise.all(running).then(() => undefined);
  let flight = inFlight.get(ctx);
  if (!flight) inFlight.set(ctx, (flight = new Set()));
  const tracked = settled.finally(() => flight.delete(tracked));
  flight.add(tracked);
  return { claimed, settled, more };
}

/** When the next job of a kind with a handler is due (a pending one's time, a running one's lease end), or null. */
async function nextDueAt(ctx: AppContext): Promise<number | null> {
  const registry = registries.get(ctx);
  if (!registry?.size) return null;
  await ready(ctx.db);
  const kinds = JSON.stringify([...registry.keys()]);
  // Each walks its index from the earliest and stops at the first job of a known kind (SQLite is told which index:
  // PostgreSQL's planner picks it).
  const first = async (due: DueIn) => {
    const { state, column, index } = DUE_IN[due];
    const from = ctx.records.$engine === "sqlite" ? `jobs INDEXED BY ${index}` : "jobs";
    const [row] = await ctx.records.$rows<{ t: number }>(
      `SELECT ${column} AS t FROM ${from} WHERE state = ? AND kind IN (${JSON_VALUES[ctx.records.$engine]}) ORDER BY ${column} LIMIT 1`,
      [state, kinds],
    );
    return row?.t ?? Infinity;
  };
  const t = Math.min(await first("pending"), await first("expired"));
  return t === Infinity ? null : t;
}

async function runLeased(ctx: AppContext, job: Job, { fn, options }: Handler) {
  // A restore (src/backups/) that replaced the database while the handler awaited: the job belongs to the data
  // replaced, and recording it would write into the restored data (a job there with the same id and attempt).
  const db = ctx.db;
  try {
    // A handler that awaits outlives the pass: it gets scratch space of its own.
    const outcome = await fn(ctx, job, new Map());
    // Its own turn on the connection: never inside another caller's transaction open now.
    await ready(ctx.db);
    if (ctx.db !== db) return ctx.log(`jobs: ${job.kind} ${job.key} finished after a restore replaced the database; not recorded`);
    await complete(ctx, job, outcome);
  } catch (err) {
    ctx.log(`jobs: ${job.kind} ${job.key} failed: ${(err as Error)?.stack ?? err}`);
    await ready(ctx.db);
    if (ctx.db !== db) return;
    // Only while the lease is still ours (an expired lease may already have been taken over): in the update itself.
    await fail(ctx, job, job.attempts, options, err, true);
  }
}

/** A pass's time budget: the runner yields to the event loop (requests, the sending engine) between passes. */
export const PASS_BUDGET_MS = 15;
/** The longest the runner sleeps: it looks again even when no job it knows of is due (a clock moved, another writer). */
const IDLE_MS = 1000;
/** The shortest sleep after the due jobs ran out: a job failing with no back-off is retried at this pace, not in a spin. */
const SETTLE_MS = 100;

/** The running job runner's brake, for a restore (src/backups/) that must swap the database with no job running. */
const brakes = new WeakMap<AppContext, { pause(timeoutMs: number): Promise<boolean>; resume(): void }>();

/**
 * Stops claiming jobs and waits for the pass and the handlers in flight to end, at most `timeoutMs`. Answers
 * whether they all did (the runner stays paused either way until resumeJobRunner). No runner: nothing to wait for.
 */
export const pauseJobRunner = (ctx: AppContext, timeoutMs: number) => brakes.get(ctx)?.pause(timeoutMs) ?? Promise.resolve(true);

/** Claims again after pauseJobRunner, at once (jobs that fell due meanwhile run now). */
export const resumeJobRunner = (ctx: AppContext) => brakes.get(ctx)?.resume();

/**
 * Drains the due jobs continuously, a bounded pass at a time with a turn of the event loop between passes, then
 * sleeps until the next job is due (at most IDLE_MS). Queueing a job that is due sooner wakes it. Runs once at
 * start (catching up after downtime); stops with the server, its handlers still running finishing first.
 */
export function startJobRunner(ctx: AppContext) {
  let stopped = false;
  /** A restore holds the runner: no pass starts, a drain ends after the pass it is in. */
  let paused = false;
  let draining = false;
  /** A job fell due (or a bounded one finished) while a drain waited between passes: look again at once after it. */
  let wokenWhileDraining = false;
  let drained = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let alarmAt = Infinity;

  const arm = (at: number, atLeast: number) => {
    if (stopped || paused) return;
    const now = ctx.now();
    const delay = Math.max(atLeast, Math.min(IDLE_MS, at - now));
    if (timer) clearTimeout(timer);
    alarmAt = now + delay;
    timer = setTimeout(drain, delay);
  };

  const drain = () => {
    if (draining) return;
    draining = true;
    drained = (async () => {
      timer = null;
      alarmAt = Infinity;
      wokenWhileDraining = false;
      try {
        while (!stopped && !paused) {
          let more = false;
          try {
            more = (await runDueJobs(ctx, { budgetMs: PASS_BUDGET_MS })).more;
          } catch (err) {
            ctx.log(`jobs: ${(err as Error)?.stack ?? err}`);
          }
          if (!more) break;
          await nextTurn();
        }
        if (!stopped && !paused) {
          const next = await nextDueAt(ctx);
          arm(next ?? Infinity, wokenWhileDraining ? 0 : SETTLE_MS);
        }
      } catch (err) {
        ctx.log(`jobs: ${(err as Error)?.stack ?? err}`);
        arm(Infinity, SETTLE_MS);
      } finally {
        draining = false;
      }
    })();
  };

  // While a drain runs, it looks for the next due time itself when it ends, without the settling pause when a job
  // fell due meanwhile (a delivery queued, or one finished and freed a slot, while the drain waited a turn).
  wakers.set(ctx, (dueAt) => {
    if (stopped || paused) return;
    if (draining) wokenWhileDraining ||= dueAt <= ctx.now();
    else if (dueAt < alarmAt) arm(dueAt, 0);
  });
  brakes.set(ctx, {
    async pause(timeoutMs) {
      paused = true;
      if (timer) clearTimeout(timer);
      timer = null;
      alarmAt = Infinity;
      let timeout: ReturnType<typeof setTimeout> | undefined;
      const ended = Promise.all([drained, ...(inFlight.get(ctx) ?? [])]).then(() => true);
      const late = new Promise<false>((resolve) => (timeout = setTimeout(() => resolve(false), timeoutMs)));
      return Promise.race([ended, late]).finally(() => clearTimeout(timeout));
    },
    resume() {
      if (!paused) return;
      paused = false;
      if (!stopped) drain();
    },
  });
  // Before the database closes: no new claims, and the handlers still running finish their writes.
  ctx.onStop.unshift(async () => {
    stopped = true;
    brakes.delete(ctx);
    wakers.delete(ctx);
    if (timer) clearTimeout(timer);
    await drained;
    await Promise.all(inFlight.get(ctx) ?? []);
  });
  drain();
}
