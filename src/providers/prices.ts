/**
 * What a provider account charges per SMS segment, for the cost estimate before sending and the spend on the
 * dashboards. No provider API reports its price, so the user sets it per account; until then the provider's list
 * price for a US long-code segment stands in, marked as a default. Prices are in millionths of a dollar. Each sent
 * message keeps the price of its day (`pricesNow`, recorded by the outbox store): a new price changes estimates and
 * what is sent from then on, never past spend.
 */
import { and, asc, eq } from "drizzle-orm";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { smsProviders, type ProviderKind } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { idInList } from "./accounts";
import { cannotSendMms, DEFAULT_MMS_PRICE_MICROS } from "../../shared/providers/mms";

/** List prices per outbound US segment (late 2025); a starting point the user is told to replace with their own. */
export const DEFAULT_SEGMENT_PRICE_MICROS: Record<ProviderKind, number> = {
  twilio: 8_300,
  telnyx: 4_000,
  brevo: 9_000,
  textmagic: 49_000,
  clicksend: 25_000,
  // The simulator sends nothing and costs nothing.
  simulator: 0,
};

export type SegmentPrice = {
  providerId: string;
  provider: ProviderKind;
  displayName: string;
  /** What estimates and spend use: the user's price, else the default. */
  priceMicros: number;
  /** The user's own price; null: the default applies. */
  customPriceMicros: number | null;
  defaultPriceMicros: number;
  /** What one MMS costs (estimates, spend): the user's price, else the default; null: the provider sends no MMS. */
  mmsPriceMicros: number | null;
  /** The user's own price per MMS; null: the default applies. */
  customMmsPriceMicros: number | null;
  defaultMmsPriceMicros: number | null;
};

/** An account's price per MMS: its own, else the provider's list price; null for a provider that sends no MMS. */
const mmsPriceOf = (provider: ProviderKind, custom: number | null) => (DEFAULT_MMS_PRICE_MICROS[provider] === null ? null : (custom ?? DEFAULT_MMS_PRICE_MICROS[provider]));

/** Every provider account of the user with its price per segment. */
export async function segmentPrices(ctx: AppContext, userId: string): Promise<SegmentPrice[]> {
  return pricesOf(ctx, userId);
}

async function pricesOf(ctx: AppContext, userId: string): Promise<SegmentPrice[]> {
  await ready(ctx.db);
  const rows = await ctx.records
    .select({
      id: smsProviders.id,
      provider: smsProviders.provider,
      displayName: smsProviders.displayName,
      custom: smsProviders.segmentPriceMicros,
      customMms: smsProviders.mmsPriceMicros,
    })
    .from(smsProviders)
    .where(eq(smsProviders.userId, userId))
    .orderBy(asc(smsProviders.createdAt), asc(smsProviders.id))
    .all();
  return rows.map((a) => ({
      providerId: a.id,
      provider: a.provider,
      displayName: a.displayName,
      priceMicros: a.custom ?? DEFAULT_SEGMENT_PRICE_MICROS[a.provider],
      customPriceMicros: a.custom,
      defaultPriceMicros: DEFAULT_SEGMENT_PRICE_MICROS[a.provider],
      mmsPriceMicros: mmsPriceOf(a.provider, a.customMms),
      customMmsPriceMicros: a.customMms,
      defaultMmsPriceMicros: DEFAULT_MMS_PRICE_MICROS[a.provider],
    }));
}

// Prepared once, the ids as one JSON array: the outbox store reads them for every batch of outcomes it records.
const pricesOfIds = preparedPerDb((db: RecordsDb) =>
  db.select({ id: smsProviders.id, provider: smsProviders.provider, custom: smsProviders.segmentPriceMicros }).from(smsProviders).where(idInList(db)).prepare(),
);
const mmsPricesOfIds = preparedPerDb((db: RecordsDb) =>
  db.select({ id: smsProviders.id, provider: smsProviders.provider, custom: smsProviders.mmsPriceMicros }).from(smsProviders).where(idInList(db)).prepare(),
);

/**
 * The price per segment of each of the provider accounts, as it stands now, by id (an account since deleted has
 * none): what the outbox store records on each message the provider accepts, so past spend keeps its own prices.
 */
export async function pricesNow(ctx: AppContext, providerIds: string[]): Promise<Map<string, number>> {
  if (!providerIds.length) return new Map();
  await ready(ctx.db);
  const rows = await pricesOfIds(ctx.records).all({ ids: JSON.stringify(providerIds) });
  return new Map(rows.map((a) => [a.id, a.custom ?? DEFAULT_SEGMENT_PRICE_MICROS[a.provider]]));
}

/** Sets (or, with null, clears back to the default) one account's price; another user's account answers 404. */
export async function setSegmentPrice(ctx: AppContext, userId: string, providerId: string, micros: number | null): Promise<SegmentPrice> {
  await ready(ctx.db);
  const changed = await ctx.records
    .update(smsProviders)
    .set({ segmentPriceMicros: micros })
    .where(and(eq(smsProviders.userId, userId), eq(smsProviders.id, providerId)))
    .returning({ id: smsProviders.id })
    .get();
  if (!changed) throw notFound("SMS provider not found");
  return (await pricesOf(ctx, userId)).find((p) => p.providerId === providerId)!;
}

/** Sets (or, with null, clears back to the default) one account's price per MMS; 400 for a provider that sends none. */
export async function setMmsPrice(ctx: AppContext, userId: string, providerId: string, micros: number | null): Promise<SegmentPrice> {
  await ready(ctx.db);
  const account = (await pricesOf(ctx, userId)).find((p) => p.providerId === providerId);
  if (!account) throw notFound("SMS provider not found");
  const refusal = cannotSendMms(account.provider);
  if (refusal) throw badRequest(refusal);
  await ctx.records.update(smsProviders).set({ mmsPriceMicros: micros }).where(and(eq(smsProviders.userId, userId), eq(smsProviders.id, providerId))).run();
  return (await pricesOf(ctx, userId)).find((p) => p.providerId === providerId)!;
}

/**
 * The price per MMS of each provider account, by id: its own, else the provider's list price
 * (DEFAULT_MMS_PRICE_MICROS), recorded on each MMS the provider accepts as the SMS price is on a text.
 */
export async function mmsPricesNow(ctx: AppContext, providerIds: string[]): Promise<Map<string, number>> {
  if (!providerIds.length) return new Map();
  await ready(ctx.db);
  const rows = await mmsPricesOfIds(ctx.records).all({ ids: JSON.stringify(providerIds) });
  return new Map(rows.flatMap((a) => {
    const price = mmsPriceOf(a.provider, a.custom);
    return price === null ? [] : [[a.id, price] as const];
  }));
}
