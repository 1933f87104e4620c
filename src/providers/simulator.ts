import { createHash, randomBytes } from "node:crypto";
import type { SimulatorSettings } from "../../db/schema";
import type { AppContext } from "../context";
import { WEBHOOK_BODY_LIMIT } from "../http/body-limit";
import {
  MAX_WEBHOOK_EVENTS,
  ProviderError,
  WebhookRejected,
  type ProviderAdapter,
  type SentLookup,
  type SentLookupResult,
  type WebhookEvent,
} from "./types";

/**
 * The built-in simulator provider: accepts messages at any rate and reports their fate later through the same
 * webhook path a real provider uses (POST /api/webhooks/simulator/sms/{userId}?key=...), in batches.
 *
 * Test range (documented in the help and on the Phone Settings page), +1 NPA 555-01XX:
 *   0100-0149 delivered normally;  0150-0179 accepted, then reported failed (30003 unreachable handset);
 *   0180-0189 rejected at send (21211 invalid number);  0190-0199 rejected at send as opted out (21610).
 * Any other number is delivered, except for the configured fractions: failRate (reported failed later),
 * throttleRate (answers 429 with Retry-After 1 s) and errorRate (answers 500).
 */
export const SIMULATOR_TEST_RANGE = /^\+1\d{3}5550(1\d\d)$/;
const TICK_MS = 50;

type SimEvent =
  | { type: "status"; id: string; status: "delivered" | "failed"; errorCode?: string; errorMessage?: string }
  | { type: "inbound"; id: string; from: string; to: string; body: string; media?: string[] };

type Pending = { due: number; event: SimEvent };

/** Messages the simulator remembers accepting, per account, for lookups after a crash (the oldest go first). */
const REMEMBERED_SENDS = 100_000;

/**
 * What the simulator accepted, by our reference, since this process started: it keeps no records across restarts,
 * so it answers for certain only about windows it was recording all through.
 */
class SentRecords {
  private byReference = new Map<string, { id: string; at: number }>();
  /** Sends before this instant may have been accepted without a record here: the process start, then evictions. */
  private blindUntil: number;

  constructor(now: number) {
    this.blindUntil = now;
  }

  add(reference: string, id: string, at: number) {
    this.byReference.set(reference, { id, at });
    if (this.byReference.size <= REMEMBERED_SENDS) return;
    const [oldest, sent] = this.byReference.entries().next().value!;
    this.byReference.delete(oldest);
    this.blindUntil = Math.max(this.blindUntil, sent.at + 1);
  }

  find(lookup: SentLookup): SentLookupResult {
    const hit = this.byReference.get(lookup.reference);
    if (hit) return { kind: "matches", matches: [{ providerMessageId: hit.id, status: "sent" }] };
    if (lookup.after >= this.blindUntil) return { kind: "matches", matches: [] };
    return { kind: "cannot_tell", reason: "The simulator keeps no record of messages from before the server restarted" };
  }
}

/** One queue of reports per account; a timer runs only while some report is waiting. */
class SimulatorHub {
  private queues = new Map<string, { url: string; items: Pending[] }>();
  private sent = new Map<string, SentRecords>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  /** When this process's simulator started recording (an account's records start no earlier). */
  private readonly since: number;

  constructor(private ctx: AppContext) {
    this.since = ctx.now();
    ctx.onStop.push(() => {
      this.stopped = true;
      if (this.timer) clearTimeout(this.timer);
      this.queues.clear();
    });
  }

  /** The sends an account's simulator accepted (the same records whichever adapter version accepted them). */
  records(accountId: string): SentRecords {
    let records = this.sent.get(accountId);
    if (!records) this.sent.set(accountId, (records = new SentRecords(this.since)));
    return records;
  }

  push(accountId: string, url: string, pending: Pending) {
    if (this.stopped) return;
    let q = this.queues.get(accountId);
    if (!q) this.queues.set(accountId, (q = { url, items: [] }));
    q.url = url;
    q.items.push(pending);
    this.schedule();
  }

  private schedule() {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush().finally(() => {
        if ([...this.queues.values()].some((q) => q.items.length)) this.schedule();
      });
    }, TICK_MS);
  }

  private async flush() {
    const now = this.ctx.now();
    for (const q of this.queues.values()) {
      let due = 0;
      while (due < q.items.length && q.items[due]!.due <= now) due++;
      if (!due) continue;
      const batch = q.items.splice(0, due).map((p) => p.event);
      for (const body of webhookBodies(batch)) {
        if (this.stopped) break;
        try {
          const res = await this.ctx.dispatch(new Request(q.url, { method: "POST", headers: { "content-type": "application/json" }, body }));
          if (!res.ok) this.ctx.log(`simulator: webhook answered ${res.status}`);
        } catch (err) {
          if (!this.stopped) this.ctx.log(`simulator: webhook failed: ${(err as Error).message}`);
        }
      }
    }
  }
}

/** The reports as webhook bodies within the route's limits: MAX_WEBHOOK_EVENTS events and WEBHOOK_BODY_LIMIT bytes each. */
function* webhookBodies(events: SimEvent[]): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  const body = () => `{"events":[${parts.join(",")}]}`;
  for (const event of events) {
    const part = JSON.stringify(event);
    const bytes = Buffer.byteLength(part) + 1;
    if (parts.length && (parts.length === MAX_WEBHOOK_EVENTS || size + bytes > WEBHOOK_BODY_LIMIT - 64)) {
      yield body();
      parts = [];
      size = 0;
    }
    parts.push(part);
    size += bytes;
  }
  if (parts.length) yield body();
}

const hubs = new WeakMap<AppContext, SimulatorHub>();
const hubFor = (ctx: AppContext) => {
  let hub = hubs.get(ctx);
  if (!hub) hubs.set(ctx, (hub = new SimulatorHub(ctx)));
  return hub;
};

/** Three stable numbers per simulator account, so the same account always offers the same senders. */
export function simulatorNumbers(accountId: string): string[] {
  const digest = createHash("sha256").update(accountId).digest();
  return [0, 1, 2].map((i) => `+1202555${String(2000 + ((digest.readUInt16BE(i * 2) + i) % 8000)).padStart(4, "0")}`);
}

export type SimulatorAccount = { id: string; webhookUrl: string; settings: SimulatorSettings };

export function createSimulatorAdapter(ctx: AppContext, account: SimulatorAccount): ProviderAdapter & {
  simulateInbound(from: string, to: string, body: string, media?: string[]): void;
} {
  const hub = hubFor(ctx);
  const s = account.settings;
  const report = (event: SimEvent, delayMs: number) => hub.push(account.id, account.webhookUrl, { due: ctx.now() + delayMs, event });

  return {
    kind: "simulator",
    webhookAuth: "url-secret",

    async send(message) {
      const roll = Math.random();
      if (roll < s.throttleRate) throw new ProviderError("rate_limited", "429", "Simulated rate limit: too many requests", 429, 1000);
      if (roll < s.throttleRate + s.errorRate) throw new ProviderError("transient", "500", "Simulated provider error", 500);
      const test = SIMULATOR_TEST_RANGE.exec(message.to);
      const line = test ? Number(test[1]) : -1;
      if (line >= 180 && line <= 189) throw new ProviderError("permanent", "21211", `The 'To' number ${message.to} is not a valid phone number.`, 400);
      if (line >= 190) throw new ProviderError("opted_out", "21610", "Attempt to send to unsubscribed recipient", 400);
      const id = `SIM${randomBytes(12).toString("hex")}`;
      hub.records(account.id).add(message.reference, id, ctx.now());
      const fails = (line >= 150 && line <= 179) || (line < 0 && Math.random() < s.failRate);
      report(
        fails
          ? { type: "status", id, status: "failed", errorCode: "30003", errorMessage: "Unreachable destination handset" }
          : { type: "status", id, status: "delivered" },
        s.deliveryDelayMs,
      );
      return { providerMessageId: id, status: "sent" };
    },

    async findSent(lookup) {
      return hub.records(account.id).find(lookup);
    },

    async listNumbers() {
      return simulatorNumbers(account.id).map((phoneNumber, i) => ({
        phoneNumber,
        displayName: `Simulator line ${i + 1}`,
        capabilities: ["sms"],
      }));
    },

    async testConnection() {
      return "Simulator ready: messages are simulated and never reach real phones";
    },

    parseWebhook(request) {
      let parsed: { events?: SimEvent[] };
      try {
        parsed = JSON.parse(request.rawBody) as { events?: SimEvent[] };
      } catch {
        throw new WebhookRejected("not JSON");
      }
      if (!Array.isArray(parsed.events)) throw new WebhookRejected("no events");
      const events: WebhookEvent[] = [];
      for (const e of parsed.events) {
        if (e?.type === "status" && typeof e.id === "string") {
          events.push({ type: "status", providerMessageId: e.id, status: e.status === "failed" ? "failed" : "delivered", errorCode: e.errorCode ?? null, errorMessage: e.errorMessage ?? null });
        } else if (e?.type === "inbound" && typeof e.id === "string" && typeof e.from === "string" && typeof e.body === "string") {
          // An MMS: the URLs its items are fetched from (for a simulated reply, signed URLs of the account's uploads).
          const media = Array.isArray(e.media) ? e.media.filter((u): u is string => typeof u === "string").slice(0, 10) : [];
          events.push({ type: "inbound", providerMessageId: e.id, from: e.from, to: String(e.to ?? ""), body: e.body, ...(media.length ? { media } : {}) });
        }
      }
      return { events };
    },

    simulateInbound(from, to, body, media = []) {
      report({ type: "inbound", id: `SIM${randomBytes(12).toString("hex")}`, from, to, body, ...(media.length ? { media } : {}) }, 0);
    },
  };
}
