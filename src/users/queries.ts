import { count, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { users, type OnboardingAnswers } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

export type User = typeof users.$inferSelect;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export async function findUserByEmail(ctx: AppContext, email: string): Promise<User | undefined> {
  await ready(ctx.db);
  return ctx.records.select().from(users).where(eq(users.email, normalizeEmail(email))).get();
}

// Prepared once: every signed-in request and every inbound message reads its user.
const byId = preparedPerDb((db: RecordsDb) => db.select().from(users).where(eq(users.id, sql.placeholder("id"))).prepare());

export async function findUserById(ctx: AppContext, id: string): Promise<User | undefined> {
  await ready(ctx.db);
  return byId(ctx.records).get({ id });
}

export async function insertUser(
  ctx: AppContext,
  fields: Pick<User, "email" | "passwordHash" | "firstName" | "lastName"> & Partial<User>,
): Promise<User> {
  await ready(ctx.db);
  return ctx.records
    .insert(users)
    .values({ id: crypto.randomUUID(), ...fields, email: normalizeEmail(fields.email) })
    .returning()
    .get();
}

/**
 * Holds the account's row until the caller's transaction ends (a write that changes nothing: PostgreSQL's row lock,
 * SQLite's write lock), so what several processes decide per account, read after it, is decided in turn: a license
 * queued after the account's others. Answers whether the account exists.
 */
export async function holdAccount(ctx: AppContext, id: string): Promise<boolean> {
  await ready(ctx.db);
  return (await ctx.records.$run(HOLD_ACCOUNT_SQL, [id])).changes > 0;
}

/** holdAccount's statement (parameter: the account's id), the same text on PostgreSQL. */
export const HOLD_ACCOUNT_SQL = `UPDATE users SET updated_at = updated_at WHERE id = ?`;

export async function updateUser(ctx: AppContext, id: string, fields: Partial<Omit<User, "id" | "createdAt">>): Promise<User> {
  await ready(ctx.db);
  return (await ctx.records
    .update(users)
    .set({ ...fields, updatedAt: new Date(ctx.now()) })
    .where(eq(users.id, id))
    .returning()
    .get())!;
}

export type RegionalSettings = Pick<User, "timezone" | "locale" | "dateFormat">;

/** The wizard's answers: the business profile's name and industry, the customers, and the regional settings asked. */
export type OnboardingInput = OnboardingAnswers &
  Pick<User, "businessName" | "industry"> &
  Partial<Pick<User, "timezone" | "defaultCountry">>;

export async function saveOnboarding(ctx: AppContext, id: string, input: OnboardingInput): Promise<User> {
  const { customerType, goals, ...fields } = input;
  return updateUser(ctx, id, { ...fields, onboarding: { customerType, goals }, onboardedAt: new Date(ctx.now()) });
}

/** How messages name the sender: the business profile's name, else the owner's name. */
export function businessNameOf(user: User): string {
  return user.businessName?.trim() || `${user.firstName} ${user.lastName}`.trim() || "Your Business";
}

/** How a texter reaches the business: the profile's contact, else the account's email (never nothing). */
export function businessContactOf(user: User): string {
  return user.businessContact?.trim() || user.email;
}

/**
 * The HELP reply carriers expect (CTIA, 10DLC registrations): who is texting, how to reach them, that rates may
 * apply, and how to stop or come back.
 */
export function defaultHelpReply(user: User): string {
  return `${businessNameOf(user)}: For help, contact ${businessContactOf(user)}. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe.`;
}

/** The HELP reply as sent: the user's own text, else the default. */
export function helpReplyOf(user: User): string {
  return user.helpReply ?? defaultHelpReply(user);
}

/** START's confirmation (also the consent log's text for it). */
export function startReplyOf(user: User): string {
  return `${businessNameOf(user)}: You are subscribed again. Reply HELP for help, STOP to unsubscribe.`;
}

/** STOP's confirmation. */
export function stopReplyOf(user: User): string {
  return `${businessNameOf(user)}: You have been unsubscribed and will receive no more messages. Reply START to resubscribe.`;
}

/** The user as every call returns it: no password hash, no internal flags. */
export function publicUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    emailVerified: user.emailVerified,
    firstName: user.firstName,
    lastName: user.lastName,
    phone: user.phone,
    profileImageUrl: user.profileImageUrl,
    role: user.role,
    authProvider: user.authProvider,
    timezone: user.timezone,
    locale: user.locale,
    dateFormat: user.dateFormat,
    // The wizard's answers as it asked them (the name and industry are the business profile's, which may have changed since).
    onboarding: user.onboarding ? { businessName: user.businessName ?? "", industry: user.industry ?? "", ...user.onboarding } : null,
    business: { name: user.businessName, industry: user.industry, contact: user.businessContact },
    onboardedAt: user.onboardedAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
  };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const likeEscaped = (column: unknown, pattern: string) => sql`lower(${column}) like ${pattern} escape '\\'`;

/** One page of users matching `search` in email, first or last name (or "first last"), newest first. */
export async function searchUsers(ctx: AppContext, opts: { page: number; pageSize: number; search?: string }): Promise<{ rows: User[]; total: number }> {
  await ready(ctx.db);
  const search = opts.search?.trim();
  let where: SQL | undefined;
  if (search) {
    const p = `%${escapeLike(search.toLowerCase())}%`;
    where = or(likeEscaped(users.email, p), likeEscaped(sql`${users.firstName} || ' ' || ${users.lastName}`, p), eq(users.email, normalizeEmail(search)));
  }
  const total = (await ctx.records.select({ n: count() }).from(users).where(where).get())!.n;
  const rows = await ctx.records
    .select()
    .from(users)
    .where(where)
    .orderBy(desc(users.createdAt), users.email)
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize)
    .all();
  return { rows, total };
}

/** The emails of these users, by id (a page's worth: the ids go into one query). */
export async function emailsByIds(ctx: AppContext, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  await ready(ctx.db);
  const rows = await ctx.records.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, unique)).all();
  return new Map(rows.map((u) => [u.id, u.email]));
}

/**
 * A subquery of the ids of users whose email is LIKE `pattern`, for another domain's `inArray(column, ...)`. No
 * record: it needs no connection and runs nothing (drizzle's standalone builder), a part of the caller's statement,
 * which the caller's record runs (licenses' code search, on either engine).
 */
export function userIdsWithEmailLike(pattern: string) {
  return new QueryBuilder().select({ id: users.id }).from(users).where(sql`${users.email} like ${pattern}`);
}

/** Accounts in all, administrators and disabled accounts, for the admin portal's health page. */
export async function countUsers(ctx: AppContext): Promise<{ users: number; admins: number; disabled: number }> {
  await ready(ctx.db);
  const row = (await ctx.records
    .select({
      users: count(),
      admins: sql<number>`coalesce(sum(CASE WHEN ${users.role} = 'admin' THEN 1 ELSE 0 END), 0)`,
      disabled: sql<number>`coalesce(sum(${users.disabled}), 0)`,
    })
    .from(users)
    .get())!;
  return { users: row.users, admins: Number(row.admins), disabled: Number(row.disabled) };
}

/** The addresses of the administrators who can act on a notice: verified, not disabled. */
export async function administratorEmails(ctx: AppContext): Promise<string[]> {
  await ready(ctx.db);
  const rows = await ctx.records
    .select({ email: users.email })
    .from(users)
    .where(sql`${users.role} = 'admin' AND ${users.disabled} = 0 AND ${users.emailVerified} = 1`)
    .orderBy(users.email)
    .all();
  return rows.map((u) => u.email);
}
