import type { Statement } from "bun:sqlite";
import { ready, withTransaction } from "../../db/transaction";
import { contactStateFields, optedOutReader, optOutContact, personKey } from "../contacts/contacts";
import type { AppContext } from "../context";
import { messageIdsSince } from "../events/events";
import { numberById } from "../phone-numbers/numbers";
import { reserveSchedules, settleSchedules, type BatchGrant, type Schedule } from "../phone-numbers/pace";
import { findProviderById, webhookUrl, type ProviderAccount } from "../providers/accounts";
import { mediaOfMessages, signedMediaUrl } from "../media/media";
import { mmsPricesNow, pricesNow } from "../providers/prices";
import { adapterFor, readyAdapter } from "../providers/registry";
import type { AdmitPace, OutboxRow, OutboxStore, Outcome, ProviderRegistry, SenderNumber } from "../sending/ports";
import { zoneForRecipient } from "../sending/quiet-hours";
import { holdFor, stateFromField, stateOfNumber, type StateRule } from "../sending/state-rules";
import { stateRulesInForce } from "../state-rules/overrides";
import { applyStatusEvents, takeEarlyReports } from "./messages";
import { PARKED } from "./due";
import { appendStatusEvents, type StatusEventRow } from "./outbox";
import { markInterrupted, waitsForEarlier } from "./reconcile";

/**
 * The claim on PostgreSQL, where several processes send for one installation (issue 31 item 2): a sender number's
 * due rows, oldest first, locked and skipped by the other processes' claims meanwhile (`FOR UPDATE SKIP LOCKED`), and
 * leased: their next_attempt_at moves to the lease's end (the first parameter), so no other process finds them due
 * while this one checks and marks them (admit: sending, held, deferred or finished, each writing its own time), and
 * RELEASE_CLAIM_SQL gives those it left queued their time back. A process killed between its claim and its admit
 * leaves its rows due to the others once the lease is over. SQLite, one process, claims by reading (`claim` below).
 * Parameters: lease end, number, now, limit. Answers the rows with the time each was due.
 */
export const CLAIM_SQL_POSTGRES = `UPDATE messages SET next_attempt_at = ? FROM (
    SELECT id, next_attempt_at AS due FROM messages WHERE phone_number_id = ? AND status = 'queued' AND next_attempt_at <= ?
      AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = messages.user_id AND u.disabled = 1)
    ORDER BY next_attempt_at LIMIT ? FOR UPDATE OF messages SKIP LOCKED) AS claimed
  WHERE messages.id = claimed.id
  RETURNING messages.id, messages.user_id AS "userId", messages.campaign_id AS "campaignId", messages.phone, messages.content,
    messages.segments, messages.attempts, messages.expires_at AS "expiresAt", messages.kind, messages.mms, claimed.due AS "dueAt"`;
/** A claimed row left queued by its admit (the pace had no room for it): due again when it was. Parameters: due, id, lease end. */
export const RELEASE_CLAIM_SQL = `UPDATE messages SET next_attempt_at = ? WHERE id = ? AND status = 'queued' AND next_attempt_at = ?`;
/** How long a claim holds its rows from the other processes: far longer than a batch's checks and marks take. */
export const CLAIM_LEASE_MS = 30_000;

/** How long a message waits before looking again while an earlier one to the same person is reconciled. */
const ORDER_WAIT_MS = 2000;
const DAY_MS = 24 * 3600_000;

/**
 * A claimed row; on PostgreSQL, `dueAt` the time it was due before its claim leased it until `leasedUntil`, which
 * RELEASE_CLAIM_SQL gives back to a row its admit left queued.
 */
type Claimed = OutboxRow & { expiresAt: number | null; kind: "campaign" | "single" | "compliance"; mms: number; dueAt?: number; leasedUntil?: number };

/**
 * Per app, the MMS among the rows claimed and not yet handed to their provider call (a claim reads each row's `mms`,
 * which the triggers of migration 0070 set once an item is its own or linked to it): a call reads its message's items
 * only for these. Reading them for every text was one more query, awaited, per message on the engine's hot path.
 */
const claimedMms = new WeakMap<AppContext, Set<string>>();
const claimedMmsOf = (ctx: AppContext) => {
  let ids = claimedMms.get(ctx);
  if (!ids) claimedMms.set(ctx, (ids = new Set()));
  return ids;
};
type SendingSettings = { timezone: string; quietHoursEnabled: number; quietHoursStart: string; quietHoursEnd: string; frequencyCapPerDay: number | null };

/**
 * The store's statements, the same text on both engines (run on ctx.records: each compiled once per text on SQLite).
 * A disabled account's rows are never claimed, whenever they were written: the owner is checked in the claim itself,
 * and its lanes find nothing due (they stay queued until an administrator enables the account).
 */
const SQL = {
  claim: `SELECT id, user_id AS "userId", campaign_id AS "campaignId", phone, content, segments, attempts, expires_at AS "expiresAt", kind, mms FROM messages
    WHERE phone_number_id = ? AND status = 'queued' AND next_attempt_at <= ?
      AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = messages.user_id AND u.disabled = 1)
    ORDER BY next_attempt_at LIMIT ?`,
  nextDue: `SELECT min(next_attempt_at) AS at FROM messages WHERE phone_number_id = ? AND status = 'queued'
    AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = messages.user_id AND u.disabled = 1)`,
  lanes: `SELECT p.id FROM phone_numbers p JOIN users u ON u.id = p.user_id AND u.disabled = 0 WHERE EXISTS
    (SELECT 1 FROM messages m WHERE m.phone_number_id = p.id AND m.status = 'queued' AND m.next_attempt_at < ?)`,
  recentToPhone: `SELECT count(*) AS n FROM messages WHERE user_id = ? AND phone = ? AND kind = 'campaign' AND direction = 'outbound'
    AND status IN ('sending','sent','delivered','unknown') AND created_at >= ? AND campaign_id IS DISTINCT FROM ?`,
  // The account's marketing texts to a person that went (or are going) since an instant: a state's cap counts them.
  sentToPhone: `SELECT coalesce(sent_at, updated_at) AS at FROM messages WHERE user_id = ? AND phone = ? AND kind = 'campaign' AND direction = 'outbound'
    AND status IN ('sending','sent','delivered','unknown') AND coalesce(sent_at, updated_at) > ?`,
  markSending: `UPDATE messages SET status = 'sending', attempts = attempts + 1, hold_reason = NULL, updated_at = ? WHERE id = ? AND status = 'queued'`,
  hold: `UPDATE messages SET next_attempt_at = ?, hold_reason = ?, updated_at = ? WHERE id = ?`,
  finish: `UPDATE messages SET status = ?, error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`,
  defer: `UPDATE messages SET next_attempt_at = ?, updated_at = ? WHERE id = ?`,
  sent: `UPDATE messages SET status = ?, provider_message_id = ?, segments = coalesce(?, segments), segment_price_micros = ?, sent_at = ?,
    updated_at = ?, error_code = NULL, error_message = NULL WHERE id = ?`,
  retry: `UPDATE messages SET status = 'queued', attempts = attempts - ?, next_attempt_at = ?, error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`,
  // The account's sending settings, read afresh for each batch: quiet hours turned off let held messages go at once
  // (src/campaigns/held.ts), and a copy kept a while would hold them again until morning.
  settings: `SELECT timezone, quiet_hours_enabled AS "quietHoursEnabled", quiet_hours_start AS "quietHoursStart", quiet_hours_end AS "quietHoursEnd",
    frequency_cap_per_day AS "frequencyCapPerDay" FROM users WHERE id = ?`,
  orphans: `UPDATE messages SET status = 'failed', error_code = 'no_sender', error_message = 'The sender number was removed before this message was sent', updated_at = ?
    WHERE status = 'queued' AND direction = 'outbound' AND phone_number_id IS NULL`,
  // Accepted calls found through the event log's recent tail (the messages table has no index on sent_at), and calls
  // cut off mid-way through the outbox index, per sender number. sent_at is when the provider answered, a little
  // after the call started: counted later than it was, the call holds the pace a little longer, never less. The ids
  // are a JSON array, read as each engine reads one.
  accepted: {
    sqlite: `SELECT id, phone_number_id AS "laneId", sent_at AS at, segments FROM messages
      WHERE id IN (SELECT value FROM json_each(?)) AND sent_at >= ? AND phone_number_id IS NOT NULL`,
    postgres: `SELECT id, phone_number_id AS "laneId", sent_at AS at, segments FROM messages
      WHERE id IN (SELECT jsonb_array_elements_text(CAST(? AS text)::jsonb)) AND sent_at >= ? AND phone_number_id IS NOT NULL`,
  },
  cutOff: `SELECT id, phone_number_id AS "laneId", updated_at AS at, segments FROM messages
    WHERE phone_number_id IN (SELECT id FROM phone_numbers) AND status = 'sending' AND updated_at >= ?`,
};

/**
 * The outbox store the sending engine runs on (src/sending/ports.ts), with the messages table's SQL prepared once.
 * Every write of the engine's goes through here, in one transaction per batch, with its events.
 */
export function outboxStore(ctx: AppContext): OutboxStore {
  // The contact's consent, read at the moment of sending: the contacts record's statement, prepared on first use.
  let optedOutReady: ReturnType<typeof optedOutReader> | undefined;
  const mmsClaimed = claimedMmsOf(ctx);
  // The engine's hot path: on SQLite each statement is prepared once per connection (server.ts builds a store per
  // connection, again after a restore) and run at once, after ready or in the store's transaction; through
  // ctx.records.$run a marking UPDATE took about twice a prepared one's time (20,000 in a row at load 18: 29-38 µs
  // against 15-18). On PostgreSQL they go through ctx.records.
  const sqlite = ctx.records.$engine === "sqlite" ? ctx.db.$client : null;
  const prepared = new Map<string, Statement>();
  const statement = (text: string) => {
    let st = prepared.get(text);
    if (!st) prepared.set(text, (st = sqlite!.prepare(text)));
    return st;
  };
  const query = async <T>(text: string, params: unknown[]): Promise<T[]> =>
    sqlite ? (statement(text).all(...(params as never[])) as T[]) : ctx.records.$rows<T>(text, params);
  const run = async (text: string, params: unknown[]): Promise<number> =>
    sqlite ? statement(text).run(...(params as never[])).changes : (await ctx.records.$run(text, params)).changes;
  return {
    async recentCalls(since) {
      const ids = await messageIdsSince(ctx, since, ["message.sent", "message.delivered", "message.failed"]);
      await ready(ctx.db);
      const seen = new Set<string>();
      const calls: { laneId: string; at: number; segments: number }[] = [];
      type Call = { id: string; laneId: string; at: number; segments: number };
      // Both asked before either is awaited: on SQLite they run now, one after the other, right after ready.
      const reads = [query<Call>(SQL.accepted[ctx.records.$engine], [JSON.stringify(ids), since]), query<Call>(SQL.cutOff, [since])];
      for (const r of (await Promise.all(reads)).flat()) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        calls.push({ laneId: r.laneId, at: r.at, segments: r.segments });
      }
      return calls;
    },

    recover(now) {
      return markInterrupted(ctx, now);
    },

    async dueLanes(now) {
      await ready(ctx.db);
      // Both asked before either is awaited, as in recentCalls (the lanes read never sees the orphans: no number).
      const [, lanes] = await Promise.all([run(SQL.orphans, [now]), query<{ id: string }>(SQL.lanes, [now])]);
      return lanes.map((r) => r.id);
    },

    async claim(laneId, now, limit) {
      await ready(ctx.db);
      // On PostgreSQL the claim leases its rows from the other processes (CLAIM_SQL_POSTGRES); SQLite's one process
      // claims by reading.
      const claimed =
        ctx.records.$engine === "postgres"
          ? await query<Claimed>(CLAIM_SQL_POSTGRES, [now + CLAIM_LEASE_MS, laneId, now, limit])
          : await query<Claimed>(SQL.claim, [laneId, now, limit]);
      if (ctx.records.$engine === "postgres") {
        // RETURNING lists the rows in any order: the engine sends them in the order they fell due.
        claimed.sort((a, b) => a.dueAt! - b.dueAt!);
        for (const row of claimed) row.leasedUntil = now + CLAIM_LEASE_MS;
      }
      for (const row of claimed) if (row.mms) mmsClaimed.add(row.id);
      return claimed;
    },

    async nextDue(laneId) {
      await ready(ctx.db);
      const at = (await query<{ at: number | null }>(SQL.nextDue, [laneId]))[0]!.at;
      return at === null || at >= PARKED ? null : at;
    },

    async admit(claimed, now, pace) {
      // One transaction whose callback awaits records only: the checks read and the rows marked sending commit together,
      // before any call; exactly once rests on the mark's conditional update (status = 'queued').
      const result = await withTransaction(ctx.db, () => admitNow(claimed as Claimed[], now, pace));
      // The MMS left unsent are claimed again (and noted again) when they next come due.
      if (mmsClaimed.size) {
        const admitted = new Set(result.admitted.map((row) => row.id));
        for (const row of claimed) if (!admitted.has(row.id)) mmsClaimed.delete(row.id);
      }
      return result;
    },

    async record(outcomes, pauses, now) {
      const { optOuts, settle } = await withTransaction(ctx.db, () => recordNow(outcomes, pauses, now));
      // After the commit, in this caller's own turn on the connection (another caller's transaction may have begun).
      // Reports that came before these ids were recorded, held for them by this process or another, taken in one
      // statement once the ids are committed: one held after this look finds the message itself (applyStatusEvents).
      const early = await takeEarlyReports(ctx, outcomes.flatMap((o) => (o.kind === "accepted" ? [{ providerId: o.accountId, providerMessageId: o.providerMessageId }] : [])));
      await ready(ctx.db);
      for (const row of optOuts) await optOutContact(ctx, row.userId, row.phone, "provider", "The SMS provider refused the message: the recipient had opted out there");
      for (const [accountId, events] of early) {
        const account = await findProviderById(ctx, accountId);
        if (account) await applyStatusEvents(ctx, account, events);
      }
      if (settle.size) {
        await ready(ctx.db);
        await ctx.campaignOutbox.settle(settle);
      }
    },
  };

  async function admitNow(rows: Claimed[], now: number, pace: AdmitPace): Promise<{ admitted: OutboxRow[]; nextSlotAt: number | null }> {
      const optedOut = await (optedOutReady ??= optedOutReader(ctx));
      const states = await ctx.campaignOutbox.states([...new Set(rows.flatMap((r) => (r.campaignId ? [r.campaignId] : [])))]);
      const accounts = new Map<string, SendingSettings | null>();
      const settingsOf = async (userId: string) => {
        if (!accounts.has(userId)) accounts.set(userId, (await query<SendingSettings>(SQL.settings, [userId]))[0] ?? null);
        return accounts.get(userId)!;
      };
      // The recipient's state: the contact's own `state` field when the account filled it in, else the area code's.
      // Read for the whole batch before the checks, in this transaction, so no row awaits its own look-up.
      const campaignRows = rows.filter((r) => r.kind === "campaign");
      const stateFields = campaignRows.length ? await contactStateFields(ctx, campaignRows) : new Map<string, string>();
      const rules: Map<string, StateRule> = campaignRows.length ? await stateRulesInForce(ctx) : new Map();
      const stateRuleOf = (row: Claimed) => {
        const state = stateFromField(stateFields.get(personKey(row.userId, row.phone)) ?? null) ?? stateOfNumber(row.phone);
        return state ? (rules.get(state) ?? null) : null;
      };
      const go: OutboxRow[] = [];
      const touched = new Set<string>();
      // The shared schedules (the number's, its account's), reserved once, when the first row passes its checks;
      // `used`: segments marked.
      const shared = pace.shared;
      const schedules: Schedule[] = [];
      if (shared?.interval) schedules.push({ of: { number: shared.laneId }, interval: shared.interval });
      if (shared?.account) schedules.push({ of: { account: shared.account.id }, interval: shared.account.interval });
      let grant: BatchGrant | null = null;
      let used = 0;
      {
        /** Where the pace stopped the batch: the rows from here on are left queued, as they were. */
        let left = rows.length;
        for (const [i, row] of rows.entries()) {
          if (row.campaignId) {
            const status = states.get(row.campaignId)?.status;
            if (status === "paused" || status === "scheduled" || status === "draft") {
              await run(SQL.defer, [PARKED, now, row.id]);
              continue;
            }
            if (status === "cancelled") {
              await run(SQL.finish, ["cancelled", null, "The campaign was cancelled", now, row.id]);
              continue;
            }
          }
          if (row.expiresAt !== null && row.expiresAt <= now) {
            await run(SQL.finish, ["expired", "expired", "Not sent: the message expired before it could go out", now, row.id]);
            if (row.campaignId) touched.add(row.campaignId);
            continue;
          }
          if (row.kind !== "compliance" && optedOut(row.userId, row.phone)) {
            await run(SQL.finish, ["skipped", "opted_out", "Not sent: the contact has opted out", now, row.id]);
            if (row.campaignId) touched.add(row.campaignId);
            continue;
          }
          // A crash cut off an earlier message to this person: it goes first (reconcile.ts), this one looks again soon.
          if (await waitsForEarlier(ctx, row)) {
            await run(SQL.defer, [now + ORDER_WAIT_MS, now, row.id]);
            continue;
          }
          if (row.kind === "campaign") {
            const user = await settingsOf(row.userId);
            // The user chose to send this campaign's held messages at once, warned of the rules they may break: their
            // own quiet hours hold it no more, a state's law still does (only an administrator changes that table).
            const anyHour = !!row.campaignId && states.get(row.campaignId)?.anyHour === true;
            const quiet =
              user?.quietHoursEnabled && !anyHour
                ? { enabled: true, start: user.quietHoursStart as `${number}:${number}`, end: user.quietHoursEnd as `${number}:${number}` }
                : null;
            const rule = stateRuleOf(row);
            const sentAt = rule?.capPer24h ? (await query<{ at: number }>(SQL.sentToPhone, [row.userId, row.phone, now - DAY_MS])).map((r) => r.at) : [];
            const hold = holdFor(now, zoneForRecipient(row.phone, user?.timezone ?? "UTC"), quiet, rule, sentAt);
            if (hold) {
              await run(SQL.hold, [hold.until, hold.reason, now, row.id]);
              continue;
            }
            if (user?.frequencyCapPerDay) {
              const sent = (await query<{ n: number }>(SQL.recentToPhone, [row.userId, row.phone, now - 24 * 3600_000, row.campaignId]))[0]!.n;
              if (sent >= user.frequencyCapPerDay) {
                await run(SQL.finish, ["skipped", "frequency_cap", `Not sent: the contact already got ${sent} campaign message(s) in the last 24 hours`, now, row.id]);
                if (row.campaignId) touched.add(row.campaignId);
                continue;
              }
            }
          }
          if (!pace.fits(row)) {
            left = i;
            break;
          }
          if (shared && schedules.length) {
            grant ??= await reserveSchedules(ctx, schedules, now, Math.min(shared.want, segmentsFrom(rows, i)), shared.catchUpMs);
            // A text goes on its first slot come; the slots before it went to the texts before it.
            if (used >= grant.granted) {
              left = i;
              break;
            }
          }
          if ((await run(SQL.markSending, [now, row.id])) !== 1) continue;
          used += row.segments;
          pace.take(row);
          go.push(row);
        }
        // On PostgreSQL their claim leased them: they get their time back, due again for any process.
        for (const row of rows.slice(left)) if (row.leasedUntil !== undefined) await run(RELEASE_CLAIM_SQL, [row.dueAt, row.id, row.leasedUntil]);
        if (touched.size) await ctx.campaignOutbox.settle(touched);
      }
      return { admitted: go, nextSlotAt: grant ? await settleSchedules(ctx, grant, used) : null };
  }

  async function recordNow(outcomes: Outcome[], pauses: { campaignId: string; reason: string }[], now: number) {
      const settle = new Set<string>();
      const optOuts: OutboxRow[] = [];
      const reached: Record<"sent" | "delivered" | "failed" | "unknown", StatusEventRow[]> = { sent: [], delivered: [], failed: [], unknown: [] };
      {
        // Each accepted message keeps the price its account charges now: a later price change leaves its spend be.
        const accepted = [...new Set(outcomes.flatMap((o) => (o.kind === "accepted" ? [o.accountId] : [])))];
        const prices = await pricesNow(ctx, accepted);
        // An MMS is one message at the provider's price per MMS (shared/providers/mms.ts), whatever segments it reports.
        const mms = await mediaOfMessages(ctx, outcomes.flatMap((o) => (o.kind === "accepted" ? [o.row.id] : [])));
        const mmsPrices = mms.size ? await mmsPricesNow(ctx, accepted) : new Map<string, number>();
        for (const o of outcomes) {
          const row = o.row;
          if (row.campaignId) settle.add(row.campaignId);
          switch (o.kind) {
            case "accepted": {
              if (mms.has(row.id)) await run(SQL.sent, [o.status, o.providerMessageId, 1, mmsPrices.get(o.accountId) ?? null, now, now, row.id]);
              else await run(SQL.sent, [o.status, o.providerMessageId, o.segments, prices.get(o.accountId) ?? null, now, now, row.id]);
              reached[o.status].push(row);
              break;
            }
            case "retry":
              await run(SQL.retry, [o.refund ? 1 : 0, o.at, o.code, o.message, now, row.id]);
              break;
            case "unknown":
              await run(SQL.finish, ["unknown", o.code, o.message, now, row.id]);
              reached.unknown.push(row);
              break;
            case "failed":
              await run(SQL.finish, ["failed", o.code, o.message, now, row.id]);
              reached.failed.push(row);
              if (o.optedOut) optOuts.push(row);
              break;
          }
        }
        for (const status of ["sent", "delivered", "failed", "unknown"] as const) {
          if (reached[status].length) await appendStatusEvents(ctx, `message.${status}`, reached[status]);
        }
        for (const p of pauses) await ctx.campaignOutbox.pause(p.campaignId, p.reason);
      }
      return { optOuts, settle };
  }
}

/** The segments of the rows from the `from`th on: the most a batch may use of its number's schedule. */
function segmentsFrom(rows: OutboxRow[], from: number): number {
  let n = 0;
  for (let i = from; i < rows.length; i++) n += rows[i]!.segments;
  return n;
}

/** The signed URLs of a message's stored items, in order (nothing for a text). */
async function mediaUrlsOf(ctx: AppContext, messageId: string): Promise<{ mediaUrls?: string[] }> {
  const items = ((await mediaOfMessages(ctx, [messageId])).get(messageId) ?? []).filter((m) => m.status === "stored");
  return items.length ? { mediaUrls: items.map((m) => signedMediaUrl(ctx, m.id)) } : {};
}

/** Provider-wide ceilings when the account sets none (segments per second): Telnyx's documented account default. */
const PROVIDER_CEILING: Partial<Record<ProviderAccount["provider"], number>> = { telnyx: 50 };

/** The sender numbers and provider accounts, as the sending engine sees them. */
export function senderRegistry(ctx: AppContext): ProviderRegistry {
  return {
    async number(id): Promise<SenderNumber | null> {
      const number = await numberById(ctx, id);
      if (!number) return null;
      const account = await findProviderById(ctx, number.providerId);
      return {
        fromNumber: number.phoneNumber,
        messagesPerSecond: number.messagesPerSecond,
        account: account
          ? {
              id: account.id,
              active: account.isActive,
              messagesPerSecond: account.messagesPerSecond ?? PROVIDER_CEILING[account.provider] ?? 0,
              ready() {
                const adapter = readyAdapter(ctx, account);
                if (!adapter) return null;
                const statusCallbackUrl = webhookUrl(ctx, account);
                // An MMS: its items as signed URLs made at the moment of the call, so they are fresh when fetched.
                const mms = claimedMmsOf(ctx);
                return {
                  send: async (m) =>
                    adapter.send({ ...m, statusCallbackUrl, ...(mms.delete(m.reference) ? await mediaUrlsOf(ctx, m.reference) : {}) }),
                };
              },
              load: () => adapterFor(ctx, account),
            }
          : null,
      };
    },
  };
}
