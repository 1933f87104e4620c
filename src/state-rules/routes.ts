import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { removeStateRule, setStateRule, stateRuleTable } from "./overrides";

const stateParam = t.Object({
  state: t.String({ minLength: 2, maxLength: 2, error: "The state is a two-letter code such as FL" }),
});

/** The state rule table (issue 34 item 2): public to read (/help shows it), an administrator's to change. */
export function stateRuleRoutes(ctx: AppContext) {
  return (
    new Elysia()
      .use(authGuard(ctx))
      // GET /api/state-rules
      .get("/api/state-rules", () => stateRuleTable(ctx))
      // PUT /api/admin/state-rules/:state
      .put("/api/admin/state-rules/:state", ({ params, body }) => setStateRule(ctx, params.state, body), {
        auth: "admin",
        params: stateParam,
        body: t.Object({
          allowedFrom: t.Nullable(t.String({ maxLength: 5 })),
          allowedUntil: t.Nullable(t.String({ maxLength: 5 })),
          capPer24h: t.Nullable(
            t.Integer({ minimum: 1, maximum: 100, error: "The cap is 1 to 100 texts per 24 hours, or empty" }),
          ),
          source: t.String({ maxLength: 300, error: "The legal source is at most 300 characters" }),
          checked: t.String({ maxLength: 10 }),
        }),
      })
      // DELETE /api/admin/state-rules/:state
      .delete("/api/admin/state-rules/:state", ({ params }) => removeStateRule(ctx, params.state), {
        auth: "admin",
        params: stateParam,
      })
  );
}
