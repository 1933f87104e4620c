/** The window a messages-per-second limit is counted over, with a small guard for network jitter. */
export const WINDOW_MS = 1000;
const GUARD_MS = 50;

/**
 * A sliding one-second window counted in SMS segments: a message may go when the segments sent in the last second
 * plus its own stay within the limit, so no one-second window ever exceeds it (a token bucket would allow twice the
 * rate across a window boundary). A message longer than the whole limit goes alone and holds the window for as many
 * seconds as it needs at that rate, the way carriers pace its parts. A limit of 0 or less means no limit.
 */
export class SlidingWindow {
  private times: number[] = [];
  private segments: number[] = [];
  private head = 0;
  /** Entries dropped from the front of the arrays by compaction, so handles stay valid. */
  private dropped = 0;
  private used = 0;
  private blockedUntil = 0;

  constructor(public limit: number) {}

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

  /** Segments that may still go now (Infinity without a limit). */
  available(now: number): number {
    if (this.limit <= 0) return Number.POSITIVE_INFINITY;
    if (now < this.blockedUntil) return 0;
    this.evict(now);
    return Math.max(0, this.limit - this.used);
  }

  /** Whether a message of `segments` may go now; an oversized one only into an empty window. */
  fits(now: number, segments: number): boolean {
    const free = this.available(now);
    if (free >= segments) return true;
    return segments > this.limit && free === this.limit;
  }

  /** Counts a message admitted now; answers a handle for `sentAt`. */
  record(now: number, segments: number): number {
    if (this.limit <= 0) return -1;
    const counted = Math.min(segments, this.limit);
    this.times.push(now);
    this.segments.push(counted);
    this.used += counted;
    if (segments > this.limit) this.blockedUntil = now + Math.ceil(segments / this.limit) * WINDOW_MS + GUARD_MS;
    return this.dropped + this.times.length - 1;
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
    this.evict(now);
    if (this.used < this.limit) return now;
    return (this.times[this.head] ?? now) + WINDOW_MS + GUARD_MS + 1;
  }
}
