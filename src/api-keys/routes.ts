import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import { requireRecentConfirmation } from "../auth/reauth";
import type { AppContext } from "../context";
import { API_SCOPES, createApiKey, deleteApiKey, listApiKeys, revokeApiKey } from "./keys";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const scope = t.Union(
  API_SCOPES.map((s) => t.Literal(s)),
  { error: `A permission is one of ${API_SCOPES.join(", ")}` },
);

export function apiKeyRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/api-keys" })
    .use(authGuard(ctx))
    // GET /api/api-keys
    .get("/", ({ user }) => listApiKeys(ctx, user.id), { auth: true })
    // POST /api/api-keys
    .post(
      "/",
      async ({ user, sessionId, body, set }) => {
        // A key outlives the session and a password change: a stolen session alone must not be able to mint one.
        const key = await createApiKey(ctx, user.id, sessionId, body, () => requireRecentConfirmation(ctx, user, sessionId, "to create an API key"));
        set.status = 201;
        return key;
      },
      {
        auth: true,
        body: t.Object({
          name: t.String({ minLength: 1, maxLength: 100, error: "Please name the key (at most 100 characters)" }),
          service: t.Optional(t.String({ maxLength: 100, error: "The service is at most 100 characters" })),
          permissions: t.Array(scope, { minItems: 1, maxItems: API_SCOPES.length * 2, error: "Choose at least one permission" }),
          expiresAt: t.Optional(
            t.Nullable(t.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, error: "expiresAt is a time in milliseconds since 1970" })),
          ),
        }),
      },
    )
    // POST /api/api-keys/:id/revoke
    .post("/:id/revoke", ({ user, params }) => revokeApiKey(ctx, user.id, params.id), { auth: true, params: idParams })
    // DELETE /api/api-keys/:id
    .delete(
      "/:id",
      async ({ user, params, set }) => {
        await deleteApiKey(ctx, user.id, params.id);
        set.status = 204;
      },
      { auth: true, params: idParams },
    );
}
