import { and, asc, count, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { contacts, segments } from "../../db/schema";
import { authGuard } from "../auth/guard";
import { listContacts } from "../contacts/contacts";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { pageOf, pagingQuery } from "../http/paging";
import { checkConditions, compileConditions, SEGMENT_TEMPLATES } from "./conditions";

type SegmentRow = typeof segments.$inferSelect;
const view = (s: SegmentRow) => ({
  id: s.id,
  name: s.name,
  conditions: s.conditions,
  contactCount: s.contactCount,
  lastUpdated: s.lastUpdated ? s.lastUpdated.toISOString() : null,
  createdAt: s.createdAt.toISOString(),
});

function getSegment(ctx: AppContext, userId: string, id: string) {
  const s = ctx.db.select().from(segments).where(and(eq(segments.userId, userId), eq(segments.id, id))).get();
  if (!s) throw notFound("Segment not found");
  return s;
}

/** Counts the segment's contacts in the database and stores the count with the time. */
export function refreshSegment(ctx: AppContext, userId: string, id: string) {
  const s = getSegment(ctx, userId, id);
  const n = ctx.db.select({ n: count() }).from(contacts).where(and(eq(contacts.userId, userId), compileConditions(s.conditions, ctx.now()))).get()!.n;
  ctx.db.update(segments).set({ contactCount: n, lastUpdated: new Date(ctx.now()) }).where(eq(segments.id, id)).run();
  return view(getSegment(ctx, userId, id));
}

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const body = t.Object({
  name: t.Optional(t.Nullable(t.String({ maxLength: 100, error: "Segment names are at most 100 characters" }))),
  // Checked by checkConditions (shape and bounds), then compileConditions (fields and operators).
  conditions: t.Optional(t.Unknown()),
});

function clean(ctx: AppContext, b: typeof body.static) {
  const name = (b.name ?? "").trim();
  if (!name) throw badRequest("Segment name is required");
  const conditions = checkConditions(b.conditions ?? {});
  compileConditions(conditions, ctx.now());
  return { name, conditions };
}

export function segmentRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/segments" })
    .use(authGuard(ctx))
    // GET /api/segments
    .get("/", ({ user }) => ({ data: ctx.db.select().from(segments).where(eq(segments.userId, user.id)).orderBy(asc(segments.createdAt)).all().map(view) }), { auth: true })
    // GET /api/segments/templates
    .get("/templates", () => ({ data: SEGMENT_TEMPLATES }), { auth: true })
    // POST /api/segments
    .post(
      "/",
      ({ user, body: b, set }) => {
        const c = clean(ctx, b);
        const id = Bun.randomUUIDv7();
        ctx.db.insert(segments).values({ id, userId: user.id, name: c.name, conditions: c.conditions, createdAt: new Date(ctx.now()) }).run();
        set.status = 201;
        return refreshSegment(ctx, user.id, id);
      },
      { auth: true, body },
    )
    // PUT /api/segments/:id
    .put(
      "/:id",
      ({ user, params, body: b }) => {
        getSegment(ctx, user.id, params.id);
        const c = clean(ctx, b);
        ctx.db.update(segments).set({ name: c.name, conditions: c.conditions }).where(and(eq(segments.userId, user.id), eq(segments.id, params.id))).run();
        return refreshSegment(ctx, user.id, params.id);
      },
      { auth: true, params: idParams, body },
    )
    // DELETE /api/segments/:id
    .delete(
      "/:id",
      ({ user, params }) => {
        getSegment(ctx, user.id, params.id);
        ctx.db.delete(segments).where(and(eq(segments.userId, user.id), eq(segments.id, params.id))).run();
        return { success: true };
      },
      { auth: true, params: idParams },
    )
    // POST /api/segments/:id/refresh
    .post("/:id/refresh", ({ user, params }) => refreshSegment(ctx, user.id, params.id), { auth: true, params: idParams })
    // GET /api/segments/:id/contacts
    .get(
      "/:id/contacts",
      ({ user, params, query }) => {
        const s = getSegment(ctx, user.id, params.id);
        return listContacts(ctx, user.id, { ...pageOf(query, 50), sort: "createdAt", order: "desc" }, compileConditions(s.conditions, ctx.now()));
      },
      { auth: true, params: idParams, query: t.Object(pagingQuery(200)) },
    );
}
