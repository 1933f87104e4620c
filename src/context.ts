import type { Db } from "../db/client";
import type { RecordsDb } from "../db/records";
import type { Config } from "./config";
import type { Mailer } from "./mail/mailer";

/** What every domain needs from the running appliance; built once in server.ts. */
export type AppContext = {
  config: Config;
  /**
   * The data folder's SQLite database, as the records not yet served on PostgreSQL use it (synchronous statements,
   * `$client`). Under DATABASE_URL it stands for the PostgreSQL database: `ready` and transactions work, and any
   * statement through it throws, naming the record not yet served there (src/server.ts `postgresDb`).
   */
  db: Db;
  /**
   * The records' database on either engine (db/records.ts): every statement awaited, raw ones through
   * `$rows`/`$run`. On SQLite, a drizzle database over `ctx.db`'s connection whose every statement waits while another
   * caller's transaction is open (read at each call: a restore replaces `ctx.db`).
   */
  readonly records: RecordsDb;
  /**
   * Runs `fn` in one transaction of the records it calls (db/transaction.ts on SQLite): committed when it resolves,
   * rolled back when it throws; inside another, a savepoint of it. Other callers' records wait until it ends, so
   * `fn` must not await anything but records (no provider call, no timer) while it is open.
   */
  withTransaction<T>(fn: () => Promise<T>): Promise<T>;
  mailer: Mailer;
  keys: { sessions: Buffer; codes: Buffer; secrets: Buffer; webhooks: Buffer };
  now: () => number;
  /**
   * argon2id's cost for new password hashes (and the decoy's); unset, as the appliance always runs, Bun's defaults.
   * No setting reaches it: only a test that makes hundreds of wrong guesses (lockout.test.ts) lowers it in-process,
   * where what it proves is the counting, not the hashing's price.
   */
  argon2Cost?: { memoryCost: number; timeCost: number };
  log: (line: string) => void;
  /** Whether the database answers (GET /api/health): the composition's, which opened it (db/client.ts). */
  databaseStatus(): Promise<"ok" | "error">;
  /**
   * Hands a request to the app's own routes, as if it came over HTTP: the simulator provider posts its delivery
   * reports through the same webhook path a real provider uses. Set once the app is built.
   */
  dispatch: (request: Request) => Promise<Response>;
  /**
   * The sending engine (src/sending/manager.ts), wired in server.ts: domains wake it through here when they queue or
   * release messages, never by importing it.
   */
  sending: { wake(laneId?: string): void; start(): Promise<void>; stop(): Promise<void> };
  /**
   * The campaigns domain's side of the outbox, registered in server.ts, so the messages domain (the outbox's one
   * writer) imports nothing of campaigns: whether a campaign may send (and at any hour), the pause after a failure run, and the one
   * settle step every change of message statuses hands its campaigns to.
   */
  campaignOutbox: {
    /** Each campaign's status, and `anyHour` once the user chose to send its held messages at once (quiet hours hold none since). */
    states(ids: string[]): Promise<Map<string, { status: string; anyHour: boolean }>>;
    pause(campaignId: string, reason: string): Promise<unknown>;
    /** Campaigns whose messages changed status: one with nothing left to send is completed or failed. */
    settle(campaignIds: Iterable<string>): Promise<void>;
  };
  /**
   * The conversations domain's side of the outbox, wired in server.ts, so the messages domain (which conversations
   * read and send through) imports nothing of conversations: each message written takes its place in its phone's
   * thread in the writer's transaction. Records: each call serves a whole chunk of the writer's messages.
   */
  threads: {
    /** Reserves `n` consecutive sequence numbers (a message's place in its thread); answers the first. */
    reserve(n: number): Promise<number>;
    /** Messages of no campaign at the end of their phones' threads, in order (an inbound one counts as unread). */
    attach(messages: { userId: string; phone: string; seq: number; messageId: string; direction: "inbound" | "outbound"; receivedOn?: string | null }[]): Promise<void>;
    /** A campaign's messages, one statement for all of them: `places` are [phone, seq] pairs. */
    attachCampaign(m: { userId: string; campaignId: string; places: [string, number][] }): Promise<void>;
  };
  /**
   * What the plan limits (src/licenses/limits.ts) count, answered by the owners of the rows and wired in server.ts:
   * licenses sits below contacts, messages and numbers, which all check their limits before they add.
   */
  usageCounts: {
    contacts(userId: string): Promise<number>;
    /** SMS (segments) sent since an instant. */
    segmentsSince(userId: string, since: Date): Promise<number>;
    numbers(userId: string): Promise<number>;
  };
  /**
   * The messages domain's side of a contact merge (src/messages/messages.ts), wired in server.ts: the outbox's checks
   * at sending read contacts, so contacts import nothing of messages. `move` gives the merged contacts' messages to
   * the primary, in the merge's transaction.
   */
  contactMessages: { move(userId: string, fromIds: string[], toId: string): Promise<void> };
  /**
   * Detaches the messages of a provider account about to be deleted, a chunk at a time (src/messages/detach.ts):
   * wired in server.ts, the providers domain being below the messages and its own numbers.
   */
  detachProviderMessages(providerId: string): Promise<void>;
  /** The same for one sender number about to be deleted (src/phone-numbers/numbers.ts, below the messages). */
  detachNumberMessages(numberId: string): Promise<void>;
  /**
   * The account's first sender number (src/phone-numbers/numbers.ts firstNumberOf), wired in server.ts: an account's
   * default country falls back to its country (src/users/default-country.ts), and users sits below phone-numbers.
   */
  firstSenderNumber(userId: string): Promise<string | undefined>;
  /**
   * After an account's quiet hours changed (src/auth/user-routes.ts, below the outbox): the campaign messages and drip
   * steps they held become due and are checked against the new setting (src/campaigns/held.ts,
   * src/drips/runner.ts); answers how many. Wired in server.ts.
   */
  releaseHeldMessages(userId: string): Promise<number>;
  /**
   * Tests only: set by entry points under tests/support, never by the product (no setting or variable of the
   * appliance reaches it). The webhook guard judges each address listed as the address it maps to, so a test's
   * receiver on 127.0.0.1 stands in for a public host or one on the administrator's allow-listed LAN.
   */
  webhookTestNetwork?: { judgeAs: Readonly<Record<string, string>> };
  /** Run by server.stop(), in order: background workers stop before the database closes. */
  onStop: (() => void | Promise<void>)[];
};
