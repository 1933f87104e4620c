import { and, count, desc, eq, gt, isNotNull, isNull, min } from "drizzle-orm";
import { supportMessages } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { notFound, tooManyRequests } from "../http/errors";
import { enqueueJob } from "../jobs/jobs";

const DAY_MS = 24 * 3600_000;

/** The job that emails a new message to the administrators (src/support/notify.ts). */
export const NOTIFY = "support.notify";

/**
 * Open (unhandled) messages the form accepts per 24 hours, from everyone together: the per-address rate limit
 * stops one sender, this stops many addresses from filling the database or the administrators' inbox.
 */
export const OPEN_MESSAGES_PER_DAY = 100;

export type ContactMessage = Omit<typeof supportMessages.$inferInsert, "id" | "createdAt" | "handledAt">;

/**
 * Stores a contact-form message, with the administrators' email notice queued; 429 when the last 24 hours already
 * hold OPEN_MESSAGES_PER_DAY open ones. The count is read in the transaction that adds the message, so two senders
 * at once cannot both pass it.
 */
export async function storeContactMessage(ctx: AppContext, message: ContactMessage): Promise<string> {
  const now = ctx.now();
  const id = crypto.randomUUID();
  await ctx.withTransaction(async () => {
    const recentOpen = and(isNull(supportMessages.handledAt), gt(supportMessages.createdAt, new Date(now - DAY_MS)));
    const recent = ctx.db.select({ n: count(), oldest: min(supportMessages.createdAt) }).from(supportMessages).where(recentOpen).get()!;
    if (recent.n >= OPEN_MESSAGES_PER_DAY) {
      const wait = Math.max(1, Math.ceil(((recent.oldest?.getTime() ?? now) + DAY_MS - now) / 1000));
      throw tooManyRequests("We have received too many messages today. Please try again later.", wait);
    }
    ctx.db.insert(supportMessages).values({ id, ...message, createdAt: new Date(now) }).run();
    await enqueueJob(ctx, { kind: NOTIFY, key: `${NOTIFY}:${id}`, runAt: now, refId: id, payload: { messageId: id } });
  });
  return id;
}

/** One page of contact-form messages, newest first: all, the open ones or the handled ones. */
export async function listContactMessages(ctx: AppContext, opts: { page: number; pageSize: number; status?: "open" | "handled" }) {
  await ready(ctx.db);
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
export async function markContactMessageHandled(ctx: AppContext, id: string, handled: boolean) {
  await ready(ctx.db);
  const row = ctx.db
    .update(supportMessages)
    .set({ handledAt: handled ? new Date(ctx.now()) : null })
    .where(eq(supportMessages.id, id))
    .returning()
    .get();
  if (!row) throw notFound("Message not found");
  return { id: row.id, handledAt: row.handledAt?.toISOString() ?? null };
}

/** One contact-form message, or undefined. */
export async function contactMessage(ctx: AppContext, id: string) {
  await ready(ctx.db);
  return ctx.db.select().from(supportMessages).where(eq(supportMessages.id, id)).get();
}

export async function countOpenContactMessages(ctx: AppContext): Promise<number> {
  await ready(ctx.db);
  return ctx.db.select({ n: count() }).from(supportMessages).where(isNull(supportMessages.handledAt)).get()!.n;
}
