import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { segmentPrices, setMmsPrice, setSegmentPrice } from "../providers/prices";
import { overview, RANGES, series } from "./dashboard";

/** A price per segment up to $1 (no SMS segment costs more; a typo of a few zeros is refused, not stored). */
const MAX_PRICE_MICROS = 1_000_000;

export function resultsRoutes(ctx: AppContext) {
  return new Elysia()
    .use(authGuard(ctx))
    // GET /api/results/overview
    .get("/api/results/overview", ({ user }) => overview(ctx, user), { auth: true })
    // GET /api/results/series
    .get("/api/results/series", ({ user, query }) => series(ctx, user, (Number(query.days ?? "30") as (typeof RANGES)[number])), {
      auth: true,
      query: t.Object({
        days: t.Optional(t.Union(RANGES.map((d) => t.Literal(String(d))), { error: "days must be 7, 30 or 90" })),
      }),
    })
    // GET /api/sms-providers/segment-prices
    .get("/api/sms-providers/segment-prices", async ({ user }) => ({ data: await segmentPrices(ctx, user.id) }), { auth: true })
    // PUT /api/sms-providers/:id/segment-price
    .put("/api/sms-providers/:id/segment-price", async ({ user, params, body }) => await setSegmentPrice(ctx, user.id, params.id, body.priceMicros), {
      auth: true,
      params: t.Object({ id: t.String({ maxLength: 64 }) }),
      body: t.Object({
        priceMicros: t.Nullable(
          t.Integer({ minimum: 0, maximum: MAX_PRICE_MICROS, error: "The price per segment must be from $0 to $1, in millionths of a dollar" }),
        ),
      }),
    })
    // PUT /api/sms-providers/:id/mms-price
    .put("/api/sms-providers/:id/mms-price", async ({ user, params, body }) => await setMmsPrice(ctx, user.id, params.id, body.priceMicros), {
      auth: true,
      params: t.Object({ id: t.String({ maxLength: 64 }) }),
      body: t.Object({
        priceMicros: t.Nullable(t.Integer({ minimum: 0, maximum: MAX_PRICE_MICROS }), {
          error: "The price per MMS must be from $0 to $1, in millionths of a dollar",
        }),
      }),
    });
}
