import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { pageOf, pagingQuery } from "../http/paging";
import { SEGMENT_TEMPLATES } from "./conditions";
import { createSegment, deleteSegment, listSegments, refreshSegment, segmentContacts, updateSegment } from "./segments";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const body = t.Object({
  name: t.Optional(t.Nullable(t.String({ maxLength: 100, error: "Segment names are at most 100 characters" }))),
  // Checked by checkConditions (shape and bounds), then compileConditions (fields and operators).
  conditions: t.Optional(t.Unknown()),
});

export function segmentRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/segments" })
    .use(authGuard(ctx))
    // GET /api/segments
    .get("/", async ({ user }) => ({ data: await listSegments(ctx, user.id) }), { auth: true })
    // GET /api/segments/templates
    .get("/templates", () => ({ data: SEGMENT_TEMPLATES }), { auth: true })
    // POST /api/segments
    .post(
      "/",
      async ({ user, body: b, set }) => {
        const segment = await createSegment(ctx, user.id, b);
        set.status = 201;
        return segment;
      },
      { auth: true, body },
    )
    // PUT /api/segments/:id
    .put(
      "/:id",
      ({ user, params, body: b }) => updateSegment(ctx, user.id, params.id, b),
      { auth: true, params: idParams, body },
    )
    // DELETE /api/segments/:id
    .delete(
      "/:id",
      async ({ user, params }) => {
        await deleteSegment(ctx, user.id, params.id);
        return { success: true };
      },
      { auth: true, params: idParams },
    )
    // POST /api/segments/:id/refresh
    .post("/:id/refresh", ({ user, params }) => refreshSegment(ctx, user.id, params.id), { auth: true, params: idParams })
    // GET /api/segments/:id/contacts
    .get(
      "/:id/contacts",
      ({ user, params, query }) => segmentContacts(ctx, user.id, params.id, pageOf(query, 50)),
      { auth: true, params: idParams, query: t.Object(pagingQuery(200)) },
    );
}
