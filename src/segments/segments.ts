import { and, asc, eq } from "drizzle-orm";
import { segments } from "../../db/schema";
import { listContacts } from "../contacts/contacts";
import { countTagged, taggedFilter } from "../contacts/filter-fields";
import { countContactsWhere } from "../contacts/stats";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { checkConditions, compileConditions } from "./conditions";

export type Segment = typeof segments.$inferSelect;

export const segmentView = (s: Segment) => ({
  id: s.id,
  name: s.name,
  conditions: s.conditions,
  contactCount: s.contactCount,
  lastUpdated: s.lastUpdated ? s.lastUpdated.toISOString() : null,
  createdAt: s.createdAt.toISOString(),
});

/** The user's segment, or undefined (another user's segment is as missing as an unknown id). */
export async function findSegment(ctx: AppContext, userId: string, id: string): Promise<Segment | undefined> {
  await ready(ctx.db);
  return segmentRow(ctx, userId, id);
}

function segmentRow(ctx: AppContext, userId: string, id: string): Promise<Segment | undefined> {
  return ctx.records
    .select()
    .from(segments)
    .where(and(eq(segments.userId, userId), eq(segments.id, id)))
    .get();
}

async function getSegment(ctx: AppContext, userId: string, id: string): Promise<Segment> {
  const s = await segmentRow(ctx, userId, id);
  if (!s) throw notFound("Segment not found");
  return s;
}

/** The user's segments, oldest first. */
export async function listSegments(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  const rows = await ctx.records.select().from(segments).where(eq(segments.userId, userId)).orderBy(asc(segments.createdAt)).all();
  return rows.map(segmentView);
}

/** A segment of one tag operator and nothing else ({tags: {eq: "vip"}}): counted from the tags' index alone. */
function onlyTag(conditions: Record<string, Record<string, unknown>>): ["eq" | "contains", string] | null {
  const fields = Object.keys(conditions);
  if (fields.length !== 1 || fields[0] !== "tags") return null;
  const ops = Object.entries(conditions.tags ?? {});
  if (ops.length !== 1 || (ops[0]![0] !== "eq" && ops[0]![0] !== "contains")) return null;
  return [ops[0]![0], String(ops[0]![1] ?? "").trim()]; // trimmed as compileConditions trims it
}

/** Counts the segment's contacts in the database and stores the count with the time. */
export async function refreshSegment(ctx: AppContext, userId: string, id: string) {
  await ready(ctx.db);
  return refresh(ctx, userId, id);
}

async function refresh(ctx: AppContext, userId: string, id: string) {
  const s = await getSegment(ctx, userId, id);
  const condition = compileConditions(s.conditions, ctx.now(), userId, ctx.records.$engine, "tags" in s.conditions); // checks them first
  const tag = onlyTag(s.conditions);
  const n = tag ? await countTagged(ctx, userId, ...tag) : await countContactsWhere(ctx, userId, condition, "tags" in s.conditions);
  // The write in a turn of its own: another caller's transaction may have begun since the count.
  await ready(ctx.db);
  await ctx.records
    .update(segments)
    .set({ contactCount: n, lastUpdated: new Date(ctx.now()) })
    .where(eq(segments.id, id))
    .run();
  return segmentView(await getSegment(ctx, userId, id));
}

/** A segment as a caller sends it: the request schema bounds the name; the conditions are checked here. */
export type SegmentInput = { name?: string | null; conditions?: unknown };

function checked(ctx: AppContext, input: SegmentInput) {
  const name = (input.name ?? "").trim();
  if (!name) throw badRequest("Segment name is required");
  const conditions = checkConditions(input.conditions ?? {});
  compileConditions(conditions, ctx.now(), "", ctx.records.$engine); // checks fields and operators (no account read)
  return { name, conditions };
}

/** A new segment, counted at once. */
export async function createSegment(ctx: AppContext, userId: string, input: SegmentInput) {
  const c = checked(ctx, input);
  const id = Bun.randomUUIDv7();
  await ready(ctx.db);
  await ctx.records
    .insert(segments)
    .values({ id, userId, name: c.name, conditions: c.conditions, createdAt: new Date(ctx.now()) })
    .run();
  return refresh(ctx, userId, id);
}

/** Replaces the segment's name and conditions and counts it again; 404 for an unknown id (before the input's checks). */
export async function updateSegment(ctx: AppContext, userId: string, id: string, input: SegmentInput) {
  await ready(ctx.db);
  await getSegment(ctx, userId, id);
  const c = checked(ctx, input);
  await ctx.records
    .update(segments)
    .set({ name: c.name, conditions: c.conditions })
    .where(and(eq(segments.userId, userId), eq(segments.id, id)))
    .run();
  return refresh(ctx, userId, id);
}

export async function deleteSegment(ctx: AppContext, userId: string, id: string): Promise<void> {
  await ready(ctx.db);
  await getSegment(ctx, userId, id);
  await ctx.records
    .delete(segments)
    .where(and(eq(segments.userId, userId), eq(segments.id, id)))
    .run();
}

/** One page of the segment's contacts as they are now, newest first. */
export async function segmentContacts(ctx: AppContext, userId: string, id: string, page: { page: number; pageSize: number }) {
  await ready(ctx.db);
  const s = await getSegment(ctx, userId, id);
  const tag = onlyTag(s.conditions);
  return listContacts(ctx, userId, { ...page, sort: "createdAt", order: "desc" }, compileConditions(s.conditions, ctx.now(), userId, ctx.records.$engine), tag ? await taggedFilter(ctx, userId, ...tag) : undefined);
}
