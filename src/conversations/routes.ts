import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { pageOf, pagingQuery } from "../http/paging";
import { dismissPossibleOptOut, optOutPossible } from "./possible-opt-out";
import { MAX_MEDIA_PER_MESSAGE } from "../media/media";
import { bulkArchive, bulkDelete, bulkRead, getConversation, listConversations, markRead, markUnread, sendChat, setState, unreadTotals } from "./conversations";

/** An MMS's attachments: ids of uploads (POST /api/media). */
export const mediaIds = t.Optional(
  t.Array(t.String({ maxLength: 64 }), { maxItems: MAX_MEDIA_PER_MESSAGE, error: `mediaIds lists at most ${MAX_MEDIA_PER_MESSAGE} uploads (POST /api/media)` }),
);

/** Conversations a bulk call takes at once. */
export const BULK_MAX = 500;

const conversationId = t.Object({ id: t.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, error: "Conversation not found" }) });
const conversationIds = t.Array(t.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
  minItems: 1,
  maxItems: BULK_MAX,
  error: `conversationIds must list 1 to ${BULK_MAX} conversation ids`,
});
const state = t.Union([t.Literal("open"), t.Literal("closed"), t.Literal("archived")], { error: "state must be open, closed or archived" });

// The thread itself (GET /api/messages/:conversationId) shares its path with one message's and is served by the
// messages routes, which hand a whole-number id to threadOf.
export function conversationRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api" })
    .use(authGuard(ctx))
    // GET /api/conversations
    .get(
      "/conversations",
      ({ user, query }) => listConversations(ctx, user.id, { ...pageOf(query, 50), filter: query.filter ?? "all", q: query.q }),
      {
        auth: true,
        query: t.Object({
          ...pagingQuery(100),
          filter: t.Optional(
            t.Union([t.Literal("all"), t.Literal("open"), t.Literal("closed"), t.Literal("unread"), t.Literal("archived")], {
              error: "filter must be all, open, closed, unread or archived",
            }),
          ),
          q: t.Optional(t.String({ maxLength: 100, error: "The search may be 100 characters at most" })),
        }),
      },
    )
    // GET /api/conversations/unread
    .get("/conversations/unread", ({ user }) => unreadTotals(ctx, user.id), { auth: true })
    // GET /api/conversations/:id
    .get("/conversations/:id", ({ user, params }) => getConversation(ctx, user.id, params.id), { auth: true, params: conversationId })
    // POST /api/conversations/:id/read
    .post("/conversations/:id/read", ({ user, params, body }) => markRead(ctx, user.id, params.id, body?.upTo), {
      auth: true,
      params: conversationId,
      body: t.Optional(
        t.Object({ upTo: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, error: "upTo must be a message's seq" })) }),
      ),
    })
    // POST /api/conversations/:id/unread
    .post("/conversations/:id/unread", ({ user, params }) => markUnread(ctx, user.id, params.id), { auth: true, params: conversationId })
    // POST /api/conversations/:id/state
    .post("/conversations/:id/state", ({ user, params, body }) => setState(ctx, user.id, params.id, body.state), {
      auth: true,
      params: conversationId,
      body: t.Object({ state }),
    })
    // POST /api/conversations/:id/opt-out
    .post("/conversations/:id/opt-out", ({ user, params }) => optOutPossible(ctx, user.id, params.id), { auth: true, params: conversationId })
    // POST /api/conversations/:id/dismiss-opt-out
    .post("/conversations/:id/dismiss-opt-out", ({ user, params }) => dismissPossibleOptOut(ctx, user.id, params.id), {
      auth: true,
      params: conversationId,
    })
    // POST /api/conversations/bulk-archive
    .post("/conversations/bulk-archive", ({ user, body }) => bulkArchive(ctx, user.id, body.conversationIds, body.archive ?? true), {
      auth: true,
      body: t.Object({ conversationIds, archive: t.Optional(t.Boolean({ error: "archive must be true or false" })) }),
    })
    // POST /api/conversations/bulk-read
    .post("/conversations/bulk-read", ({ user, body }) => bulkRead(ctx, user.id, body.conversationIds, body.read ?? true), {
      auth: true,
      body: t.Object({ conversationIds, read: t.Optional(t.Boolean({ error: "read must be true or false" })) }),
    })
    // POST /api/conversations/bulk-delete
    .post("/conversations/bulk-delete", ({ user, body }) => bulkDelete(ctx, user.id, body.conversationIds), {
      auth: true,
      body: t.Object({ conversationIds }),
    })
    // POST /api/messages
    .post(
      "/messages/",
      async ({ user, body, headers, set }) => {
        const { body: answer, replayed } = await sendChat(ctx, user.id, body, headers["idempotency-key"]);
        set.status = 202;
        if (replayed) set.headers["idempotent-replayed"] = "true";
        if (answer.notice) set.headers["x-plan-notice"] = encodeURIComponent(answer.notice);
        return answer;
      },
      {
        auth: true,
        headers: t.Object({
          "idempotency-key": t.Optional(
            t.String({ minLength: 1, maxLength: 255, error: "Idempotency-Key must be 1 to 255 characters" }),
          ),
        }),
        body: t.Object({
          phone: t.String({ maxLength: 40, error: "Please enter a valid phone number" }),
          content: t.String({ maxLength: 1600, error: "Message content is required (1,600 characters at most)" }),
          direction: t.Optional(t.Literal("outbound", { error: "direction must be outbound: inbound messages come from the provider" })),
          fromNumber: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
          mediaIds,
        }),
      },
    );
}
