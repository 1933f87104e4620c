import { and, count, desc, eq, gt, isNull, min, sql } from "drizzle-orm";
import { errorReports } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { tooManyRequests } from "../http/errors";
import { emailsByIds } from "../users/queries";

const DAY_MS = 24 * 3600_000;

/**
 * Reports accepted per 24 hours from signed-out visitors together (the per-address rate limit stops one sender),
 * and from each signed-in account: anonymous senders from many addresses cannot use up the room of the users.
 */
export const ERROR_REPORTS_PER_DAY = 200;
export const ERROR_REPORTS_PER_ACCOUNT_PER_DAY = 20;
/** Reports kept in all: the oldest go first, so a flood can never grow the database past this. */
export const ERROR_REPORTS_KEPT = 1000;

export type ErrorReport = Omit<typeof errorReports.$inferInsert, "id" | "createdAt">;

/**
 * Stores a report and drops the oldest beyond ERROR_REPORTS_KEPT; 429 past its sender's daily count, read in the
 * transaction that adds the report.
 */
export async function storeErrorReport(ctx: AppContext, report: ErrorReport): Promise<string> {
  const now = ctx.now();
  const id = crypto.randomUUID();
  await ctx.withTransaction(async () => {
    const today = ctx.db
      .select({ n: count(), oldest: min(errorReports.createdAt) })
      .from(errorReports)
      .where(and(gt(errorReports.createdAt, new Date(now - DAY_MS)), report.userId ? eq(errorReports.userId, report.userId) : isNull(errorReports.userId)))
      .get()!;
    if (today.n >= (report.userId ? ERROR_REPORTS_PER_ACCOUNT_PER_DAY : ERROR_REPORTS_PER_DAY)) {
      const wait = Math.max(1, Math.ceil(((today.oldest?.getTime() ?? now) + DAY_MS - now) / 1000));
      throw tooManyRequests("Too many error reports today. Please try again later.", wait);
    }
    ctx.db.insert(errorReports).values({ id, ...report, createdAt: new Date(now) }).run();
    ctx.db.run(sql`DELETE FROM error_reports WHERE id IN (SELECT id FROM error_reports ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ${ERROR_REPORTS_KEPT})`);
  });
  return id;
}

/** One page of reports, newest first, each with the email of the signed-in user who sent it. */
export async function listErrorReports(ctx: AppContext, opts: { page: number; pageSize: number }) {
  const total = await countErrorReports(ctx);
  await ready(ctx.db);
  const rows = ctx.db
    .select()
    .from(errorReports)
    .orderBy(desc(errorReports.createdAt), desc(errorReports.id))
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize)
    .all();
  const emails = await emailsByIds(ctx, rows.flatMap((r) => (r.userId ? [r.userId] : [])));
  const data = rows.map((r) => ({
    id: r.id,
    type: r.type,
    message: r.message,
    stack: r.stack,
    componentStack: r.componentStack,
    url: r.url,
    userAgent: r.userAgent,
    occurredAt: r.occurredAt,
    user: r.userId ? { id: r.userId, email: emails.get(r.userId) ?? null } : null,
    createdAt: r.createdAt.toISOString(),
  }));
  return { data, total, page: opts.page, pageSize: opts.pageSize };
}

export async function countErrorReports(ctx: AppContext): Promise<number> {
  await ready(ctx.db);
  return ctx.db.select({ n: count() }).from(errorReports).get()!.n;
}
