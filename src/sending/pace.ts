/** The window a messages-per-second limit is counted over, with a small guard for network jitter. */
export const WINDOW_MS = 1000;
export const GUARD_MS = 50;
/**
 * How far behind its schedule a number may catch up at once (a timer that fired late, a loop that waited for a CPU
 * on a loaded machine): at most this much of its rate goes together, within the sliding window still. Less, and a
 * starved process lost the rest of its rate (a number at 200/s sent 30 a second at a load average of 20 with 50 ms).
 * Longer behind, it was idle, and starts afresh with no burst.
 */
export const CATCH_UP_MS = 250;

/**
 * A number's pace, counted in SMS segments. Calls are spread evenly, one segment every (WINDOW_MS + GUARD_MS) /
 * limit ms: a provider counts a sliding second wherever it starts, and a second's worth sent at once followed by a
 * second of silence let two bursts less than a second apart reach nearly twice the rate in its count (375 calls in
 * one second to a 200/s number). Under the spacing, a sliding window of the calls' start times caps any one-second
 * window (plus the guard) at the limit, whatever the spacing lets through when it catches up, across a restart too
 * (`seed`). A message longer than the whole limit goes alone and holds the window for as many seconds as it needs
 * at that rate, the way carriers pace its parts. A limit of 0 or less means no limit.
 */
export class SlidingWindow {
  private times: number[] = [];
  private segments: number[] = [];
  private head = 0;
  /** Entries dropped from the front of the arrays by compaction, so handles stay valid. */
  private dropped = 0;
  private used = 0;
  private blockedUntil = 0;
  /** When the next segment is due on the even schedule. */
  private due = Number.NEGATIVE_INFINITY;

  constructor(public limit: number) {}

  /** Milliseconds between two segments at the limit. */
  get interval(): number {
    return (WINDOW_MS + GUARD_MS) / this.limit;
  }

  private evict(now: number) {
    const from = now - WINDOW_MS - GUARD_MS;
    while (this.head < this.times.length && this.times[this.head]! <= from) {
      this.used -= this.segments[this.head]!;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.segments = this.segments.slice(this.head);
      this.dropped += this.head;
      this.head = 0;
    }
  }

  /** The schedule's next slot as of `now`: idle longer than CATCH_UP_MS, it starts again at now. */
  private dueAt(now: number): number {
    return this.due < now - CATCH_UP_MS ? now : this.due;
  }

  /** Segments that may still go now (Infinity without a limit): the window's room, within the schedule's. */
  available(now: number): number {
    if (this.limit <= 0) return Number.POSITIVE_INFINITY;
    if (now < this.blockedUntil) return 0;
    const due = this.dueAt(now);
    if (due > now) return 0;
    this.evict(now);
    return Math.max(0, Math.min(this.limit - this.used, Math.floor((now - due) / this.interval) + 1));
  }

  /** Whether a message of `segments` may go now; an oversized one only into an empty window. */
  fits(now: number, segments: number): boolean {
    if (this.limit <= 0) return true;
    if (now < this.blockedUntil || this.dueAt(now) > now) return false;
    this.evict(now);
    const free = this.limit - this.used;
    if (free >= segments) return true;
    return segments > this.limit && this.used === 0;
  }

  /** Counts a message admitted now; answers a handle for `sentAt`. */
  record(now: number, segments: number): number {
    if (this.limit <= 0) return -1;
    this.due = this.dueAt(now) + segments * this.interval;
    return this.push(now, segments);
  }

  private push(at: number, segments: number): number {
    const counted = Math.min(segments, this.limit);
    this.times.push(at);
    this.segments.push(counted);
    this.used += counted;
    if (segments > this.limit) this.blockedUntil = Math.max(this.blockedUntil, at + Math.ceil(segments / this.limit) * WINDOW_MS + GUARD_MS);
    return this.dropped + this.times.length - 1;
  }

  /**
   * Counts calls made before this window existed (the last second before a restart), oldest first, so the first
   * second after it holds the rate with them: a fresh window let a full second's worth go at once after a SIGKILL.
   */
  seed(calls: { at: number; segments: number }[]) {
    if (this.limit <= 0) return;
    for (const c of [...calls].sort((a, b) => a.at - b.at)) this.push(c.at, c.segments);
  }

  /**
   * Moves an admitted message to the instant its call actually starts: calls of one batch leave a few
   * milliseconds apart, and the window must hold where the provider counts, not where the batch was claimed.
   */
  sentAt(handle: number, at: number) {
    const i = handle - this.dropped;
    if (handle < 0 || i < this.head || i >= this.times.length) return;
    if (at > this.times[i]!) this.times[i] = at;
  }

  /** When the next segment could go (for sleeping until then). */
  nextFreeAt(now: number): number {
    if (this.limit <= 0) return now;
    if (now < this.blockedUntil) return this.blockedUntil;
    const due = Math.max(now, this.dueAt(now));
    this.evict(now);
    if (this.used < this.limit) return due;
    return Math.max(due, (this.times[this.head] ?? now) + WINDOW_MS + GUARD_MS + 1);
  }
}
