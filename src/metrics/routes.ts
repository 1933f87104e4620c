import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { renderMetrics } from "./metrics";

export function metricsRoutes(ctx: AppContext) {
  // GET /metrics
  return new Elysia().get("/metrics", ({ headers }) => renderMetrics(ctx, headers.authorization), {
    headers: t.Object({ authorization: t.Optional(t.String({ maxLength: 1000, error: "The Authorization header is too long" })) }),
  });
}
