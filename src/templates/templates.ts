import { and, desc, eq, or, sql } from "drizzle-orm";
import { builtinTemplateUses, templates, TEMPLATE_CATEGORIES, type TemplateCategory } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, conflict, notFound } from "../http/errors";
import { fieldsOf } from "../../shared/personalisation/render";
import { BUILTIN_TEMPLATES } from "./builtins";
import { assertHoldable, copyMedia, heldMedia, holdMedia, mediaView, releaseMedia, type MediaRow, type MediaView } from "../media/media";

/** Who holds a template's attachments (src/media); using the template attaches copies of them. */
const templateMedia = (id: string) => `template:${id}` as const;

/**
 * Message templates (issue 14): an account's own, plus the built-in samples (src/templates/builtins.ts), which are
 * read-only and shared but counted per account. `variables` are the merge fields the content uses, found by the
 * same renderer that fills them (`[Name]` is firstName).
 */

type TemplateRow = typeof templates.$inferSelect;

/** An account keeps at most this many templates: the screen lists them all, unpaged. */
export const MAX_TEMPLATES = 500;

export type TemplateView = {
  id: string;
  name: string;
  category: TemplateCategory;
  content: string;
  variables: string[];
  /** Built-in samples are shared by every account (and read-only); an account's own templates are its alone. */
  isPublic: boolean;
  builtIn: boolean;
  usageCount: number;
  createdAt: string | null;
  /** Its pictures and files (issue 33): a message made from it is an MMS. */
  media: MediaView[];
};

const ownView = (t: TemplateRow, media: MediaRow[] = []): TemplateView => ({
  id: t.id,
  name: t.name,
  category: t.category,
  content: t.content,
  variables: fieldsOf(t.content),
  isPublic: false,
  builtIn: false,
  usageCount: t.usageCount,
  createdAt: t.createdAt.toISOString(),
  media: media.map(mediaView),
});

const withMedia = async (ctx: AppContext, t: TemplateRow) => ownView(t, (await heldMedia(ctx, [templateMedia(t.id)])).get(templateMedia(t.id)));

function builtinCounts(ctx: AppContext, userId: string): Map<string, number> {
  const rows = ctx.db
    .select({ id: builtinTemplateUses.templateId, n: builtinTemplateUses.usageCount })
    .from(builtinTemplateUses)
    .where(eq(builtinTemplateUses.userId, userId))
    .all();
  return new Map(rows.map((r) => [r.id, r.n]));
}

const builtinView = (b: (typeof BUILTIN_TEMPLATES)[number], usageCount: number): TemplateView => ({
  ...b,
  variables: fieldsOf(b.content),
  isPublic: true,
  builtIn: true,
  usageCount,
  createdAt: null,
  media: [],
});

/** `%text%` for LIKE with the user's % and _ taken literally. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The account's templates, newest first, then the samples; filtered by a search of name and content and a category. */
export async function listTemplates(ctx: AppContext, userId: string, filter: { q?: string; category?: TemplateCategory }): Promise<TemplateView[]> {
  await ready(ctx.db);
  const q = filter.q?.trim() ?? "";
  const conds = [eq(templates.userId, userId)];
  if (filter.category) conds.push(eq(templates.category, filter.category));
  if (q) {
    const p = likePattern(q);
    conds.push(or(sql`${templates.name} LIKE ${p} ESCAPE '\\'`, sql`${templates.content} LIKE ${p} ESCAPE '\\'`)!);
  }
  const rows = ctx.db.select().from(templates).where(and(...conds)).orderBy(desc(templates.createdAt), desc(templates.id)).all();
  const counts = builtinCounts(ctx, userId);
  const media = await heldMedia(ctx, rows.map((r) => templateMedia(r.id)));
  const own = rows.map((r) => ownView(r, media.get(templateMedia(r.id))));
  const needle = q.toLowerCase();
  const samples = BUILTIN_TEMPLATES.filter(
    (b) => (!filter.category || b.category === filter.category) && (!needle || b.name.toLowerCase().includes(needle) || b.content.toLowerCase().includes(needle)),
  ).map((b) => builtinView(b, counts.get(b.id) ?? 0));
  return [...own, ...samples];
}

function ownTemplate(ctx: AppContext, userId: string, id: string): TemplateRow {
  const row = ctx.db.select().from(templates).where(and(eq(templates.userId, userId), eq(templates.id, id))).get();
  if (!row) throw notFound("Template not found");
  return row;
}

export type TemplateInput = { name?: string; category?: string; content?: string; mediaIds?: string[] };

/** Name and content required (business.md: "Template: name and content required"); the category defaults to custom. */
function cleanInput(input: TemplateInput, partial: boolean): Partial<Pick<TemplateRow, "name" | "category" | "content">> {
  const out: Partial<Pick<TemplateRow, "name" | "category" | "content">> = {};
  if (!partial || input.name !== undefined) {
    const name = (input.name ?? "").trim();
    if (!name) throw badRequest("Template name is required");
    out.name = name;
  }
  if (!partial || input.content !== undefined) {
    const content = (input.content ?? "").trim();
    if (!content) throw badRequest("Template content is required");
    out.content = content;
  }
  if (!partial || input.category !== undefined) {
    const category = input.category ?? "custom";
    if (!(TEMPLATE_CATEGORIES as readonly string[]).includes(category)) throw badRequest(`Category must be one of ${TEMPLATE_CATEGORIES.join(", ")}`);
    out.category = category as TemplateCategory;
  }
  return out;
}

const isBuiltin = (id: string) => BUILTIN_TEMPLATES.some((b) => b.id === id);
const READ_ONLY = "Built-in templates cannot be changed; create your own template from this one";

/**
 * The count, the attachments' check and the insert run in one transaction, so two creates at once cannot both pass
 * the cap or both hold the same upload.
 */
export async function createTemplate(ctx: AppContext, userId: string, input: TemplateInput): Promise<TemplateView> {
  const values = cleanInput(input, false) as Required<ReturnType<typeof cleanInput>>;
  const mediaIds = input.mediaIds ?? [];
  return ctx.withTransaction(async () => {
    const [{ n }] = ctx.db.select({ n: sql<number>`count(*)` }).from(templates).where(eq(templates.userId, userId)).all() as [{ n: number }];
    if (n >= MAX_TEMPLATES) throw conflict(`You have ${MAX_TEMPLATES} templates, the most an account keeps; delete one to add another`);
    await assertHoldable(ctx, userId, null, mediaIds);
    const now = new Date(ctx.now());
    const row = ctx.db
      .insert(templates)
      .values({ id: Bun.randomUUIDv7(), userId, ...values, usageCount: 0, createdAt: now, updatedAt: now })
      .returning()
      .get();
    if (mediaIds.length) await holdMedia(ctx, userId, templateMedia(row.id), mediaIds);
    return withMedia(ctx, row);
  });
}

export async function updateTemplate(ctx: AppContext, userId: string, id: string, input: TemplateInput): Promise<TemplateView> {
  if (isBuiltin(id)) throw conflict(READ_ONLY);
  return ctx.withTransaction(async () => {
    ownTemplate(ctx, userId, id);
    const values = cleanInput(input, true);
    if (input.mediaIds !== undefined) await assertHoldable(ctx, userId, templateMedia(id), input.mediaIds);
    ctx.db.update(templates).set({ ...values, updatedAt: new Date(ctx.now()) }).where(eq(templates.id, id)).run();
    if (input.mediaIds !== undefined) await holdMedia(ctx, userId, templateMedia(id), input.mediaIds);
    return withMedia(ctx, ownTemplate(ctx, userId, id));
  });
}

export async function deleteTemplate(ctx: AppContext, userId: string, id: string): Promise<void> {
  if (isBuiltin(id)) throw conflict(READ_ONLY);
  await ctx.withTransaction(async () => {
    ownTemplate(ctx, userId, id);
    ctx.db.delete(templates).where(eq(templates.id, id)).run();
    // Its attachments are let go: the media sweep removes them (copies attached from it are each message's own).
    await releaseMedia(ctx, [templateMedia(id)]);
  });
}

/**
 * Counts one real use of a template (the user put it into a message) and answers it with its new count and
 * `attachments`: new uploads copied from its pictures and files, for the message to send (mediaIds), so the template
 * keeps its own.
 */
export async function useTemplate(ctx: AppContext, userId: string, id: string): Promise<TemplateView & { attachments: MediaView[] }> {
  await ready(ctx.db);
  const builtin = BUILTIN_TEMPLATES.find((b) => b.id === id);
  if (builtin) {
    const row = ctx.db
      .insert(builtinTemplateUses)
      .values({ userId, templateId: id, usageCount: 1 })
      .onConflictDoUpdate({ target: [builtinTemplateUses.userId, builtinTemplateUses.templateId], set: { usageCount: sql`${builtinTemplateUses.usageCount} + 1` } })
      .returning()
      .get();
    return { ...builtinView(builtin, row.usageCount), attachments: [] };
  }
  ownTemplate(ctx, userId, id);
  const row = ctx.db
    .update(templates)
    .set({ usageCount: sql`${templates.usageCount} + 1` })
    .where(eq(templates.id, id))
    .returning()
    .get();
  const view = await withMedia(ctx, row!);
  return { ...view, attachments: (await copyMedia(ctx, userId, view.media.map((m) => m.id))).map(mediaView) };
}
