import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import { requireRecentConfirmation } from "../auth/reauth";
import type { AppContext } from "../context";
import type { User } from "../users/queries";
import { pageOf, pagingQuery } from "../http/paging";
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointInput,
  listDeliveries,
  listEndpoints,
  redeliver,
  redeliverRange,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  WEBHOOK_EVENTS,
} from "./webhooks";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
// Elysia's router takes one parameter name per position and method: the POST routes share theirs with the
// providers' inbound POST /api/webhooks/:provider/sms/:userId, so there the webhook's id is named `provider`.
const postParams = t.Object({ provider: t.String({ maxLength: 64 }) });
const deliveryParams = t.Object({ provider: t.String({ maxLength: 64 }), deliveryId: t.String({ maxLength: 64 }) });
const secret = t.String({ maxLength: 100, error: "The secret is whsec_ followed by base64, at most 100 characters" });
const fields = {
  name: t.String({ maxLength: 100, error: "The name is at most 100 characters" }),
  url: t.String({ minLength: 1, maxLength: 2000, error: "The URL is at most 2,000 characters" }),
  events: t.Array(t.Union(WEBHOOK_EVENTS.map((e) => t.Literal(e))), {
    maxItems: WEBHOOK_EVENTS.length * 2,
    error: `The events are among ${WEBHOOK_EVENTS.join(", ")}`,
  }),
  secret: t.Optional(secret),
  active: t.Optional(t.Boolean({ error: "active is true or false" })),
};
const time = (what: string) => t.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, error: `${what} is a time in milliseconds` });

/** The fields an edit may change, each optional. */
const editBody = t.Object({
  name: t.Optional(fields.name),
  url: t.Optional(fields.url),
  events: t.Optional(fields.events),
  secret: fields.secret,
  active: fields.active,
});

export function outboundWebhookRoutes(ctx: AppContext) {
  // A new URL or secret makes the endpoint this session's (src/auth/session-credentials.ts).
  const editEndpoint = (user: User, sessionId: string, id: string, body: EndpointInput) =>
    updateEndpoint(ctx, user.id, id, body, (what) => requireRecentConfirmation(ctx, user, sessionId, `to change a webhook's ${what}`), sessionId);
  return new Elysia({ prefix: "/api/webhooks" })
    .use(authGuard(ctx))
    // GET /api/webhooks
    .get("/", async ({ user }) => ({ data: await listEndpoints(ctx, user.id) }), { auth: true })
    // POST /api/webhooks
    .post(
      "/",
      async ({ user, sessionId, body, set }) => {
        // Where the account's data is sent, past any password change: a stolen session alone must not set it.
        const endpoint = await createEndpoint(
          ctx,
          user.id,
          body,
          () => requireRecentConfirmation(ctx, user, sessionId, "to add a webhook"),
          sessionId,
        );
        set.status = 201;
        return endpoint;
      },
      { auth: true, body: t.Object(fields) },
    )
    // The Edit dialog's; PUT below takes the same partial body, as it always did.
    // PATCH /api/webhooks/:id
    .patch("/:id", ({ user, sessionId, params, body }) => editEndpoint(user, sessionId, params.id, body), { auth: true, params: idParams, body: editBody })
    // PUT /api/webhooks/:id
    .put("/:id", ({ user, sessionId, params, body }) => editEndpoint(user, sessionId, params.id, body), { auth: true, params: idParams, body: editBody })
    // DELETE /api/webhooks/:id
    .delete(
      "/:id",
      async ({ user, params, set }) => {
        await deleteEndpoint(ctx, user.id, params.id);
        set.status = 204;
      },
      { auth: true, params: idParams },
    )
    // POST /api/webhooks/:provider/rotate-secret
    // A secret shown to whoever rotates it signs deliveries the receiver trusts, past any password change.
    .post(
      "/:provider/rotate-secret",
      ({ user, sessionId, params, body }) =>
        rotateSecret(
          ctx,
          user.id,
          params.provider,
          body?.secret,
          () => requireRecentConfirmation(ctx, user, sessionId, "to change a webhook's secret"),
          sessionId,
        ),
      {
        auth: true,
        params: postParams,
        body: t.Optional(t.Object({ secret: t.Optional(secret) })),
      },
    )
    // POST /api/webhooks/:provider/test
    .post("/:provider/test", ({ user, params }) => sendTestEvent(ctx, user.id, params.provider), { auth: true, params: postParams })
    // GET /api/webhooks/:id/deliveries
    .get("/:id/deliveries", ({ user, params, query }) => listDeliveries(ctx, user.id, params.id, pageOf(query, 20)), {
      auth: true,
      params: idParams,
      query: t.Object(pagingQuery(100)),
    })
    // POST /api/webhooks/:provider/deliveries/:deliveryId/redeliver
    .post("/:provider/deliveries/:deliveryId/redeliver", ({ user, params }) => redeliver(ctx, user.id, params.provider, params.deliveryId), {
      auth: true,
      params: deliveryParams,
    })
    // POST /api/webhooks/:provider/redeliver
    .post("/:provider/redeliver", ({ user, params, body }) => redeliverRange(ctx, user.id, params.provider, body.from, body.to), {
      auth: true,
      params: postParams,
      body: t.Object({ from: time("from"), to: time("to") }),
    });
}
