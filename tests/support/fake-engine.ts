// The sending engine on a fake clock, an in-memory outbox and fake providers: its pace, back-off, retries and pauses
// run in milliseconds of real time (tests/api/engine-*.test.ts).
import { Database } from "bun:sqlite";
import { RESERVE_ACCOUNT_PACE_SQL, RESERVE_PACE_SQL, reservePaceParams, SHIFT_ACCOUNT_PACE_SQL, SHIFT_PACE_SQL } from "../../src/phone-numbers/pace";
import { SendingManager, type ManagerOptions } from "../../src/sending/manager";
import type { AdmitPace, Clock, OutboxRow, OutboxStore, Outcome, ProviderRegistry, SendError, Transport } from "../../src/sending/ports";

/** A clock that moves only when told: timers fire in order, with the engine's promises settled in between. */
export class FakeClock implements Clock {
  private timers: { at: number; fire: () => void }[] = [];
  private seed = 42;
  constructor(private t = 1_700_000_000_000) {}

  now = () => this.t;

  sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      // Kept in order of time, then of creation: a binary search for the first timer due later.
      const at = this.t + Math.max(0, ms);
      let lo = 0;
      let hi = this.timers.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.timers[mid]!.at <= at) lo = mid + 1;
        else hi = mid;
      }
      this.timers.splice(lo, 0, { at, fire: resolve });
    });

  /** A seeded generator, so every run takes the same path. */
  random = () => {
    this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
    return this.seed / 2147483648;
  };

  /** Runs every timer due up to `now + ms`, then sets the time there. */
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fire();
    }
    this.t = end;
    await settle();
  }
}

/**
 * Lets every promise chain the engine started run to its end (the fake providers answer at once): a turn of the event
 * loop runs every microtask queued, however long the chains (the engine awaits its store's records, each answering a
 * Promise), where a fixed count of microtasks fell short of them.
 */
async function settle() {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

export type Row = OutboxRow & { lane: string; status: string; dueAt: number; error?: string | null; calledAt?: number };

/**
 * The outbox in memory: the engine's contract, with no checks at the moment of sending beyond the pace. Several
 * engines may share one (the processes of an installation): a row is marked sending once, and the numbers' shared
 * schedules are the appliance's own statements (src/phone-numbers/pace.ts) on an in-memory SQLite table.
 */
export class MemoryOutbox implements OutboxStore {
  rows: Row[] = [];
  private pace = new Database(":memory:");
  private byId = new Map<string, Row>();
  paused: { campaignId: string; reason: string }[] = [];
  private n = 0;

  add(lane: string, count: number, extra: Partial<Row> = {}) {
    for (let i = 0; i < count; i++) {
      const id = `m${++this.n}`;
      const row: Row = { id, userId: "u1", campaignId: "c1", phone: `+1415555${String(this.n).padStart(4, "0")}`, content: "Hi", segments: 1, attempts: 0, lane, status: "queued", dueAt: 0, ...extra };
      this.rows.push(row);
      this.byId.set(id, row);
    }
  }

  /** The schedules' tables as migrations 0080 and 0082 make them, without the rows their keys refer to. */
  constructor() {
    this.pace.run("CREATE TABLE number_pace (phone_number_id TEXT PRIMARY KEY, next_at REAL NOT NULL, granted INTEGER NOT NULL)");
    this.pace.run("CREATE TABLE account_pace (sms_provider_id TEXT PRIMARY KEY, next_at REAL NOT NULL, granted INTEGER NOT NULL)");
  }

  count(status: string) {
    return this.rows.filter((r) => r.status === status).length;
  }

  async recentCalls(since: number) {
    return this.rows.filter((r) => r.calledAt !== undefined && r.calledAt >= since).map((r) => ({ laneId: r.lane, at: r.calledAt!, segments: r.segments }));
  }
  async recover() {
    return 0;
  }
  async dueLanes(now: number) {
    return [...new Set(this.rows.filter((r) => r.status === "queued" && r.dueAt < now).map((r) => r.lane))];
  }
  async claim(lane: string, now: number, limit: number) {
    return this.rows
      .filter((r) => r.lane === lane && r.status === "queued" && r.dueAt <= now)
      .sort((a, b) => a.dueAt - b.dueAt)
      .slice(0, limit)
      .map((r) => ({ ...r }));
  }
  async nextDue(lane: string) {
    const due = this.rows.filter((r) => r.lane === lane && r.status === "queued").map((r) => r.dueAt);
    return due.length ? Math.min(...due) : null;
  }
  async admit(rows: OutboxRow[], now: number, pace: AdmitPace) {
    const go: OutboxRow[] = [];
    const shared = pace.shared;
    // The appliance's schedules (src/phone-numbers/pace.ts): the number's, then its account's.
    const schedules: { id: string; interval: number; reserve: string; shift: string }[] = [];
    if (shared?.interval) schedules.push({ id: shared.laneId, interval: shared.interval, reserve: RESERVE_PACE_SQL, shift: SHIFT_PACE_SQL });
    if (shared?.account) schedules.push({ id: shared.account.id, interval: shared.account.interval, reserve: RESERVE_ACCOUNT_PACE_SQL, shift: SHIFT_ACCOUNT_PACE_SQL });
    let grants: { granted: number; nextAt: number }[] | null = null;
    let used = 0;
    for (const [i, row] of rows.entries()) {
      if (!pace.fits(row)) break;
      if (shared && schedules.length) {
        const want = Math.min(shared.want, rows.slice(i).reduce((n, r) => n + r.segments, 0));
        grants ??= schedules.map((s) => this.pace.query(s.reserve).get(...reservePaceParams(s.id, now, want, s.interval, shared.catchUpMs)) as { granted: number; nextAt: number });
        if (used >= Math.min(...grants.map((g) => g.granted))) break;
      }
      const stored = this.byId.get(row.id)!;
      if (stored.status !== "queued") continue;
      stored.status = "sending";
      stored.attempts++;
      stored.calledAt = now;
      used += row.segments;
      pace.take(row);
      go.push(row);
    }
    if (!grants) return { admitted: go, nextSlotAt: null };
    let nextSlotAt = Number.NEGATIVE_INFINITY;
    for (const [k, s] of schedules.entries()) {
      const shift = (used - grants[k]!.granted) * s.interval;
      if (shift) this.pace.query(s.shift).run(shift, s.id);
      nextSlotAt = Math.max(nextSlotAt, grants[k]!.nextAt + shift);
    }
    return { admitted: go, nextSlotAt };
  }
  async record(outcomes: Outcome[], pauses: { campaignId: string; reason: string }[]) {
    for (const o of outcomes) {
      const r = this.byId.get(o.row.id)!;
      if (o.kind === "accepted") r.status = o.status;
      else if (o.kind === "retry") {
        r.status = "queued";
        r.dueAt = o.at;
        if (o.refund) r.attempts--;
        r.error = o.code;
      } else {
        r.status = o.kind;
        r.error = o.code;
      }
    }
    this.paused.push(...pauses);
  }
}

/**
 * A provider that answers at once, or after `latencyMs()` on the fake clock (counting each call when it arrives):
 * `answer` decides each call (undefined: accepted).
 */
export class FakeProvider implements Transport {
  calls: { at: number; to: string; from: string }[] = [];
  constructor(
    private clock: FakeClock,
    private answer: (call: number, to: string) => SendError | undefined = () => undefined,
    private latencyMs?: () => number,
  ) {}
  async send(m: { to: string; from: string }) {
    this.calls.push({ at: this.clock.now(), to: m.to, from: m.from });
    const error = this.answer(this.calls.length, m.to);
    if (this.latencyMs) await this.clock.sleep(this.latencyMs());
    if (error) throw error;
    return { providerMessageId: `P${this.calls.length}`, status: "sent" as const };
  }
  /** Calls in the busiest one-second window, wherever it starts (or the busiest `ms` window). */
  busiestSecond(ms = 1000): number {
    const ats = this.calls.map((c) => c.at).sort((a, b) => a - b);
    let worst = 0;
    for (let i = 0, j = 0; i < ats.length; i++) {
      while (ats[i]! - ats[j]! >= ms) j++;
      worst = Math.max(worst, i - j + 1);
    }
    return worst;
  }

  /** Calls per whole second from the first call. */
  perSecond(): number[] {
    const start = this.calls[0]?.at ?? 0;
    const counts: number[] = [];
    for (const c of this.calls) {
      const s = Math.floor((c.at - start) / 1000);
      counts[s] = (counts[s] ?? 0) + 1;
    }
    return Array.from(counts, (n) => n ?? 0);
  }
}

export const rateLimited = (retryAfterMs: number | null = 1000): SendError => ({ kind: "rate_limited", code: "429", message: "Too many requests", retryAfterMs });
export const serverError: SendError = { kind: "transient", code: "500", message: "Provider error", retryAfterMs: null };
export const rejected: SendError = { kind: "permanent", code: "21211", message: "Not a valid phone number", retryAfterMs: null };

/** An engine with one sender number ("n1") at `rate` segments per second on the fake provider (and `store`'s outbox). */
export function engineWith(provider: FakeProvider, clock: FakeClock, rate: number, options: Partial<ManagerOptions> = {}, store = new MemoryOutbox()) {
  const registry: ProviderRegistry = {
    number: async (id) =>
      id === "n1"
        ? { fromNumber: "+14155550000", messagesPerSecond: rate, account: { id: "a1", active: true, messagesPerSecond: 0, ready: () => provider, load: async () => provider } }
        : null,
  };
  const engine = new SendingManager(store, registry, clock, () => {}, { idleMs: 250, maxBatch: 1000, maxInFlight: 200, maxAttempts: 6, backoffBaseMs: 2000, backoffCapMs: 300_000, pauseAfterFailures: 10, drainMs: 20_000, ...options });
  return { store, engine };
}

/** Stops the engine, moving the fake clock while it waits for its loop and its calls in flight. */
export async function stop(engine: SendingManager, clock: FakeClock) {
  let done = false;
  const stopped = engine.stop().then(() => (done = true));
  while (!done) await clock.advance(10);
  await stopped;
}
