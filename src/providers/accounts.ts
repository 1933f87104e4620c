import { and, asc, count, eq, ne, sql, type SQL } from "drizzle-orm";
import { jsonValues } from "../../db/json-array";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { smsProviders, type ProviderKind, type SimulatorSettings } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { notFound } from "../http/errors";
import { holdAccount } from "../users/queries";
import { credentialHint, openCredentials, sealCredentials, webhookSecret } from "./credentials";
import type { Credentials } from "./types";

export type ProviderAccount = typeof smsProviders.$inferSelect;

export const SIMULATOR_DEFAULTS: SimulatorSettings = { deliveryDelayMs: 1000, failRate: 0, throttleRate: 0, errorRate: 0 };

const newId = () => Bun.randomUUIDv7();

/** Providers whose webhooks carry no signature: their URL carries the account's secret instead. */
export const URL_SECRET_PROVIDERS: ProviderKind[] = ["brevo", "textmagic", "clicksend", "simulator"];

/** The exact URL to give the provider for inbound messages and delivery reports. */
export function webhookUrl(ctx: AppContext, account: Pick<ProviderAccount, "id" | "userId" | "provider">): string {
  const base = `${ctx.config.publicUrl}/api/webhooks/${account.provider}/sms/${account.userId}`;
  return URL_SECRET_PROVIDERS.includes(account.provider) ? `${base}?key=${webhookSecret(ctx, account.id)}` : base;
}

export function simulatorSettings(account: ProviderAccount): SimulatorSettings {
  return { ...SIMULATOR_DEFAULTS, ...account.settings };
}

/** What any call may show of an account: never the credentials, at most their last 4 characters. */
export function providerView(ctx: AppContext, a: ProviderAccount) {
  return {
    id: a.id,
    provider: a.provider,
    displayName: a.displayName,
    credentialHint: a.credentialHint,
    isDefault: a.isDefault,
    isActive: a.isActive,
    messagesPerSecond: a.messagesPerSecond,
    simulated: a.provider === "simulator",
    settings: a.provider === "simulator" ? simulatorSettings(a) : {},
    webhookUrl: webhookUrl(ctx, a),
    createdAt: a.createdAt.toISOString(),
  };
}

export async function listProviders(ctx: AppContext, userId: string, page = 1, pageSize = 50) {
  await ready(ctx.db);
  const where = eq(smsProviders.userId, userId);
  const rows = await ctx.records
    .select()
    .from(smsProviders)
    .where(where)
    .orderBy(asc(smsProviders.createdAt), asc(smsProviders.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .all();
  const total = (await ctx.records.select({ n: count() }).from(smsProviders).where(where).get())!.n;
  return { data: rows.map((a) => providerView(ctx, a)), total, page, pageSize };
}

// Prepared once: every provider webhook (inbound messages, delivery reports) starts here.
const ofKind = preparedPerDb((db: RecordsDb) =>
  db
    .select()
    .from(smsProviders)
    .where(and(eq(smsProviders.userId, sql.placeholder("userId")), eq(smsProviders.provider, sql.placeholder("kind"))))
    .prepare(),
);

export async function providersOfKind(ctx: AppContext, userId: string, kind: ProviderKind): Promise<ProviderAccount[]> {
  await ready(ctx.db);
  return ofKind(ctx.records).all({ userId, kind });
}

/** An account of the user's; another user's id answers 404 exactly like a missing one. */
export async function getProvider(ctx: AppContext, userId: string, id: string): Promise<ProviderAccount> {
  return ownAccount(ctx, userId, id);
}

async function ownAccount(ctx: AppContext, userId: string, id: string): Promise<ProviderAccount> {
  await ready(ctx.db);
  const row = await ctx.records
    .select()
    .from(smsProviders)
    .where(and(eq(smsProviders.userId, userId), eq(smsProviders.id, id)))
    .get();
  if (!row) throw notFound("Provider not found");
  return row;
}

/**
 * Any user's account by id: the sending engine's senders and early reports, the reconciliation of messages a crash
 * cut off, an inbound item's copy, and adding a number (in its transaction).
 */
export async function findProviderById(ctx: AppContext, id: string): Promise<ProviderAccount | undefined> {
  await ready(ctx.db);
  return providerById(ctx.records).get({ id });
}

// Prepared once: the engine's lanes and records and every delivery report's account read it.
const providerById = preparedPerDb((db: RecordsDb) => db.select().from(smsProviders).where(eq(smsProviders.id, sql.placeholder("id"))).prepare());

// Prepared once, the ids passed as one JSON array: the sender choice reads its numbers' accounts for each pass of
// drip steps (10,000 may fall due in the same minute) and each one-off send.
const byIds = preparedPerDb((db: RecordsDb) => db.select().from(smsProviders).where(idInList(db)).prepare());

/**
 * `sms_providers.id IN` the JSON array of the placeholder `ids`, for a statement prepared on `db`: the engine's list
 * subquery (db/json-array.ts) around the placeholder.
 */
export function idInList(db: RecordsDb): SQL {
  const [before, after] = jsonValues(db).split("?");
  return sql`${smsProviders.id} IN (${sql.raw(before!)}${sql.placeholder("ids")}${sql.raw(after!)})`;
}

/** These accounts by id (a page of sender numbers' accounts: the ids go into one query). */
export async function providersByIds(ctx: AppContext, ids: string[]): Promise<Map<string, ProviderAccount>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  await ready(ctx.db);
  return new Map((await byIds(ctx.records).all({ ids: JSON.stringify(unique) })).map((a) => [a.id, a]));
}

export function providerCredentials(ctx: AppContext, account: ProviderAccount): Credentials {
  return openCredentials(ctx, account.credentialsEncrypted);
}

export async function createProvider(
  ctx: AppContext,
  userId: string,
  input: { provider: ProviderKind; displayName: string; credentials: Credentials; isDefault: boolean; messagesPerSecond: number | null },
): Promise<ProviderAccount> {
  const id = newId();
  return ctx.withTransaction(async () => {
    // On PostgreSQL two transactions would read the default at once: the account's row held first orders them.
    await holdAccount(ctx, userId);
    const hasDefault = await ctx.records
      .select({ id: smsProviders.id })
      .from(smsProviders)
      .where(and(eq(smsProviders.userId, userId), eq(smsProviders.isDefault, true)))
      .get();
    const isDefault = input.isDefault || !hasDefault;
    if (isDefault) await ctx.records.update(smsProviders).set({ isDefault: false }).where(eq(smsProviders.userId, userId)).run();
    return ctx.records
      .insert(smsProviders)
      .values({
        id,
        userId,
        provider: input.provider,
        displayName: input.displayName,
        credentialsEncrypted: sealCredentials(ctx, input.credentials),
        credentialHint: credentialHint(input.provider, input.credentials),
        messagesPerSecond: input.messagesPerSecond,
        settings: input.provider === "simulator" ? SIMULATOR_DEFAULTS : {},
        isDefault,
        createdAt: new Date(ctx.now()),
      })
      .returning()
      .get();
  });
}

export async function updateProvider(
  ctx: AppContext,
  userId: string,
  id: string,
  patch: { displayName?: string; isDefault?: boolean; isActive?: boolean; messagesPerSecond?: number | null; settings?: Partial<SimulatorSettings> },
): Promise<ProviderAccount> {
  return ctx.withTransaction(async () => {
    // Read in the transaction that writes: the simulator's settings are merged over the ones it holds now.
    const current = await ownAccount(ctx, userId, id);
    if (patch.isDefault) await ctx.records.update(smsProviders).set({ isDefault: false }).where(and(eq(smsProviders.userId, userId), ne(smsProviders.id, id))).run();
    const updated = await ctx.records
      .update(smsProviders)
      .set({
        ...(patch.displayName !== undefined ? { displayName: patch.displayName } : {}),
        ...(patch.isDefault !== undefined ? { isDefault: patch.isDefault } : {}),
        ...(patch.isActive !== undefined ? { isActive: patch.isActive } : {}),
        ...(patch.messagesPerSecond !== undefined ? { messagesPerSecond: patch.messagesPerSecond } : {}),
        ...(patch.settings && current.provider === "simulator" ? { settings: { ...simulatorSettings(current), ...patch.settings } } : {}),
      })
      .where(eq(smsProviders.id, id))
      .returning()
      .get();
    return updated!;
  });
}

/**
 * Deletes one of the user's provider accounts (its numbers go with it); the next oldest account becomes the default.
 * Their messages stay, detached a chunk at a time first.
 */
export async function deleteProvider(ctx: AppContext, userId: string, id: string) {
  await ownAccount(ctx, userId, id);
  await ctx.detachProviderMessages(id);
  await ctx.withTransaction(async () => {
    // Read again, in the transaction that deletes: the default may have moved (or the account gone) meanwhile.
    const current = await ownAccount(ctx, userId, id);
    await ctx.records.delete(smsProviders).where(eq(smsProviders.id, id)).run();
    if (current.isDefault) {
      const next = await ctx.records.select({ id: smsProviders.id }).from(smsProviders).where(eq(smsProviders.userId, userId)).orderBy(asc(smsProviders.createdAt)).get();
      if (next) await ctx.records.update(smsProviders).set({ isDefault: true }).where(eq(smsProviders.id, next.id)).run();
    }
  });
}

/** The kinds of provider some account uses: `smsdesk doctor` checks this machine reaches their APIs. */
export async function providerKindsInUse(ctx: AppContext): Promise<ProviderKind[]> {
  await ready(ctx.db);
  return (await ctx.records.selectDistinct({ provider: smsProviders.provider }).from(smsProviders).all()).map((r) => r.provider);
}
