import { CATCH_UP_MS, GUARD_MS, SlidingWindow, WINDOW_MS } from "./pace";
import { realClock, type Clock, type OutboxRow, type OutboxStore, type Outcome, type ProviderRegistry, type SenderAccount, type SenderNumber, type SendError, type Transport } from "./ports";

export type ManagerOptions = {
  /** Longest sleep between passes when nothing wakes the manager. */
  idleMs: number;
  /** Most rows one lane claims in one pass. */
  maxBatch: number;
  /** Most provider calls in flight per sender number. */
  maxInFlight: number;
  /** Attempts before a transient failure becomes final. */
  maxAttempts: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Consecutive failed messages that pause a campaign. */
  pauseAfterFailures: number;
  /**
   * How long a stop waits for the provider calls in flight. Longer than the providers' own timeout (15 s), so each
   * call ends with its answer or its timeout recorded, none left `sending` to become `unknown` at the next start.
   */
  drainMs: number;
};

export const DEFAULT_MANAGER_OPTIONS: ManagerOptions = {
  idleMs: 250,
  maxBatch: 1000,
  maxInFlight: 200,
  maxAttempts: 6,
  backoffBaseMs: 2000,
  backoffCapMs: 5 * 60_000,
  pauseAfterFailures: 10,
  drainMs: 20_000,
};

/** The slowest a number is driven by 429s, as a share of its configured rate. */
const SLOWEST_SHARE = 0.25;
/**
 * Share of the configured rate a number wins back per one-second window. It also outweighs a small steady share of
 * 429s (5% of calls refused costs 5%, and the step wins it back), so only a real rate limit keeps a number slow.
 */
export const RECOVERY_STEP = 1 / 16;

const CONFIG_REFRESH_MS = 2000;
/**
 * Finished calls are recorded together, once the first of them has waited this long (or FLUSH_BATCH have finished):
 * with calls spread over the second, recording each as it ended cost a transaction (and an event) per message.
 */
const FLUSH_MS = 20;
const FLUSH_BATCH = 250;

type Finished = { row: OutboxRow; lane: Lane; accountId: string; result?: Awaited<ReturnType<Transport["send"]>>; error?: unknown };
type Slots = { lane: number; account: number };

/** One sender number: its own pace, its own 429 back-off. */
type Lane = {
  id: string;
  number: SenderNumber;
  window: SlidingWindow;
  inFlight: number;
  /** The recipients this number has a call in flight to: the next text to one of them waits for it (see runLane). */
  callingPhones: Set<string>;
  /** Nothing to claim before this instant (drained, deferred, or told to wait by a long Retry-After). */
  idleUntil: number;
  /** Share of the configured rate in use: cut once per window with 429s, won back window by window. */
  share: number;
  /** The current 429 window: its start, the calls answered in it and how many of them were 429s. */
  throttleWindow: { from: number; calls: number; throttled: number };
  refreshedAt: number;
};

const isSendError = (e: unknown): e is SendError =>
  typeof e === "object" && e !== null && typeof (e as SendError).kind === "string" && typeof (e as SendError).message === "string";

/**
 * The sending engine: pulls due rows from the outbox per sender number, at that number's pace and its provider
 * account's ceiling, has the store mark them sending (after the checks at the moment of sending) in a committed
 * transaction, calls the provider, and hands every outcome back to the store in batches. It knows no domain: the
 * outbox, the providers and the clock are ports (ports.ts), wired once in server.ts.
 */
export class SendingManager {
  private lanes = new Map<string, Lane>();
  private accounts = new Map<string, SlidingWindow>();
  private outcomes: Finished[] = [];
  /** When the oldest of `outcomes` finished. */
  private outcomesSince = 0;
  private inFlight = 0;
  private running = false;
  private passing = false;
  /** Set by a wake or a finished call that came while no nap was under way: the next pass comes at once. */
  private again = false;
  /** Ends the current nap early. */
  private poke: (() => void) | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private started: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | null = null;
  private failures = new Map<string, number>();
  private lanesCheckedAt = Number.NEGATIVE_INFINITY;
  /** Per sender number, the calls of the last window before this start, counted into its pace when its lane opens. */
  private seeds = new Map<string, { at: number; segments: number }[]>();

  constructor(
    private store: OutboxStore,
    private providers: ProviderRegistry,
    private clock: Clock = realClock,
    private log: (line: string) => void = () => {},
    readonly options: ManagerOptions = { ...DEFAULT_MANAGER_OPTIONS },
  ) {}

  /** Starts the loop; resolves once the calls of the last window are counted and the rows left mid-call recovered. */
  start(): Promise<void> {
    if (this.running) return this.started;
    this.running = true;
    this.started = (async () => {
      // Before recovery rewrites the rows left mid-call: their calls count too.
      for (const call of await this.store.recentCalls(this.clock.now() - WINDOW_MS - GUARD_MS)) {
        const calls = this.seeds.get(call.laneId);
        if (calls) calls.push(call);
        else this.seeds.set(call.laneId, [call]);
      }
      const recovered = await this.store.recover(this.clock.now());
      if (recovered) this.log(`sending: ${recovered} message(s) in flight at the last stop wait for the provider to say whether it has them`);
    })();
    this.loopDone = this.started.then(
      () => this.loop(),
      () => void (this.running = false),
    );
    return this.started;
  }

  /**
   * Stops claiming at once, lets the calls in flight finish (drainMs at most) and records their outcomes. Every
   * caller gets the same drain: the server starts it first on SIGTERM and awaits it again before the database closes.
   */
  stop(): Promise<void> {
    if (!this.running) return this.stopping ?? Promise.resolve();
    this.running = false;
    this.poke?.();
    this.stopping = (async () => {
      await this.loopDone;
      const deadline = this.clock.now() + this.options.drainMs;
      if (this.inFlight > 0) this.log(`sending: stopping; waiting for ${this.inFlight} provider call(s) in flight`);
      while (this.inFlight > 0 && this.clock.now() < deadline) await this.clock.sleep(10);
      await this.flushOutcomes(this.clock.now());
    })();
    return this.stopping;
  }

  /** Something was queued (or a campaign resumed): look now rather than at the next idle pass. */
  wake(laneId?: string) {
    const lane = laneId ? this.lanes.get(laneId) : undefined;
    if (lane) lane.idleUntil = 0;
    else {
      for (const lane of this.lanes.values()) lane.idleUntil = 0;
      this.lanesCheckedAt = Number.NEGATIVE_INFINITY;
    }
    this.nudge();
  }

  /** A share of the configured rate per sender number (1 when no 429 slowed it), for tests and diagnostics. */
  shareOf(laneId: string): number | undefined {
    return this.lanes.get(laneId)?.share;
  }

  private nudge() {
    if (this.poke) this.poke();
    else this.again = true;
  }

  private async loop() {
    while (this.running) {
      this.again = false;
      const sleep = await this.pass();
      if (!this.running) break;
      if (this.again) await this.clock.sleep(0);
      else await this.nap(sleep);
    }
  }

  /**
   * Sleeps `ms`, or less when poked. A poke ends the nap on the next timer turn, not at once: a pass never runs in
   * the microtasks of whoever woke it (a request handler still answering, a call's other callbacks), as the provider
   * calls it starts would otherwise queue behind that work and reach the provider later than the pace counted them.
   */
  private nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.poke = () => void this.clock.sleep(0).then(resolve);
      void this.clock.sleep(ms).then(resolve);
    }).then(() => {
      this.poke = null;
    });
  }

  /** One look at every lane; answers how long until the next is needed. */
  private async pass(): Promise<number> {
    this.passing = true;
    let sleep = this.options.idleMs;
    try {
      const now = this.clock.now();
      if (this.outcomes.length >= FLUSH_BATCH || now - this.outcomesSince >= FLUSH_MS) await this.flushOutcomes(now);
      if (Math.abs(now - this.lanesCheckedAt) >= this.options.idleMs) {
        this.lanesCheckedAt = now;
        for (const id of await this.store.dueLanes(now + 1)) if (!this.lanes.has(id)) await this.addLane(id, now);
      }
      let busy = false;
      for (const lane of [...this.lanes.values()]) {
        const next = await this.runLane(lane, now);
        if (next <= now) busy = true;
        else sleep = Math.min(sleep, next - now);
      }
      if (this.outcomes.length) sleep = Math.min(sleep, this.outcomesSince + FLUSH_MS - now);
      if (busy) sleep = 0;
    } catch (err) {
      this.log(`sending: pass failed: ${(err as Error)?.stack ?? err}`);
      sleep = this.options.idleMs;
    } finally {
      this.passing = false;
    }
    return Math.max(1, Math.round(sleep));
  }

  private async addLane(id: string, now: number) {
    const number = await this.providers.number(id);
    if (!number) return;
    const window = new SlidingWindow(number.messagesPerSecond);
    const seeds = this.seeds.get(id);
    if (seeds) {
      this.seeds.delete(id);
      window.seed(seeds);
      if (number.account) this.accountWindow(number.account).seed(seeds);
    }
    this.lanes.set(id, {
      id,
      number,
      window,
      inFlight: 0,
      callingPhones: new Set(),
      idleUntil: 0,
      share: 1,
      throttleWindow: { from: now, calls: 0, throttled: 0 },
      refreshedAt: now,
    });
  }

  private accountWindow(account: SenderAccount): SlidingWindow {
    let w = this.accounts.get(account.id);
    if (!w) this.accounts.set(account.id, (w = new SlidingWindow(account.messagesPerSecond)));
    w.limit = account.messagesPerSecond;
    return w;
  }

  /**
   * Closes the lane's 429 window once a second has passed: all the 429s of one window slow the number once (as TCP
   * halves once per round trip), by the share of calls refused and at most by half, and every window wins back
   * RECOVERY_STEP. A number whose provider refuses 5% of calls at random keeps (nearly) its whole rate; one whose
   * provider's real limit is lower settles just above it.
   */
  private adjustShare(lane: Lane, now: number) {
    const w = lane.throttleWindow;
    const windows = Math.floor((now - w.from) / WINDOW_MS);
    if (windows < 1) return;
    let share = lane.share;
    if (w.throttled) share = Math.max(SLOWEST_SHARE, share * Math.max(0.5, 1 - w.throttled / w.calls));
    lane.share = Math.min(1, share + RECOVERY_STEP * windows);
    w.from += windows * WINDOW_MS;
    w.calls = 0;
    w.throttled = 0;
  }

  /** Claims and dispatches what this lane may send now; answers when it next needs a look. */
  private async runLane(lane: Lane, now: number): Promise<number> {
    if (lane.idleUntil > now) return lane.idleUntil;
    if (now - lane.refreshedAt > CONFIG_REFRESH_MS) {
      const number = await this.providers.number(lane.id);
      if (!number) {
        this.lanes.delete(lane.id);
        return now + this.options.idleMs;
      }
      lane.number = number;
      lane.refreshedAt = now;
    }
    this.adjustShare(lane, now);
    const rate = lane.number.messagesPerSecond;
    lane.window.limit = rate > 0 ? Math.max(rate * lane.share, Math.min(1, rate)) : 0;
    const account = lane.number.account;
    if (!account || !account.active) return (lane.idleUntil = now + this.options.idleMs);
    // The pace is counted when a row is claimed, so the call must start then, not after a module load.
    const transport = account.ready();
    if (!transport) {
      account.load().then(
        () => this.wake(lane.id),
        (err) => this.log(`sending: provider ${account.id} unavailable: ${(err as Error)?.message ?? err}`),
      );
      return (lane.idleUntil = now + this.options.idleMs);
    }
    const accountWindow = this.accountWindow(account);
    const room = Math.min(lane.window.available(now), accountWindow.available(now));
    const slots = this.options.maxInFlight - lane.inFlight;
    if (room <= 0 || slots <= 0) {
      return slots <= 0 ? now + 5 : Math.max(lane.window.nextFreeAt(now), accountWindow.nextFreeAt(now));
    }
    const limit = Math.max(1, Math.min(this.options.maxBatch, slots, Number.isFinite(room) ? Math.ceil(room) : this.options.maxBatch));
    const rows = await this.store.claim(lane.id, now, limit);
    if (!rows.length) {
      const next = await this.store.nextDue(lane.id);
      lane.idleUntil = next === null ? now + 60_000 : Math.max(next, now + 1);
      return lane.idleUntil;
    }
    // One call at a time to a person from one number: texts due together (a drip's steps after a backlog, a chat
    // reply beside a campaign's text) reach the provider in the order they were due, not racing each other. The ones
    // held back stay queued and are claimed again once the call before them has answered.
    const first = new Set<string>();
    const sendable = rows.filter((row) => !lane.callingPhones.has(row.phone) && !first.has(row.phone) && first.add(row.phone));
    if (!sendable.length) return now + 5;
    const taken: Slots[] = [];
    // A number with a rate (and an account with a ceiling) keeps its schedule in the installation's records too, where
    // every process reserves from it: this process's windows pace its own calls, the shared schedules all of theirs.
    const number = lane.window.limit > 0 ? lane.window.interval : null;
    const ceiling = accountWindow.limit > 0 ? { id: account.id, interval: accountWindow.interval } : null;
    const shared = number !== null || ceiling ? { laneId: lane.id, interval: number, account: ceiling, catchUpMs: CATCH_UP_MS, want: Math.ceil(room) } : null;
    const { admitted, nextSlotAt } = await this.store.admit(sendable, now, {
      fits: (row) => lane.window.fits(now, row.segments) && accountWindow.fits(now, row.segments),
      take: (row) => void taken.push({ lane: lane.window.record(now, row.segments), account: accountWindow.record(now, row.segments) }),
      shared,
    });
    admitted.forEach((row, i) => void this.dispatch(transport, account.id, lane, accountWindow, row, taken[i]!));
    if (!admitted.length && sendable.length < limit) return Math.max(now + 1, nextSlotAt ?? 0);
    // The next call is due on the number's schedule, not at once: calls are spread over the second.
    return Math.max(lane.window.nextFreeAt(now), accountWindow.nextFreeAt(now), nextSlotAt ?? 0);
  }

  private async dispatch(transport: Transport, accountId: string, lane: Lane, accountWindow: SlidingWindow, row: OutboxRow, slots: Slots) {
    lane.inFlight++;
    this.inFlight++;
    lane.callingPhones.add(row.phone);
    const startedAt = this.clock.now();
    lane.window.sentAt(slots.lane, startedAt);
    accountWindow.sentAt(slots.account, startedAt);
    let done: Finished;
    try {
      const result = await transport.send({ to: row.phone, from: lane.number.fromNumber, body: row.content, reference: row.id });
      done = { row, lane, accountId, result };
    } catch (error) {
      done = { row, lane, accountId, error };
    }
    lane.inFlight--;
    this.inFlight--;
    lane.callingPhones.delete(row.phone);
    if (!this.outcomes.length) this.outcomesSince = this.clock.now();
    this.outcomes.push(done);
    // The first of a batch sets when the loop next looks; a full batch is recorded at once.
    if (this.outcomes.length === 1 || this.outcomes.length >= FLUSH_BATCH) this.nudge();
  }

  /** Decides what each finished call means and hands the batch to the store (one transaction there). */
  private async flushOutcomes(now: number): Promise<void> {
    if (!this.outcomes.length) return;
    const batch = this.outcomes.splice(0);
    const decided: Outcome[] = [];
    const pauses: { campaignId: string; reason: string }[] = [];
    for (const { row, lane, accountId, result, error } of batch) {
      lane.throttleWindow.calls++;
      if (result) {
        const status = result.status === "delivered" || result.status === "failed" ? result.status : "sent";
        decided.push({ row, kind: "accepted", accountId, providerMessageId: result.providerMessageId, status, segments: result.segments ?? null });
        if (row.campaignId) this.failures.set(row.campaignId, 0);
        continue;
      }
      const err: SendError = isSendError(error)
        ? error
        : { kind: "permanent", code: "internal", message: `Sending failed: ${(error as Error)?.message ?? error}`, retryAfterMs: null };
      if (err.code === "timeout") {
        decided.push({ row, kind: "unknown", code: "timeout", message: "The provider did not answer in time; the message may have been sent, so it is not retried" });
        continue;
      }
      if (err.kind === "rate_limited") {
        const wait = err.retryAfterMs ?? 1000;
        lane.throttleWindow.throttled++;
        // The refused message waits out Retry-After. The number slows through its share (adjustShare); it stops
        // altogether only when told to wait longer than the pacing window, or when it has no rate to slow.
        if (wait > WINDOW_MS || lane.number.messagesPerSecond <= 0) lane.idleUntil = now + wait;
        else lane.idleUntil = Math.min(lane.idleUntil, now + wait);
        decided.push({ row, kind: "retry", at: now + wait, refund: true, code: err.code, message: err.message });
        continue;
      }
      if (err.kind === "transient" && row.attempts + 1 < this.options.maxAttempts) {
        const backoff = Math.min(this.options.backoffCapMs, this.options.backoffBaseMs * 2 ** row.attempts);
        const at = now + Math.max(err.retryAfterMs ?? 0, backoff * (0.75 + this.clock.random() * 0.5));
        decided.push({ row, kind: "retry", at, refund: false, code: err.code, message: err.message });
        lane.idleUntil = Math.min(lane.idleUntil, at);
        continue;
      }
      decided.push({ row, kind: "failed", code: err.code, message: err.message, optedOut: err.kind === "opted_out" });
      if (err.kind === "opted_out" || !row.campaignId) continue;
      const n = (this.failures.get(row.campaignId) ?? 0) + 1;
      this.failures.set(row.campaignId, n);
      if (n === this.options.pauseAfterFailures) {
        const reason = `Paused after ${n} failed messages in a row. Last error: ${err.code ? `${err.code} ` : ""}${err.message}. Check SMS provider settings, then resume.`;
        pauses.push({ campaignId: row.campaignId, reason });
        this.failures.set(row.campaignId, 0);
      }
    }
    await this.store.record(decided, pauses, now);
  }
}
