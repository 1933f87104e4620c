import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { createRule, deleteRule, listRules, listRuns, toggleRule, updateRule } from "./rules";
import { recordPurchase, runManual } from "./runner";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const word = t.String({ maxLength: 100 });
const body = t.Object({
  name: t.Optional(t.String({ maxLength: 100, error: "Rule names are at most 100 characters" })),
  // Checked in the service so an unknown trigger is named in the message.
  trigger: t.Optional(t.String({ maxLength: 40 })),
  triggerConfig: t.Optional(
    t.Object({
      keyword: t.Optional(t.String({ maxLength: 30 })),
      words: t.Optional(t.Array(word, { maxItems: 20 })),
      tag: t.Optional(word),
      field: t.Optional(word),
      hour: t.Optional(t.Integer({ minimum: 0, maximum: 23, error: "The hour is 0 to 23" })),
      days: t.Optional(t.Integer({ minimum: 1, maximum: 3650, error: "Days are 1 to 3,650" })),
      campaignId: t.Optional(t.String({ maxLength: 64 })),
    }),
  ),
  // Any JSON value: checked by the segments' checkConditions (see there why not a record schema).
  conditions: t.Optional(t.Any()),
  segmentId: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
  actions: t.Optional(
    t.Object({
      sendMessage: t.Optional(t.String({ maxLength: 1600, error: "Messages are at most 1,600 characters" })),
      shortenLinks: t.Optional(t.Boolean({ error: "shortenLinks must be true or false" })),
      addTags: t.Optional(t.Array(word, { maxItems: 20 })),
      removeTags: t.Optional(t.Array(word, { maxItems: 20 })),
      emailOwner: t.Optional(t.String({ maxLength: 2000 })),
      optOut: t.Optional(t.Boolean()),
      enrolDripId: t.Optional(t.String({ maxLength: 64 })),
      removeDripId: t.Optional(t.String({ maxLength: 64 })),
    }),
  ),
  isActive: t.Optional(t.Boolean()),
});

export function automationRoutes(ctx: AppContext) {
  return new Elysia()
    .use(authGuard(ctx))
    // GET /api/automation-rules
    .get("/api/automation-rules", async ({ user }) => ({ data: await listRules(ctx, user.id) }), { auth: true })
    // POST /api/automation-rules
    .post(
      "/api/automation-rules",
      async ({ user, body: b, set }) => {
        const created = await createRule(ctx, user.id, b);
        set.status = 201;
        return created;
      },
      { auth: true, body },
    )
    // PUT /api/automation-rules/:id
    .put("/api/automation-rules/:id", ({ user, params, body: b }) => updateRule(ctx, user.id, params.id, b), { auth: true, params: idParams, body })
    // DELETE /api/automation-rules/:id
    .delete(
      "/api/automation-rules/:id",
      async ({ user, params }) => {
        await deleteRule(ctx, user.id, params.id);
        return { success: true };
      },
      { auth: true, params: idParams },
    )
    // POST /api/automation-rules/:id/toggle
    .post("/api/automation-rules/:id/toggle", ({ user, params, body: b }) => toggleRule(ctx, user.id, params.id, b?.isActive), {
      auth: true,
      params: idParams,
      body: t.Optional(t.Object({ isActive: t.Optional(t.Boolean()) })),
    })
    // GET /api/automation-rules/:id/runs
    .get("/api/automation-rules/:id/runs", async ({ user, params, query }) => ({ data: await listRuns(ctx, user.id, params.id, query.limit ?? 100) }), {
      auth: true,
      params: idParams,
      query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, error: "limit must be a whole number from 1 to 500" })) }),
    })
    // POST /api/automation-rules/:id/run
    .post("/api/automation-rules/:id/run", ({ user, params, body: b }) => runManual(ctx, user.id, params.id, b.contactIds), {
      auth: true,
      params: idParams,
      body: t.Object({ contactIds: t.Array(t.String({ maxLength: 64 }), { minItems: 1, maxItems: 1000 }) }),
    })
    // POST /api/automation/events
    .post(
      "/api/automation/events",
      async ({ user, body: b, set }) => {
        const res = await recordPurchase(ctx, user.id, b);
        set.status = 201;
        return res;
      },
      {
        auth: true,
        body: t.Object({
          type: t.Literal("purchase", { error: "The only event type is purchase" }),
          contactId: t.Optional(t.String({ maxLength: 64 })),
          phone: t.Optional(t.String({ maxLength: 32 })),
          amount: t.Optional(
            t.Number({ minimum: 0, maximum: 1_000_000, error: "amount is the purchase's total, a number from 0 to 1,000,000 (such as 49.99)" }),
          ),
          // Any JSON value, checked in the service: a record schema would first spend seconds on a megabyte.
          data: t.Optional(t.Any()),
        }),
      },
    );
}
