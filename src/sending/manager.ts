import type { Statement } from "bun:sqlite";
import { optOutContact } from "../contacts/contacts";
import { campaignStatuses, PARKED, pauseCampaign, repairInterruptedCampaigns, settleCampaign } from "../campaigns/lifecycle";
import type { AppContext } from "../context";
import { applyStatusEvents, takeEarlyReport } from "../messages/messages";
import { numberById } from "../phone-numbers/numbers";
import { findProviderById, webhookUrl, type ProviderAccount } from "../providers/accounts";
import { adapterFor, readyAdapter } from "../providers/registry";
import { ProviderError, type ProviderAdapter, type SendResult } from "../providers/types";
import { findUserById } from "../users/queries";
import { SlidingWindow } from "./pace";
import { quietUntil, zoneForRecipient } from "./quiet-hours";

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
};

export const DEFAULT_MANAGER_OPTIONS: ManagerOptions = {
  idleMs: 250,
  maxBatch: 1000,
  maxInFlight: 200,
  maxAttempts: 6,
  backoffBaseMs: 2000,
  backoffCapMs: 5 * 60_000,
  pauseAfterFailures: 10,
};

/** Provider-wide ceilings when the account sets none (segments per second): Telnyx's documented account default. */
const PROVIDER_CEILING: Partial<Record<ProviderAccount["provider"], number>> = { telnyx: 50 };

type Claimed = {
  id: string;
  user_id: string;
  campaign_id: string | null;
  contact_id: string | null;
  phone: string;
  content: string;
  segments: number;
  attempts: number;
  expires_at: number | null;
  kind: "campaign" | "single" | "compliance";
};

type Outcome = { row: Claimed; lane: Lane; result?: SendResult; error?: unknown };
type Admitted = Claimed & { laneSlot: number; accountSlot: number };

/** One sender number: its own pace, its own 429 back-off. */
type Lane = {
  id: string;
  providerId: string;
  fromNumber: string;
  window: SlidingWindow;
  inFlight: number;
  /** Nothing to claim before this instant (drained, deferred or told to wait by a 429). */
  idleUntil: number;
  /** Effective share of the configured rate; halves on a 429 and recovers as sends succeed. */
  slowdown: number;
  configuredRate: number;
  refreshedAt: number;
  account: ProviderAccount | undefined;
};

const CONFIG_REFRESH_MS = 2000;

/**
 * The sending engine: workers pull due rows from the outbox (the messages table) per sender number, at that
 * number's pace and its provider account's ceiling, mark them 'sending' in a committed transaction, call the
 * provider, and record every outcome in batches. Compliance is checked at the moment of sending: opted-out
 * recipients are skipped, expired messages are not sent stale, marketing waits out quiet hours.
 */
export class SendingManager {
  private lanes = new Map<string, Lane>();
  private accounts = new Map<string, SlidingWindow>();
  private outcomes: Outcome[] = [];
  private inFlight = 0;
  private running = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private passing = false;
  private again = false;
  private failures = new Map<string, number>();
  /** Account settings (quiet hours, frequency cap) read at most every CONFIG_REFRESH_MS per user. */
  private users = new Map<string, { at: number; user: ReturnType<typeof findUserById> }>();
  private st: Record<string, Statement>;

  constructor(
    private ctx: AppContext,
    readonly options: ManagerOptions = { ...DEFAULT_MANAGER_OPTIONS },
  ) {
    const db = ctx.db.$client;
    this.st = {
      // A disabled account's rows are never claimed, whenever they were written: the owner is checked in the claim
      // itself, and its lanes find nothing due (they stay queued until an administrator enables the account).
      claim: db.prepare(
        `SELECT id, user_id, campaign_id, contact_id, phone, content, segments, attempts, expires_at, kind FROM messages
         WHERE phone_number_id = ? AND status = 'queued' AND next_attempt_at <= ?
           AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = messages.user_id AND u.disabled = 1)
         ORDER BY next_attempt_at LIMIT ?`,
      ),
      nextDue: db.prepare(
        `SELECT min(next_attempt_at) AS at FROM messages WHERE phone_number_id = ? AND status = 'queued'
           AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = messages.user_id AND u.disabled = 1)`,
      ),
      lanes: db.prepare(
        `SELECT p.id FROM phone_numbers p JOIN users u ON u.id = p.user_id AND u.disabled = 0 WHERE EXISTS
           (SELECT 1 FROM messages m WHERE m.phone_number_id = p.id AND m.status = 'queued' AND m.next_attempt_at < ?)`,
      ),
      optedOut: db.prepare(`SELECT 1 FROM contacts WHERE user_id = ? AND phone = ? AND status = 'opted_out'`),
      recentToPhone: db.prepare(
        `SELECT count(*) AS n FROM messages WHERE user_id = ? AND phone = ? AND kind = 'campaign' AND direction = 'outbound'
           AND status IN ('sending','sent','delivered','unknown') AND created_at >= ? AND campaign_id IS NOT ?`,
      ),
      markSending: db.prepare(`UPDATE messages SET status = 'sending', attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'queued'`),
      finish: db.prepare(`UPDATE messages SET status = ?, error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`),
      defer: db.prepare(`UPDATE messages SET next_attempt_at = ?, updated_at = ? WHERE id = ?`),
      sent: db.prepare(
        `UPDATE messages SET status = ?, provider_message_id = ?, segments = coalesce(?, segments), sent_at = ?, updated_at = ?,
           error_code = NULL, error_message = NULL WHERE id = ?`,
      ),
      retry: db.prepare(
        `UPDATE messages SET status = 'queued', attempts = attempts - ?, next_attempt_at = ?, error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`,
      ),
      orphans: db.prepare(
        `UPDATE messages SET status = 'failed', error_code = 'no_sender', error_message = 'The sender number was removed before this message was sent', updated_at = ?
         WHERE status = 'queued' AND direction = 'outbound' AND phone_number_id IS NULL`,
      ),
    };
  }

  /** After a crash or restart: a row left 'sending' may or may not have reached the provider; it is never sent again. */
  recover(): number {
    const res = this.ctx.db.$client
      .prepare(
        `UPDATE messages SET status = 'unknown', error_code = 'interrupted',
           error_message = 'The server stopped while this message was being handed to the provider; it was not sent again, to avoid a duplicate.',
           updated_at = ? WHERE status = 'sending'`,
      )
      .run(this.ctx.now());
    return res.changes;
  }

  start() {
    if (this.running) return;
    const recovered = this.recover();
    if (recovered) this.ctx.log(`sending: ${recovered} message(s) in flight at the last stop are marked unknown (never resent)`);
    const repaired = repairInterruptedCampaigns(this.ctx);
    if (repaired) this.ctx.log(`sending: ${repaired} campaign(s) left half-written by an earlier crash were repaired`);
    this.running = true;
    this.ctx.onStop.push(() => this.stop());
    this.wake();
  }

  async stop() {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    const deadline = Date.now() + 5000;
    while ((this.inFlight > 0 || this.passing) && Date.now() < deadline) await Bun.sleep(10);
    this.flushOutcomes();
  }

  /** Something was queued (or a campaign resumed): look now rather than at the next idle pass. */
  wake(laneId?: string) {
    const lane = laneId ? this.lanes.get(laneId) : undefined;
    if (lane) lane.idleUntil = 0;
    else {
      for (const lane of this.lanes.values()) lane.idleUntil = 0;
      this.lanesCheckedAt = 0;
    }
    this.schedule(0);
  }

  private schedule(delay: number) {
    if (!this.running) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    if (this.timer) {
      if (delay > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pass();
    }, delay);
  }

  private lanesCheckedAt = 0;

  private pass() {
    if (!this.running) return;
    this.passing = true;
    this.again = false;
    let sleep = this.options.idleMs;
    try {
      const now = this.ctx.now();
      this.flushOutcomes();
      if (Math.abs(now - this.lanesCheckedAt) >= this.options.idleMs) {
        this.lanesCheckedAt = now;
        this.st.orphans!.run(now);
        for (const { id } of this.st.lanes!.all(now + 1) as { id: string }[]) if (!this.lanes.has(id)) this.addLane(id);
      }
      let busy = false;
      for (const lane of [...this.lanes.values()]) {
        const next = this.runLane(lane, now);
        if (next <= now) busy = true;
        else sleep = Math.min(sleep, next - now);
      }
      if (busy) sleep = 0;
    } catch (err) {
      this.ctx.log(`sending: pass failed: ${(err as Error)?.stack ?? err}`);
      sleep = this.options.idleMs;
    } finally {
      this.passing = false;
    }
    this.schedule(this.again ? 0 : Math.max(1, Math.round(sleep)));
  }

  private addLane(id: string): Lane | null {
    const number = numberById(this.ctx, id);
    if (!number) return null;
    const lane: Lane = {
      id,
      providerId: number.providerId,
      fromNumber: number.phoneNumber,
      window: new SlidingWindow(number.messagesPerSecond),
      inFlight: 0,
      idleUntil: 0,
      slowdown: 1,
      configuredRate: number.messagesPerSecond,
      refreshedAt: this.ctx.now(),
      account: findProviderById(this.ctx, number.providerId),
    };
    this.lanes.set(id, lane);
    return lane;
  }

  private accountWindow(account: ProviderAccount): SlidingWindow {
    const limit = account.messagesPerSecond ?? PROVIDER_CEILING[account.provider] ?? 0;
    let w = this.accounts.get(account.id);
    if (!w) this.accounts.set(account.id, (w = new SlidingWindow(limit)));
    w.limit = limit;
    return w;
  }

  /** Claims and dispatches what this lane may send now; answers when it next needs a look. */
  private runLane(lane: Lane, now: number): number {
    if (lane.idleUntil > now) return lane.idleUntil;
    if (now - lane.refreshedAt > CONFIG_REFRESH_MS) {
      const number = numberById(this.ctx, lane.id);
      if (!number) {
        this.lanes.delete(lane.id);
        return now + this.options.idleMs;
      }
      lane.configuredRate = number.messagesPerSecond;
      lane.fromNumber = number.phoneNumber;
      lane.account = findProviderById(this.ctx, number.providerId);
      lane.refreshedAt = now;
      lane.slowdown = Math.min(1, lane.slowdown * 1.25);
    }
    lane.window.limit = lane.configuredRate > 0 ? Math.max(lane.configuredRate * lane.slowdown, Math.min(1, lane.configuredRate)) : 0;
    const account = lane.account;
    if (!account || !account.isActive) return (lane.idleUntil = now + this.options.idleMs);
    // The pace is counted when a row is claimed, so the call must start then, not after a module load.
    const adapter = readyAdapter(this.ctx, account);
    if (!adapter) {
      adapterFor(this.ctx, account).then(
        () => this.wake(lane.id),
        (err) => this.ctx.log(`sending: provider ${account.id} unavailable: ${(err as Error)?.message ?? err}`),
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
    const rows = this.st.claim!.all(lane.id, now, limit) as Claimed[];
    if (!rows.length) {
      const next = (this.st.nextDue!.get(lane.id) as { at: number | null }).at;
      lane.idleUntil = next === null || next >= PARKED ? now + 60_000 : Math.max(next, now + 1);
      return lane.idleUntil;
    }

    const toSend = this.screen(rows, lane, accountWindow, now);
    for (const row of toSend) void this.dispatch(adapter, account, lane, accountWindow, row);
    return rows.length === limit || toSend.length ? now : now + 1;
  }

  /**
   * The checks at the moment of sending, then the mark: rows that may go are set 'sending' in one committed
   * transaction before any provider call, within the lane's and the account's pace.
   */
  private screen(rows: Claimed[], lane: Lane, accountWindow: SlidingWindow, now: number): Admitted[] {
    const st = this.st;
    const statuses = campaignStatuses(this.ctx, [...new Set(rows.map((r) => r.campaign_id).filter((c): c is string => !!c))]);
    const userOf = (id: string) => {
      const hit = this.users.get(id);
      if (hit && now - hit.at < CONFIG_REFRESH_MS) return hit.user;
      const user = findUserById(this.ctx, id);
      this.users.set(id, { at: now, user });
      return user;
    };
    const go: Admitted[] = [];
    const touched = new Set<string>();
    this.ctx.db.$client.transaction(() => {
      for (const row of rows) {
        if (row.campaign_id) {
          const status = statuses.get(row.campaign_id);
          if (status === "paused" || status === "scheduled" || status === "draft") {
            st.defer!.run(PARKED, now, row.id);
            continue;
          }
          if (status === "cancelled") {
            st.finish!.run("cancelled", null, "The campaign was cancelled", now, row.id);
            continue;
          }
        }
        if (row.expires_at !== null && row.expires_at <= now) {
          st.finish!.run("expired", "expired", "Not sent: the message expired before it could go out", now, row.id);
          if (row.campaign_id) touched.add(row.campaign_id);
          continue;
        }
        if (row.kind !== "compliance" && st.optedOut!.get(row.user_id, row.phone)) {
          st.finish!.run("skipped", "opted_out", "Not sent: the contact has opted out", now, row.id);
          if (row.campaign_id) touched.add(row.campaign_id);
          continue;
        }
        if (row.kind === "campaign") {
          const user = userOf(row.user_id);
          if (user?.quietHoursEnabled) {
            const until = quietUntil(now, zoneForRecipient(row.phone, user.timezone), {
              enabled: true,
              start: user.quietHoursStart as `${number}:${number}`,
              end: user.quietHoursEnd as `${number}:${number}`,
            });
            if (until !== null) {
              st.defer!.run(until, now, row.id);
              continue;
            }
          }
          if (user?.frequencyCapPerDay) {
            const sent = (st.recentToPhone!.get(row.user_id, row.phone, now - 24 * 3600_000, row.campaign_id) as { n: number }).n;
            if (sent >= user.frequencyCapPerDay) {
              st.finish!.run("skipped", "frequency_cap", `Not sent: the contact already got ${sent} campaign message(s) in the last 24 hours`, now, row.id);
              if (row.campaign_id) touched.add(row.campaign_id);
              continue;
            }
          }
        }
        if (!lane.window.fits(now, row.segments) || !accountWindow.fits(now, row.segments)) break;
        if (st.markSending!.run(now, row.id).changes !== 1) continue;
        go.push({ ...row, laneSlot: lane.window.record(now, row.segments), accountSlot: accountWindow.record(now, row.segments) });
      }
    })();
    for (const id of touched) settleCampaign(this.ctx, id);
    return go;
  }

  private async dispatch(adapter: ProviderAdapter, account: ProviderAccount, lane: Lane, accountWindow: SlidingWindow, row: Admitted) {
    lane.inFlight++;
    this.inFlight++;
    const startedAt = this.ctx.now();
    lane.window.sentAt(row.laneSlot, startedAt);
    accountWindow.sentAt(row.accountSlot, startedAt);
    let outcome: Outcome;
    try {
      const result = await adapter.send({
        to: row.phone,
        from: lane.fromNumber,
        body: row.content,
        statusCallbackUrl: webhookUrl(this.ctx, account),
        reference: row.id,
      });
      outcome = { row, lane, result };
    } catch (error) {
      outcome = { row, lane, error };
    }
    lane.inFlight--;
    this.inFlight--;
    this.outcomes.push(outcome);
    this.schedule(0);
  }

  /** Records finished calls in one transaction. */
  private flushOutcomes() {
    if (!this.outcomes.length) return;
    const batch = this.outcomes.splice(0);
    const now = this.ctx.now();
    const st = this.st;
    const settle = new Set<string>();
    const optOuts: Claimed[] = [];
    const early = new Map<string, NonNullable<ReturnType<typeof takeEarlyReport>>[]>();
    this.ctx.db.$client.transaction(() => {
      for (const { row, lane, result, error } of batch) {
        if (row.campaign_id) settle.add(row.campaign_id);
        if (result) {
          const status = result.status === "delivered" || result.status === "failed" ? result.status : "sent";
          st.sent!.run(status, result.providerMessageId, result.segments ?? null, now, now, row.id);
          if (row.campaign_id) this.failures.set(row.campaign_id, 0);
          const report = takeEarlyReport(this.ctx, lane.providerId, result.providerMessageId);
          if (report) early.set(lane.providerId, [...(early.get(lane.providerId) ?? []), report]);
          continue;
        }
        const err =
          error instanceof ProviderError ? error : new ProviderError("permanent", "internal", `Sending failed: ${(error as Error)?.message ?? error}`);
        if (err.code === "timeout") {
          st.finish!.run("unknown", "timeout", "The provider did not answer in time; the message may have been sent, so it is not retried", now, row.id);
          continue;
        }
        if (err.kind === "rate_limited") {
          const wait = err.retryAfterMs ?? 1000;
          lane.slowdown = Math.max(0.25, lane.slowdown / 2);
          lane.idleUntil = now + wait;
          st.retry!.run(1, now + wait, err.code, err.message, now, row.id);
          continue;
        }
        if (err.kind === "transient" && row.attempts + 1 < this.options.maxAttempts) {
          const backoff = Math.min(this.options.backoffCapMs, this.options.backoffBaseMs * 2 ** row.attempts);
          const at = now + Math.max(err.retryAfterMs ?? 0, backoff * (0.75 + Math.random() * 0.5));
          st.retry!.run(0, at, err.code, err.message, now, row.id);
          lane.idleUntil = Math.min(lane.idleUntil, at);
          continue;
        }
        st.finish!.run("failed", err.code, err.message, now, row.id);
        if (err.kind === "opted_out") {
          optOuts.push(row);
          continue;
        }
        if (row.campaign_id) {
          const n = (this.failures.get(row.campaign_id) ?? 0) + 1;
          this.failures.set(row.campaign_id, n);
          if (n === this.options.pauseAfterFailures) {
            const reason = `Paused after ${n} failed messages in a row. Last error: ${err.code ? `${err.code} ` : ""}${err.message}. Check SMS provider settings, then resume.`;
            pauseCampaign(this.ctx, row.campaign_id, reason);
            this.failures.set(row.campaign_id, 0);
          }
        }
      }
    })();
    for (const row of optOuts) optOutContact(this.ctx, row.user_id, row.phone, "provider", "The SMS provider refused the message: the recipient had opted out there");
    for (const [accountId, events] of early) {
      const account = findProviderById(this.ctx, accountId);
      if (account) applyStatusEvents(this.ctx, account, events);
    }
    for (const id of settle) settleCampaign(this.ctx, id);
  }
}

const managers = new WeakMap<AppContext, SendingManager>();

/** The running manager of an appliance (started with the server). */
export function sendingManager(ctx: AppContext): SendingManager {
  let m = managers.get(ctx);
  if (!m) managers.set(ctx, (m = new SendingManager(ctx)));
  return m;
}
