import { and, count, desc, eq, gt, isNotNull, isNull, min } from "drizzle-orm";
import { supportMessages } from "../../db/schema";
import type { AppContext } from "../context";
import { notFound, tooManyRequests } from "../http/errors";
import { queueAdministratorNotice } from "./notify";

const DAY_MS = 24 * 3600_000;

/**
 * Open (unhandled) messages the form accepts per 24 hours, from everyone together: the per-address rate limit
 * stops one sender, this stops many addresses from filling the database or the administrators' inbox.
 */
export const OPEN_MESSAGES_PER_DAY = 100;

export type ContactMessage = Omit<typeof supportMessages.$inferInsert, "id" | "createdAt" | "handledAt">;

/** Stores a contact-form message, with the administrators' email notice queued; 429 when the last 24 hours already hold OPEN_MESSAGES_PER_DAY open ones. */
export function storeContactMessage(ctx: AppContext, message: ContactMessage): string {
  const now = ctx.now();
  const recentOpen = and(isNull(supportMessages.handledAt), gt(supportMessages.createdAt, new Date(now - DAY_MS)));
  const recent = ctx.db.select({ n: count(), oldest: min(supportMessages.createdAt) }).from(supportMessages).where(recentOpen).get()!;
  if (recent.n >= OPEN_MESSAGES_PER_DAY) {
    const wait = Math.max(1, Math.ceil(((recent.oldest?.getTime() ?? now) + DAY_MS - now) / 1000));
    throw tooManyRequests("We have received too many messages today. Please try again later.", wait);
  }
  const id = crypto.randomUUID();
  ctx.db.transaction(() => {
    ctx.db.insert(supportMessages).values({ id, ...message, createdAt: new Date(now) }).run();
    queueAdministratorNotice(ctx, id);
  });
  return id;
}

/** One page of contact-form messages, newest first: all, the open ones or the handled ones. */
export function listContactMessages(ctx: AppContext, opts: { page: number; pageSize: number; status?: "open" | "handled" }) {
  const where = opts.status === "open" ? isNull(supportMessages.handledAt) : opts.status === "handled" ? isNotNull(supportMessages.handledAt) : undefined;
  const total = ctx.db.select({ n: count() }).from(supportMessages).where(where).get()!.n;
  const rows = ctx.db
    .select()
    .from(supportMessages)
    .where(where)
    .orderBy(desc(supportMessages.createdAt), desc(supportMessages.id))
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize)
    .all();
  const data = rows.map((m) => ({ ...m, createdAt: m.createdAt.toISOString(), handledAt: m.handledAt?.toISOString() ?? null }));
  return { data, total, page: opts.page, pageSize: opts.pageSize };
}

/** Marks a message handled (now) or open again; 404 for an unknown id. */
export function markContactMessageHandled(ctx: AppContext, id: string, handled: boolean) {
  const row = ctx.db
    .update(supportMessages)
    .set({ handledAt: handled ? new Date(ctx.now()) : null })
    .where(eq(supportMessages.id, id))
    .returning()
    .get();
  if (!row) throw notFound("Message not found");
  return { id: row.id, handledAt: row.handledAt?.toISOString() ?? null };
}

export function countOpenContactMessages(ctx: AppContext): number {
  return ctx.db.select({ n: count() }).from(supportMessages).where(isNull(supportMessages.handledAt)).get()!.n;
}
