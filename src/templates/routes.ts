import { Elysia, t } from "elysia";
import { TEMPLATE_CATEGORIES } from "../../db/schema";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { MAX_MEDIA_PER_MESSAGE } from "../../shared/media/limits";
import { createTemplate, deleteTemplate, listTemplates, updateTemplate, useTemplate } from "./templates";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const category = t.Union(TEMPLATE_CATEGORIES.map((c) => t.Literal(c)));
const body = t.Object({
  name: t.Optional(t.String({ maxLength: 100, error: "Template names are at most 100 characters" })),
  // Checked in the service so an unknown category is named in the message.
  category: t.Optional(t.String({ maxLength: 40 })),
  content: t.Optional(t.String({ maxLength: 1600, error: "Template content is at most 1,600 characters" })),
  // Both answered by the server (found in the content; an account's templates are private): a body's are ignored.
  variables: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 50 })),
  isPublic: t.Optional(t.Boolean()),
  // Its pictures and files (uploads of POST /api/media), in order; [] removes them.
  mediaIds: t.Optional(
    t.Array(t.String({ maxLength: 64 }), { maxItems: MAX_MEDIA_PER_MESSAGE, error: `mediaIds lists at most ${MAX_MEDIA_PER_MESSAGE} uploads (POST /api/media)` }),
  ),
});

export function templateRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/templates" })
    .use(authGuard(ctx))
    // GET /api/templates
    .get("/", async ({ user, query }) => ({ data: await listTemplates(ctx, user.id, query) }), {
      auth: true,
      query: t.Object({ q: t.Optional(t.String({ maxLength: 200 })), category: t.Optional(category) }),
    })
    // POST /api/templates
    .post(
      "/",
      async ({ user, body: b, set }) => {
        const created = await createTemplate(ctx, user.id, b);
        set.status = 201;
        return created;
      },
      { auth: true, body },
    )
    // PUT /api/templates/:id
    .put("/:id", ({ user, params, body: b }) => updateTemplate(ctx, user.id, params.id, b), { auth: true, params: idParams, body })
    // DELETE /api/templates/:id
    .delete(
      "/:id",
      async ({ user, params }) => {
        await deleteTemplate(ctx, user.id, params.id);
        return { success: true };
      },
      { auth: true, params: idParams },
    )
    // POST /api/templates/:id/use
    .post("/:id/use", ({ user, params }) => useTemplate(ctx, user.id, params.id), { auth: true, params: idParams });
}
