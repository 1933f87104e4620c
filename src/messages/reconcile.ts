import { jsonValues } from "../../db/json-array";
import { ready, withTransaction } from "../../db/transaction";
import type { AppContext } from "../context";
import { PARKED } from "./due";
import { registerJobHandler, enqueueJob, type Job, type JobOutcome } from "../jobs/jobs";
import { findProviderById, type ProviderAccount } from "../providers/accounts";
import { DEFAULT_TIMEOUT_MS } from "../providers/http";
import { pricesNow } from "../providers/prices";
import { adapterFor } from "../providers/registry";
import type { SentLookupResult, SentMatch } from "../providers/types";
import { applyStatusEvents, takeEarlyReport } from "./messages";
import { appendStatusEvents, type StatusEventRow } from "./outbox";

/**
 * Exactly once through a crash. A message the engine had marked `sending` when the process died may or may not have
 * reached the provider. Rather than guess, recovery marks it `unknown` with the code RECONCILING (its campaign is
 * not finished while any is) and queues a job that asks the provider once any request still in flight could no
 * longer be accepted (the request timeout plus a margin after the call started):
 * - the provider has it: the message is `sent` (or the status the provider gives) with the provider's id;
 * - the provider says for certain it has none: the message is queued again (code RESENDING) and goes out through
 *   the engine, once (a crash during that send is reconciled the same way: each attempt has its own job);
 * - the provider cannot tell (no lookup API, or the lookup failed LOOKUP_ATTEMPTS times): it stays `unknown`
 *   (code INTERRUPTED) and is never sent again, to avoid a duplicate.
 * Messages keep their order per person: a later message to the same phone waits while an earlier one is
 * reconciling or being sent again (`waitsForEarlier`, checked by the engine at the moment of sending).
 */

export const RECONCILE_JOB = "message_reconcile";
/** error_code of a message waiting for the provider's answer. */
export const RECONCILING = "reconciling";
/** error_code of a message whose fate nobody can tell: never sent again. */
export const INTERRUPTED = "interrupted";
/** error_code of a message the provider certainly never got, queued again (cleared once it is sent). */
export const RESENDING = "resending";

/** Beyond the request timeout: a request the provider received just before it may still be accepted a little later. */
export const RECONCILE_MARGIN_MS = 10_000;
/** Lookups tried (with the job's back-off between them) before the message is left unknown. */
export const LOOKUP_ATTEMPTS = 5;

const LOOKUP_OPTIONS = {
  leaseMs: 2 * 60_000,
  firstDelayMs: 30_000,
  maxDelayMs: 10 * 60_000,
  // The handler answers on its last attempt itself; one more only so a failure to record that is retried too.
  maxAttempts: LOOKUP_ATTEMPTS + 1,
  concurrency: { total: 8, perRef: 1, perUser: 4 },
};

type Interrupted = StatusEventRow & { attempts: number; startedAt: number; phone: string };

/**
 * Per app, the people (`userId phone`) with a message reconciling or being sent again since this start: only their
 * later messages pay for the order check. Filled at start; entries stay until the next start (a few hundred at most).
 */
const waitingPeople = new WeakMap<AppContext, Set<string>>();
const person = (userId: string, phone: string) => `${userId} ${phone}`;

type Row = StatusEventRow & {
  phone: string;
  content: string;
  providerId: string | null;
  fromNumber: string | null;
  numberId: string | null;
  status: string;
  errorCode: string | null;
};

/**
 * On PostgreSQL, where several processes send (issue 31 item 2), a row `sending` is another process's call in flight
 * until SENDING_LEASE_MS after it was marked (the provider's timeout and a stop's drain are shorter): past that its
 * process is gone, and any process marks it unknown to be reconciled as after a crash, each row once (a process's
 * look skips the rows another's holds). markInterrupted, at an SQLite start, takes every `sending` row: one process.
 * Parameters: error code, message, now, lease's start (now - SENDING_LEASE_MS). Answers the rows, with when their
 * call started.
 */
export const INTERRUPTED_SQL_POSTGRES = `UPDATE messages SET status = 'unknown', error_code = ?, error_message = ?, updated_at = ? FROM (
    SELECT id, updated_at AS started FROM messages WHERE status = 'sending' AND updated_at <= ? FOR UPDATE SKIP LOCKED) AS cut
  WHERE messages.id = cut.id
  RETURNING messages.id, messages.user_id AS "userId", messages.campaign_id AS "campaignId", messages.phone, messages.attempts,
    cut.started AS "startedAt"`;
export const SENDING_LEASE_MS = 5 * 60_000;

/**
 * At start, before the engine claims anything: every message left `sending` by the crash waits for reconciliation
 * (one job per message and attempt, due when the call it was in could no longer be accepted). Answers how many.
 */
export async function markInterrupted(ctx: AppContext, now: number): Promise<number> {
  const db = ctx.db.$client;
  return withTransaction(ctx.db, async () => {
    // updated_at is the moment the engine marked it sending: the call started then. Read through the outbox index
    // (a sender number's, or none once its number was deleted: the key is null then), where `status = 'sending'`
    // alone scanned every message at each start (a million: 150 ms before the server listened).
    const columns = "id, user_id AS userId, campaign_id AS campaignId, phone, attempts, min(updated_at, ?1) AS startedAt";
    const rows = db
      .query(
        `SELECT ${columns} FROM messages WHERE phone_number_id IN (SELECT id FROM phone_numbers) AND status = 'sending'
         UNION ALL SELECT ${columns} FROM messages WHERE phone_number_id IS NULL AND status = 'sending'`,
      )
      .all(now) as Interrupted[];
    // Those still waiting from an earlier start (every outbound row has a sender number), through the index of the
    // messages with these codes (migration 0075; its condition written out, as SQLite chooses a partial index only
    // for a query that says it): through the outbox index every unknown message was looked up, 10,000 in 70-80 ms.
    const earlier = db
      .query(
        `SELECT DISTINCT user_id AS userId, phone FROM messages WHERE error_code IN ('${RECONCILING}', '${RESENDING}')
           AND status IN ('unknown', 'queued') AND phone_number_id IN (SELECT id FROM phone_numbers)`,
      )
      .all() as { userId: string; phone: string }[];
    waitingPeople.set(ctx, new Set([...rows, ...earlier].map((r) => person(r.userId, r.phone))));
    const mark = db.query(`UPDATE messages SET status = 'unknown', error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`);
    for (const r of rows) {
      mark.run(RECONCILING, "The server stopped while this message was being handed to the provider; asking the provider whether it arrived", now, r.id);
      await enqueueJob(ctx, {
        kind: RECONCILE_JOB,
        key: `${RECONCILE_JOB}:${r.id}:${r.attempts}`,
        runAt: Math.max(now, r.startedAt + DEFAULT_TIMEOUT_MS + RECONCILE_MARGIN_MS),
        userId: r.userId,
        refId: r.id,
        payload: { messageId: r.id, startedAt: r.startedAt },
      });
    }
    return rows.length;
  });
}

/**
 * Whether an earlier message to the same person is still reconciling, being sent again, or waiting its own turn
 * behind one of those (queued, unless parked by a pause, or in flight): this one waits, so nobody gets step 3 of a
 * drip before step 2, nor step 4 before step 3. Without the last, step 3, put back by two seconds at each look
 * while step 2 was reconciled, could come due after step 4 had been put back to an earlier instant, and step 4 went
 * first. One indexed lookup, only for the people a crash left waiting.
 */
export async function waitsForEarlier(ctx: AppContext, row: { id: string; userId: string; phone: string }): Promise<boolean> {
  if (!waitingPeople.get(ctx)?.has(person(row.userId, row.phone))) return false;
  await ready(ctx.db);
  const rows = await ctx.records.$rows(
    `SELECT 1 FROM messages e WHERE e.user_id = ? AND e.phone = ? AND e.seq < (SELECT seq FROM messages WHERE id = ?)
       AND ((e.status = 'unknown' AND e.error_code = ?) OR e.status = 'sending'
         OR (e.status = 'queued' AND (e.error_code = ? OR e.next_attempt_at < ${PARKED}))) LIMIT 1`,
    [row.userId, row.phone, row.id, RECONCILING, RESENDING],
  );
  return rows.length > 0;
}

export function registerReconciliation(ctx: AppContext) {
  registerJobHandler(ctx, RECONCILE_JOB, reconcile, LOOKUP_OPTIONS);
}

async function reconcile(ctx: AppContext, job: Job): Promise<JobOutcome> {
  const messageId = job.payload.messageId as string;
  const startedAt = job.payload.startedAt as number;
  await ready(ctx.db);
  const row = await waiting(ctx, messageId);
  if (!row) return { result: "settled before the lookup" };
  const account = row.providerId ? await findProviderById(ctx, row.providerId) : null;
  if (!account || !row.fromNumber) return leaveUnknown(ctx, messageId, "its provider account was removed");
  let answer: SentLookupResult;
  try {
    const adapter = await adapterFor(ctx, account);
    answer = await adapter.findSent({
      reference: row.id,
      to: row.phone,
      from: row.fromNumber,
      body: row.content,
      after: startedAt,
      before: startedAt + DEFAULT_TIMEOUT_MS + RECONCILE_MARGIN_MS,
    });
  } catch (err) {
    const reason = (err as Error)?.message ?? String(err);
    if (job.attempts >= LOOKUP_ATTEMPTS) return leaveUnknown(ctx, messageId, `the provider could not be asked (${LOOKUP_ATTEMPTS} tries, last: ${reason})`);
    throw err;
  }
  if (answer.kind === "cannot_tell") return leaveUnknown(ctx, messageId, answer.reason);
  return settle(ctx, account, messageId, startedAt, answer.matches);
}

/** The message when it still waits for reconciliation (names quoted: PostgreSQL folds unquoted ones to lower case). */
async function waiting(ctx: AppContext, id: string): Promise<Row | null> {
  const [row] = await ctx.records.$rows<Row>(
    `SELECT id, user_id AS "userId", campaign_id AS "campaignId", phone, content, provider_id AS "providerId", from_number AS "fromNumber",
       phone_number_id AS "numberId", status, error_code AS "errorCode" FROM messages WHERE id = ?`,
    [id],
  );
  return row?.status === "unknown" && row.errorCode === RECONCILING ? row : null;
}

async function leaveUnknown(ctx: AppContext, id: string, reason: string): Promise<JobOutcome> {
  const row = await withTransaction(ctx.db, async () => {
    const row = await waiting(ctx, id);
    if (!row) return null;
    await ctx.records.$run(`UPDATE messages SET error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`, [
      INTERRUPTED,
      `The server stopped while this message was being handed to the provider, and whether it arrived cannot be checked: ${reason}. It was not sent again, to avoid a duplicate.`,
      ctx.now(),
      id,
    ]);
    await appendStatusEvents(ctx, "message.unknown", [row]);
    return row;
  });
  if (row?.campaignId) {
    await ready(ctx.db);
    await ctx.campaignOutbox.settle([row.campaignId]);
  }
  return { result: { outcome: "unknown", reason } };
}

/**
 * The provider's certain answer, in one transaction with its events: a match no other message already holds makes
 * this one sent (the same body sent to the same person earlier is that earlier message's), none queues it again.
 */
async function settle(ctx: AppContext, account: ProviderAccount, id: string, startedAt: number, matches: SentMatch[]): Promise<JobOutcome> {
  const now = ctx.now();
  const decided = await withTransaction(ctx.db, async () => {
    // Sent at the account's price now, as the engine records an accepted message (the dashboards' spend).
    const price = (await pricesNow(ctx, [account.id])).get(account.id) ?? null;
    const row = await waiting(ctx, id);
    if (!row) return null;
    const others = await ctx.records.$rows<{ pid: string }>(
      `SELECT provider_message_id AS pid FROM messages WHERE provider_id = ? AND provider_message_id IN (${jsonValues(ctx.records)}) AND id <> ?`,
      [account.id, JSON.stringify(matches.map((m) => m.providerMessageId)), id],
    );
    const taken = new Set(others.map((r) => r.pid));
    const match = matches.find((m) => !taken.has(m.providerMessageId));
    if (!match) {
      await ctx.records.$run(`UPDATE messages SET status = 'queued', next_attempt_at = ?, error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`, [
        now,
        RESENDING,
        "The provider never got this message before the server stopped: it is being sent again",
        now,
        id,
      ]);
      return { row, match: null };
    }
    const status = match.status === "delivered" || match.status === "failed" ? match.status : "sent";
    await ctx.records.$run(
      `UPDATE messages SET status = ?, provider_message_id = ?, sent_at = ?, segment_price_micros = ?, error_code = NULL,
         error_message = CASE WHEN ? = 'failed' THEN 'The provider accepted the message, then reported it failed' END, updated_at = ? WHERE id = ?`,
      [status, match.providerMessageId, startedAt, price, status, now, id],
    );
    await appendStatusEvents(ctx, `message.${status}`, [row]);
    return { row, match };
  });
  if (!decided) return { result: "settled before the lookup" };
  const { row, match } = decided;
  if (!match) {
    if (row.numberId) ctx.sending.wake(row.numberId);
    return { result: { outcome: "queued again" } };
  }
  // A delivery report that came while the message had no provider id yet was held for it.
  const report = await takeEarlyReport(ctx, account.id, match.providerMessageId);
  if (report) await applyStatusEvents(ctx, account, [report]);
  if (row.campaignId) {
    await ready(ctx.db);
    await ctx.campaignOutbox.settle([row.campaignId]);
  }
  return { result: { outcome: "found", providerMessageId: match.providerMessageId } };
}
