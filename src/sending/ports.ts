/**
 * What the sending engine needs from the rest of the appliance. The engine imports no domain: the messages domain
 * implements the outbox store, the providers domain the registry, and server.ts wires them once. Tests hand it an
 * in-memory store, fake providers and a fake clock, so pace, back-off, retries and pauses run in milliseconds.
 */

/** Time as the engine sees it: the real one in the appliance, a fake one in tests. */
export type Clock = {
  now(): number;
  /** Resolves once `ms` have passed on this clock. */
  sleep(ms: number): Promise<void>;
  /** In [0, 1): the jitter of retry back-off. */
  random(): number;
};

export const realClock: Clock = {
  now: Date.now,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** A due outbox row, claimed for one sender number. */
export type OutboxRow = {
  id: string;
  userId: string;
  campaignId: string | null;
  phone: string;
  content: string;
  segments: number;
  /** Calls made so far (before this one). */
  attempts: number;
};

/**
 * The engine's decision about one call, for the store to record:
 * - accepted: the provider took it (`status` as the provider answered: sent, or already delivered or failed);
 * - retry: due again at `at` (`refund`: a 429 does not use up one of the message's attempts);
 * - failed: final; `optedOut` when the provider said the recipient opted out there;
 * - unknown: the provider may or may not have it (a timeout), so it is never sent again.
 */
export type Outcome =
  | { row: OutboxRow; kind: "accepted"; accountId: string; providerMessageId: string; status: "sent" | "delivered" | "failed"; segments: number | null }
  | { row: OutboxRow; kind: "retry"; at: number; refund: boolean; code: string | null; message: string }
  | { row: OutboxRow; kind: "failed"; code: string | null; message: string; optedOut: boolean }
  | { row: OutboxRow; kind: "unknown"; code: string; message: string };

/**
 * The outbox, as the engine uses it: records an asynchronous engine can serve (each answers a Promise; the SQLite
 * store's resolve at once underneath, each write one transaction per batch whose callback awaits records only).
 */
export interface OutboxStore {
  /** At start: rows left mid-call by a crash become unknown until reconciled with the provider; answers how many. */
  recover(now: number): Promise<number>;
  /**
   * The provider calls started since `since`, per sender number (at start, before `recover`): the pace counts them,
   * so the first second after a restart holds the number's rate with the second before it.
   */
  recentCalls(since: number): Promise<{ laneId: string; at: number; segments: number }[]>;
  /** Sender numbers with rows due before `now`, and rows whose sender is gone (failed, once per look). */
  dueLanes(now: number): Promise<string[]>;
  /** Up to `limit` rows of a sender number due at `now`, oldest first. */
  claim(laneId: string, now: number, limit: number): Promise<OutboxRow[]>;
  /** When the number's next row is due (null when none is queued; the far future for parked rows). */
  nextDue(laneId: string): Promise<number | null>;
  /**
   * The checks at the moment of sending (consent, expiry, quiet hours, caps, the campaign's state), then the mark:
   * rows that may go are set sending in one committed transaction before any call, in order while `pace.fits` says
   * the next one fits this process's count of the number's rate and, with `pace.shared`, while the number's shared
   * schedule has a slot come for it; `pace.take` counts each row marked. Answers the rows marked, in order, and when
   * the shared schedule's next slot is (null without one).
   */
  admit(rows: OutboxRow[], now: number, pace: AdmitPace): Promise<{ admitted: OutboxRow[]; nextSlotAt: number | null }>;
  /** Records finished calls (and campaigns paused by a failure run) in one transaction. */
  record(outcomes: Outcome[], pauses: { campaignId: string; reason: string }[], now: number): Promise<void>;
}

/**
 * The schedules every process of the installation shares (issue 31 item 2): the number's, a segment every `interval`
 * ms (null when it has no rate), and its provider account's when that has a ceiling across its numbers; `catchUpMs`
 * of slots owed are given at once (src/sending/pace.ts). A batch reserves at most `want` segments of each.
 */
export type SharedPace = {
  laneId: string;
  interval: number | null;
  account: { id: string; interval: number } | null;
  catchUpMs: number;
  want: number;
};

export type AdmitPace = { fits(row: OutboxRow): boolean; take(row: OutboxRow): void; shared: SharedPace | null };

/** The provider call, in the engine's words. */
export type Transport = {
  send(message: { to: string; from: string; body: string; reference: string }): Promise<{
    providerMessageId: string;
    status: "queued" | "sent" | "delivered" | "failed";
    segments?: number;
  }>;
};

/**
 * What a provider call may throw (ProviderError has these fields); anything else is a permanent failure.
 * - transient: retry with back-off; rate_limited: a 429 (retry after `retryAfterMs`);
 * - permanent, auth: fail at once; opted_out: fail, and the recipient is opted out.
 */
export type SendError = {
  kind: "transient" | "rate_limited" | "permanent" | "opted_out" | "auth";
  code: string | null;
  message: string;
  retryAfterMs: number | null;
};

export type SenderAccount = {
  id: string;
  active: boolean;
  /** The account-wide ceiling across its numbers, in segments per second; 0 for none. */
  messagesPerSecond: number;
  /** The provider's client when it is built; null while it loads. */
  ready(): Transport | null;
  /** Builds the client (an SDK may load on first use). */
  load(): Promise<unknown>;
};

export type SenderNumber = {
  fromNumber: string;
  /** Segments per second; 0 for no limit. */
  messagesPerSecond: number;
  account: SenderAccount | null;
};

/** The sender numbers the outbox names, with their provider accounts. */
export interface ProviderRegistry {
  /** A sender number's settings now; null once it is removed (a record: read when a lane is added or refreshed). */
  number(id: string): Promise<SenderNumber | null>;
}
