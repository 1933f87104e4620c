import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { healthAnswer } from "./answer";

export function healthRoutes(ctx: AppContext) {
  // GET /api/health
  return new Elysia().get("/api/health", async ({ set }) => {
    const { status, body } = healthAnswer(await ctx.databaseStatus(), ctx.keys.secrets);
    set.status = status;
    return body;
  });
}
