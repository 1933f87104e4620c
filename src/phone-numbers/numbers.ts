import { and, asc, count, desc, eq, ne, sql } from "drizzle-orm";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { phoneNumbers, type NumberKind } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, conflict, notFound } from "../http/errors";
import { assertWithinLimit } from "../licenses/limits";
import { findProviderById, providersByIds, type ProviderAccount } from "../providers/accounts";
import { holdAccount } from "../users/queries";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

/** Segments per second by kind of sender (carrier defaults: Twilio's long code 1, toll-free 3, short code 30). */
export const DEFAULT_RATE: Record<NumberKind, number> = { long_code: 1, toll_free: 3, short_code: 30, alphanumeric: 1 };

/** North American toll-free area codes. */
const TOLL_FREE = /^\+1(800|833|844|855|866|877|888)\d{7}$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const SHORT_CODE = /^\d{3,8}$/;
const ALPHANUMERIC = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

export const INTERNATIONAL_FORMAT = "Please enter the number in international format, e.g. +14155550123";

/** A sender as typed: E.164 (separators dropped), a short code, or an alphanumeric sender name; with its kind. */
export function parseSender(input: string): { phoneNumber: string; kind: NumberKind } {
  const raw = input.trim();
  if (!raw) throw badRequest("Phone number is required");
  const compact = raw.replace(/[\s().\-]/g, "");
  if (E164.test(compact)) return { phoneNumber: compact, kind: TOLL_FREE.test(compact) ? "toll_free" : "long_code" };
  if (SHORT_CODE.test(compact)) return { phoneNumber: compact, kind: "short_code" };
  if (ALPHANUMERIC.test(raw)) return { phoneNumber: raw, kind: "alphanumeric" };
  throw badRequest(INTERNATIONAL_FORMAT);
}

type Joined = { n: PhoneNumberRow; provider: string; providerName: string };

export function numberView(j: Joined) {
  const n = j.n;
  return {
    id: n.id,
    phoneNumber: n.phoneNumber,
    displayName: n.displayName,
    providerId: n.providerId,
    provider: j.provider,
    providerName: j.providerName,
    kind: n.kind,
    messagesPerSecond: n.messagesPerSecond,
    isDefault: n.isDefault,
    isActive: n.isActive,
    createdAt: n.createdAt.toISOString(),
  };
}

/** Numbers with their provider account (kind and name); a number is never without one (deleted with it). */
async function withProviders(ctx: AppContext, rows: PhoneNumberRow[]): Promise<(Joined & { account: ProviderAccount })[]> {
  const accounts = await providersByIds(ctx, rows.map((n) => n.providerId));
  return rows.flatMap((n) => {
    const account = accounts.get(n.providerId);
    return account ? [{ n, provider: account.provider, providerName: account.displayName, account }] : [];
  });
}

export async function listNumbers(ctx: AppContext, userId: string, page = 1, pageSize = 50) {
  await ready(ctx.db);
  const rows = await ctx.records
    .select()
    .from(phoneNumbers)
    .where(eq(phoneNumbers.userId, userId))
    .orderBy(desc(phoneNumbers.isDefault), asc(phoneNumbers.createdAt))
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .all();
  // Counted right after the page is read, before the accounts are awaited.
  const total = await numbersOf(ctx, userId);
  return { data: (await withProviders(ctx, rows)).map(numberView), total, page, pageSize };
}

/** Every sender number of the account, active or not (the plan limits how many it may have). */
export async function countNumbers(ctx: AppContext, userId: string): Promise<number> {
  await ready(ctx.db);
  return numbersOf(ctx, userId);
}

async function numbersOf(ctx: AppContext, userId: string): Promise<number> {
  return (await ctx.records.select({ n: count() }).from(phoneNumbers).where(eq(phoneNumbers.userId, userId)).get())!.n;
}

async function getNumber(ctx: AppContext, userId: string, id: string) {
  await ready(ctx.db);
  const number = await ctx.records
    .select()
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.userId, userId), eq(phoneNumbers.id, id)))
    .get();
  const row = number && (await withProviders(ctx, [number]))[0];
  if (!row) throw notFound("Phone number not found");
  return row;
}

/**
 * Adds a sender number. One transaction: the checks, the plan's count and the insert; the same number added twice at
 * once is refused by the unique (user, number) index, not by the look-up before it.
 */
export async function addNumber(
  ctx: AppContext,
  userId: string,
  input: { providerId: string; phoneNumber: string; displayName?: string; isDefault?: boolean; kind?: NumberKind; messagesPerSecond?: number },
) {
  const id = Bun.randomUUIDv7();
  return ctx.withTransaction(async () => {
    // On PostgreSQL two transactions would count the plan's numbers (and read the default) at once: the account's
    // row held first orders them.
    await holdAccount(ctx, userId);
    const provider = await findProviderById(ctx, input.providerId);
    if (!provider || provider.userId !== userId || !provider.isActive) throw badRequest("Please choose an active provider");
    const parsed = parseSender(input.phoneNumber);
    const kind = input.kind ?? parsed.kind;
    const exists = await ctx.records
      .select({ id: phoneNumbers.id })
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.userId, userId), eq(phoneNumbers.phoneNumber, parsed.phoneNumber)))
      .get();
    if (exists) throw conflict("This number is already added");
    // Counted in the same transaction as the insert: two adds at once cannot both take the last place.
    await assertWithinLimit(ctx, userId, "phoneNumbers", 1);
    await ready(ctx.db);
    const hasDefault = await ctx.records
      .select({ id: phoneNumbers.id })
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.userId, userId), eq(phoneNumbers.isDefault, true)))
      .get();
    const isDefault = !!input.isDefault || !hasDefault;
    if (isDefault) await ctx.records.update(phoneNumbers).set({ isDefault: false }).where(eq(phoneNumbers.userId, userId)).run();
    const inserted = await ctx.records
      .insert(phoneNumbers)
      .values({
        id,
        userId,
        providerId: provider.id,
        phoneNumber: parsed.phoneNumber,
        displayName: (input.displayName ?? "").trim(),
        kind,
        messagesPerSecond: input.messagesPerSecond ?? DEFAULT_RATE[kind],
        isDefault,
        createdAt: new Date(ctx.now()),
      })
      .onConflictDoNothing({ target: [phoneNumbers.userId, phoneNumbers.phoneNumber] })
      .returning({ id: phoneNumbers.id })
      .get();
    if (!inserted) throw conflict("This number is already added");
    return numberView(await getNumber(ctx, userId, id));
  });
}

export async function updateNumber(
  ctx: AppContext,
  userId: string,
  id: string,
  patch: { displayName?: string; messagesPerSecond?: number; isDefault?: boolean; isActive?: boolean; kind?: NumberKind },
) {
  return ctx.withTransaction(async () => {
    await getNumber(ctx, userId, id);
    await ready(ctx.db);
    if (patch.isDefault) await ctx.records.update(phoneNumbers).set({ isDefault: false }).where(and(eq(phoneNumbers.userId, userId), ne(phoneNumbers.id, id))).run();
    await ctx.records
      .update(phoneNumbers)
      .set({
        ...(patch.displayName !== undefined ? { displayName: patch.displayName.trim() } : {}),
        ...(patch.messagesPerSecond !== undefined ? { messagesPerSecond: patch.messagesPerSecond } : {}),
        ...(patch.isDefault !== undefined ? { isDefault: patch.isDefault } : {}),
        ...(patch.isActive !== undefined ? { isActive: patch.isActive } : {}),
        ...(patch.kind !== undefined ? { kind: patch.kind } : {}),
      })
      .where(eq(phoneNumbers.id, id))
      .run();
    return numberView(await getNumber(ctx, userId, id));
  });
}

/** Deletes one of the user's numbers; its messages stay, detached from it a chunk at a time first. */
export async function deleteNumber(ctx: AppContext, userId: string, id: string) {
  await getNumber(ctx, userId, id);
  await ctx.detachNumberMessages(id);
  await ctx.withTransaction(async () => {
    // Read again, in the transaction that deletes: the default may have moved (or the number gone) meanwhile.
    const current = await getNumber(ctx, userId, id);
    await ready(ctx.db);
    await ctx.records.delete(phoneNumbers).where(eq(phoneNumbers.id, id)).run();
    if (current.n.isDefault) {
      const next = await ctx.records.select({ id: phoneNumbers.id }).from(phoneNumbers).where(eq(phoneNumbers.userId, userId)).orderBy(asc(phoneNumbers.createdAt)).get();
      if (next) await ctx.records.update(phoneNumbers).set({ isDefault: true }).where(eq(phoneNumbers.id, next.id)).run();
    }
  });
}

/** A provider account's numbers (the messages sent through them are detached before the account is deleted). */
export async function numberIdsOfProvider(ctx: AppContext, providerId: string): Promise<string[]> {
  await ready(ctx.db);
  return (await ctx.records.select({ id: phoneNumbers.id }).from(phoneNumbers).where(eq(phoneNumbers.providerId, providerId)).all()).map((r) => r.id);
}

/** The account's first sender number, active or not: its country is the account's default country until one is chosen (ctx.firstSenderNumber). */
export async function firstNumberOf(ctx: AppContext, userId: string): Promise<string | undefined> {
  await ready(ctx.db);
  const first = await ctx.records
    .select({ phone: phoneNumbers.phoneNumber })
    .from(phoneNumbers)
    .where(eq(phoneNumbers.userId, userId))
    .orderBy(asc(phoneNumbers.createdAt))
    .limit(1)
    .get();
  return first?.phone;
}

// Prepared once: the sender is chosen for each pass of drip steps (10,000 may fall due in the same minute) and each
// one-off send, and drizzle building and SQLite compiling the query each time cost more than running it.
const activeNumbers = preparedPerDb((db: RecordsDb) =>
  db
    .select()
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.userId, sql.placeholder("userId")), eq(phoneNumbers.isActive, true)))
    .orderBy(asc(phoneNumbers.createdAt))
    .prepare(),
);

/**
 * The sender for a message: the number asked for (by its number or id), else the default number, else any
 * active one. Only active numbers of active accounts send. Null when the user has none.
 */
export async function chooseSender(ctx: AppContext, userId: string, wanted?: string | null): Promise<Joined | null> {
  // An account has a handful of numbers (the plan limits them): read them all, keep those whose account is active.
  await ready(ctx.db);
  const active = await activeNumbers(ctx.records).all({ userId });
  const usable = (await withProviders(ctx, active)).filter((c) => c.account.isActive);
  if (wanted) {
    const trimmed = wanted.trim();
    const compact = trimmed.replace(/[\s().\-]/g, "");
    const hit = usable.find((c) => c.n.id === trimmed || c.n.phoneNumber === compact || c.n.phoneNumber === trimmed);
    if (!hit) throw badRequest("The sender number is not one of your active numbers. Check Phone Settings.");
    return hit;
  }
  // The default number, else a number of the default account, else the oldest (the sort keeps createdAt order).
  const rank = (c: (typeof usable)[number]) => (c.n.isDefault ? 2 : 0) + (c.account.isDefault ? 1 : 0);
  return usable.sort((a, b) => rank(b) - rank(a))[0] ?? null;
}

/** A number by id, whoever's: the sending engine's lanes read their sender (messages/outbox-store.ts senderRegistry). */
export async function numberById(ctx: AppContext, id: string): Promise<PhoneNumberRow | undefined> {
  await ready(ctx.db);
  return ctx.records.select().from(phoneNumbers).where(eq(phoneNumbers.id, id)).get();
}

/** Every number of the account with its provider account, oldest first (the registration card lists them all). */
export async function numbersWithAccounts(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  const rows = await ctx.records.select().from(phoneNumbers).where(eq(phoneNumbers.userId, userId)).orderBy(asc(phoneNumbers.createdAt)).all();
  return withProviders(ctx, rows);
}

/** The accounts that have sender numbers (the periodic registration check visits each). */
export async function usersWithNumbers(ctx: AppContext): Promise<string[]> {
  await ready(ctx.db);
  return (await ctx.records.selectDistinct({ userId: phoneNumbers.userId }).from(phoneNumbers).all()).map((r) => r.userId);
}
