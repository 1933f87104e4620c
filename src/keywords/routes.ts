import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { createKeyword, listKeywords, testKeyword, toggleKeyword, updateKeyword } from "./keywords";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const reply = (max: number, what: string) => t.String({ maxLength: max, error: `${what} is at most ${max} characters` });

// The spec's fields plus the match mode, numbers, the already-subscribed reply and double opt-in. A userId in the
// body (the spec's client sends one) is dropped: the owner is the session's user.
const fields = {
  shortCode: t.Optional(t.Nullable(t.String({ maxLength: 20, error: "The short code is at most 20 characters" }))),
  alreadyReply: t.Optional(t.Nullable(reply(1600, "The already-subscribed reply"))),
  tags: t.Optional(t.Array(t.String({ maxLength: 50, error: "A tag is at most 50 characters" }), { maxItems: 20, error: "At most 20 tags" })),
  matchMode: t.Optional(t.Union([t.Literal("whole"), t.Literal("first_word")], { error: "The match is 'whole' or 'first_word'" })),
  numbers: t.Optional(t.Array(t.String({ maxLength: 32, error: "A phone number is at most 32 characters" }), { maxItems: 50, error: "At most 50 numbers" })),
  doubleOptIn: t.Optional(t.Boolean({ error: "doubleOptIn is true or false" })),
  // The replies' links as short links (the default) or as written.
  shortenLinks: t.Optional(t.Boolean({ error: "shortenLinks is true or false" })),
};
const keywordText = t.String({ maxLength: 64, error: "A keyword is one word of letters and digits, at most 30 characters (no spaces)." });
const createBody = t.Object({ keyword: t.Optional(keywordText), autoReply: t.Optional(reply(1600, "The auto-reply")), ...fields });
const updateBody = createBody;

export function keywordRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/keywords" })
    .use(authGuard(ctx))
    // GET /api/keywords
    .get("/", ({ user }) => listKeywords(ctx, user.id), { auth: true })
    // POST /api/keywords
    .post(
      "/",
      async ({ user, body, set }) => {
        const keyword = await createKeyword(ctx, user.id, body);
        set.status = 201;
        return keyword;
      },
      { auth: true, body: createBody },
    )
    // POST /api/keywords/test
    .post("/test", ({ user, body }) => testKeyword(ctx, user.id, body), {
      auth: true,
      body: t.Object({
        number: t.String({ maxLength: 32, error: "The number is at most 32 characters" }),
        text: t.String({ minLength: 1, maxLength: 1600, error: "Type the message to test (at most 1,600 characters)" }),
      }),
    })
    // PUT /api/keywords/:id
    .put("/:id", ({ user, params, body }) => updateKeyword(ctx, user.id, params.id, body), { auth: true, params: idParams, body: updateBody })
    // POST /api/keywords/:id/toggle
    .post("/:id/toggle", ({ user, params, body }) => toggleKeyword(ctx, user.id, params.id, body.isActive), {
      auth: true,
      params: idParams,
      body: t.Object({ isActive: t.Boolean({ error: "isActive is true or false" }) }),
    });
}
