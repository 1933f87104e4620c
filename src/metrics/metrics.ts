import { createHash, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context";
import { HttpError, notFound } from "../http/errors";
import { jobMetrics } from "../jobs/metrics";
import { liveHubOf } from "../live/socket";
import { outboxMetrics } from "../messages/metrics";
import { PROCESS } from "../process-identity";
import { instanceId } from "../secrets/instance";
import { VERSION } from "../version";
import { deliveryLatencies } from "../outbound-webhooks/metrics";
import { HOLD_COUNTED_MS, readEventLoopHolds } from "./event-loop";

/**
 * GET /metrics in the Prometheus text format (version 0.0.4), read through the owning domains' queries at each
 * scrape. Only with METRICS_TOKEN set, and only for its bearer: the figures name sender numbers and volumes.
 */

/** The window of the send rate and of the webhook latency summary. */
const RATE_WINDOW_MS = 60_000;
const LATENCY_WINDOW_MS = 3600_000;
const QUANTILES = [0.5, 0.9, 0.99];

function checkToken(ctx: AppContext, authorization: string | undefined) {
  const token = ctx.config.metricsToken;
  // Without a token the endpoint does not exist, as for any unknown path.
  if (!token) throw notFound();
  // Digests of equal length, so the comparison's time says nothing about the token's length either.
  const digest = (s: string) => createHash("sha256").update(s).digest();
  if (!timingSafeEqual(digest(/^Bearer (.+)$/.exec(authorization ?? "")?.[1] ?? ""), digest(token)))
    throw new HttpError(401, "Send the metrics token: Authorization: Bearer METRICS_TOKEN", {}, { "www-authenticate": 'Bearer realm="metrics"' });
}

const escape = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const labels = (l: Record<string, string>) => {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${escape(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
};
/** Seconds with millisecond precision, as Prometheus prints them. */
const seconds = (ms: number) => Number((ms / 1000).toFixed(3));

class Exposition {
  private lines: string[] = [];
  metric(name: string, type: "gauge" | "counter" | "summary", help: string, samples: [Record<string, string>, number][], suffix = "") {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [l, v] of samples) this.lines.push(`${name}${suffix}${labels(l)} ${v}`);
  }
  raw(line: string) {
    this.lines.push(line);
  }
  text() {
    return this.lines.join("\n") + "\n";
  }
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export async function renderMetrics(ctx: AppContext, authorization: string | undefined): Promise<Response> {
  checkToken(ctx, authorization);
  const now = ctx.now();
  const out = new Exposition();
  // Which process answered: behind a load balancer each process is scraped on its own address, and its figures of
  // this process (sockets, event loop) are its own; the rest are read from the database, the installation's.
  out.metric("smsdesk_process_info", "gauge", "This process: its installation (the public instance id), host:pid and version.", [
    [{ installation: instanceId(ctx.keys.secrets), process: PROCESS.name, version: VERSION }, 1],
  ]);
  out.metric("smsdesk_process_start_time_seconds", "gauge", "When this process started, in seconds since the epoch.", [[{}, seconds(PROCESS.startedAt)]]);
  const outbox = await outboxMetrics(ctx, now - RATE_WINDOW_MS);
  out.metric(
    "smsdesk_messages",
    "gauge",
    "Messages stored, by direction and status.",
    outbox.byStatus.map((r) => [{ direction: r.direction, status: r.status }, r.count]),
  );
  out.metric("smsdesk_outbox_queued", "gauge", "Outbound messages waiting to be sent, per sender number.", outbox.queued.map((r) => [{ number: r.number }, r.count]));
  out.metric(
    "smsdesk_outbox_oldest_age_seconds",
    "gauge",
    "Age of the oldest queued message, per sender number.",
    outbox.queued.map((r) => [{ number: r.number }, seconds(Math.max(0, now - r.oldestCreatedAt))]),
  );
  out.metric(
    "smsdesk_send_rate_per_second",
    "gauge",
    "Messages handed to the provider per second over the last minute, per sender number.",
    outbox.sentSince.map((r) => [{ number: r.number }, Number((r.count / (RATE_WINDOW_MS / 1000)).toFixed(3))]),
  );
  const latencies = await deliveryLatencies(ctx, now - LATENCY_WINDOW_MS);
  out.metric(
    "smsdesk_webhook_delivery_latency_seconds",
    "summary",
    "Response time of outbound webhook delivery attempts over the last hour.",
    QUANTILES.map((q) => [{ quantile: String(q) }, seconds(quantile(latencies, q))]),
  );
  out.raw(`smsdesk_webhook_delivery_latency_seconds_sum ${seconds(latencies.reduce((a, b) => a + b, 0))}`);
  out.raw(`smsdesk_webhook_delivery_latency_seconds_count ${latencies.length}`);
  out.metric("smsdesk_socket_clients", "gauge", "WebSocket clients connected to /ws.", [[{}, liveHubOf(ctx)?.socketCount() ?? 0]]);
  const jobs = await jobMetrics(ctx, now);
  out.metric("smsdesk_jobs", "gauge", "Jobs by state.", jobs.byState.map((r) => [{ state: r.state }, r.count]));
  out.metric("smsdesk_jobs_due", "gauge", "Pending jobs whose time has come.", [[{}, jobs.due]]);
  out.metric("smsdesk_job_lag_seconds", "gauge", "How late the most overdue pending job is (0: none is due).", [
    [{}, jobs.oldestDueAt === null ? 0 : seconds(Math.max(0, now - jobs.oldestDueAt))],
  ]);
  const holds = readEventLoopHolds(ctx);
  out.metric("smsdesk_event_loop_longest_hold_seconds", "gauge", "The longest the event loop was held at a time since the previous scrape.", [[{}, seconds(holds.longestMs)]]);
  if (holds.longestBusyMs !== null) {
    out.metric(
      "smsdesk_event_loop_longest_busy_hold_seconds",
      "gauge",
      "The longest hold since the previous scrape counting no more of it than the loop's thread ran meanwhile (its own work, not waiting for a core).",
      [[{}, seconds(holds.longestBusyMs)]],
    );
  }
  out.metric("smsdesk_event_loop_holds_total", "counter", `Times the event loop was held over ${HOLD_COUNTED_MS} ms since the start.`, [[{}, holds.over]]);
  return new Response(out.text(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
}
