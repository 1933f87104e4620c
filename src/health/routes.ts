import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { PROCESS } from "../process-identity";
import { instanceId } from "../secrets/instance";
import { VERSION } from "../version";

export function healthRoutes(ctx: AppContext) {
  // GET /api/health
  return new Elysia().get("/api/health", ({ set }) => {
    const db = ctx.databaseStatus();
    if (db !== "ok") set.status = 503;
    return { status: db === "ok" ? "ok" : "degraded", version: VERSION, db, instance: instanceId(ctx.keys.secrets), process: PROCESS.name };
  });
}
