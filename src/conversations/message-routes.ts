import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { THREAD_PAGE_MAX, threadOf } from "./conversations";
import { mediaIds } from "./routes";
import { pageOf, pagingQuery } from "../http/paging";
import { getMessage, listMessages, withMedia } from "../messages/messages";
import { segmentInfo } from "../messages/segments";
import { sendSingle } from "../outbound/send-text";

/** The messages API: one-off sends, the list, one message, and a conversation's messages by its id (the spec's). */
export function messageRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/messages" })
    .use(authGuard(ctx))
    // POST /api/messages/send
    .post(
      "/send",
      async ({ user, body, set }) => {
        const { message, notice } = await sendSingle(ctx, user.id, body);
        set.status = 202;
        if (notice) set.headers["x-plan-notice"] = encodeURIComponent(notice);
        return { ...(await withMedia(ctx, message)), notice };
      },
      {
        auth: true,
        body: t.Object({
          phone: t.String({ maxLength: 40, error: "Please enter a valid phone number" }),
          content: t.String({ maxLength: 1600, error: "Message content is required (1,600 characters at most)" }),
          fromNumber: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
          mediaIds,
        }),
      },
    )
    // POST /api/messages/segments
    .post("/segments", ({ body }) => segmentInfo(body.content), { auth: true, body: t.Object({ content: t.String({ maxLength: 1600 }) }) })
    // GET /api/messages
    .get(
      "/",
      ({ user, query }) =>
        listMessages(ctx, user.id, {
          ...pageOf(query, 50),
          phone: query.phone,
          campaignId: query.campaignId,
          direction: query.direction,
        }),
      {
        auth: true,
        query: t.Object({
          ...pagingQuery(100),
          phone: t.Optional(t.String({ maxLength: 40 })),
          campaignId: t.Optional(t.String({ maxLength: 64 })),
          direction: t.Optional(t.Union([t.Literal("inbound"), t.Literal("outbound")])),
        }),
      },
    )
    // GET /api/messages/:id
    // One message by its id (a UUID), or, for a whole number, the spec's GET /api/messages/{conversationId}: that
    // conversation's messages (`after`, `before`: seq cursors; `limit`), in server order.
    .get(
      "/:id",
      async ({ user, params, query }) =>
        /^\d{1,15}$/.test(params.id) ? threadOf(ctx, user.id, Number(params.id), query) : withMedia(ctx, await getMessage(ctx, user.id, params.id)),
      {
        auth: true,
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        query: t.Object({
          after: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, error: "after must be a message's seq" })),
          before: t.Optional(t.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, error: "before must be a message's seq" })),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: THREAD_PAGE_MAX, error: `limit must be a whole number from 1 to ${THREAD_PAGE_MAX}` })),
        }),
      },
    );
}
