import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/** The response times (ms) of the delivery attempts made since `since`, for /metrics (src/metrics/). */
export async function deliveryLatencies(ctx: AppContext, since: number): Promise<number[]> {
  await ready(ctx.db);
  return (
    ctx.db.$client.query("SELECT latency_ms AS ms FROM webhook_deliveries WHERE last_attempt_at >= ? AND latency_ms IS NOT NULL ORDER BY latency_ms").all(since) as { ms: number }[]
  ).map((r) => r.ms);
}
