import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/** The response times (ms) of the delivery attempts made since `since`, for /metrics (src/metrics/). */
export async function deliveryLatencies(ctx: AppContext, since: number): Promise<number[]> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ ms: number }>(
    "SELECT latency_ms AS ms FROM webhook_deliveries WHERE last_attempt_at >= ? AND latency_ms IS NOT NULL ORDER BY latency_ms",
    [since],
  );
  return rows.map((r) => r.ms);
}
