import { jsonValues } from "../../db/json-array";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/**
 * A campaign's A/B test messages read back by variant (issue 32 item 3): the campaigns flow composes them with the
 * clicks into each variant's figures. Only test messages carry a variant (messages.ab_variant); the winner's
 * messages to the rest of the audience do not.
 */

/** The test messages by variant and status, with how many of each never reached a provider (no sent_at). */
export async function abVariantStatusCounts(ctx: AppContext, campaignId: string) {
  await ready(ctx.db);
  return ctx.records.$rows<{ variant: number; status: string; n: number; unsent: number }>(
    `SELECT ab_variant AS variant, status, count(*) AS n, count(CASE WHEN sent_at IS NULL THEN 1 END) AS unsent FROM messages
     WHERE campaign_id = ? AND ab_variant IS NOT NULL GROUP BY ab_variant, status`,
    [campaignId],
  );
}

/**
 * The variant of each of these messages that is one of the campaign's test messages, by message id (the messages
 * clicked, joined with their clicks): looked up by id, not every test message read.
 */
export async function abVariantOfMessages(ctx: AppContext, campaignId: string, messageIds: string[]): Promise<Map<string, number>> {
  if (!messageIds.length) return new Map();
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ id: string; variant: number }>(
    `SELECT id, ab_variant AS variant FROM messages WHERE id IN (${jsonValues(ctx.records)}) AND campaign_id = ? AND ab_variant IS NOT NULL`,
    [JSON.stringify(messageIds), campaignId],
  );
  return new Map(rows.map((r) => [r.id, r.variant]));
}

/**
 * Per variant, how many test recipients replied: an inbound text from the recipient's phone to the account after
 * their message was sent and within `windowMs` of it (and no later than `until`), an opt-out word (`optOutWords`,
 * upper case) not counted as a reply. Each recipient counts once.
 */
export async function abVariantRepliers(ctx: AppContext, campaignId: string, windowMs: number, until: number, optOutWords: string[]): Promise<Map<number, number>> {
  await ready(ctx.db);
  // Two bounds rather than SQLite's scalar min(), which PostgreSQL lacks.
  const rows = await ctx.records.$rows<{ variant: number; n: number }>(
    `SELECT m.ab_variant AS variant, count(*) AS n FROM messages m
     WHERE m.campaign_id = ? AND m.ab_variant IS NOT NULL AND m.sent_at IS NOT NULL
       AND EXISTS (SELECT 1 FROM messages i WHERE i.user_id = m.user_id AND i.phone = m.phone AND i.direction = 'inbound'
         AND i.created_at > m.sent_at AND i.created_at <= m.sent_at + ? AND i.created_at <= ?
         AND upper(trim(i.content)) NOT IN (${jsonValues(ctx.records)}))
     GROUP BY m.ab_variant`,
    [campaignId, windowMs, until, JSON.stringify(optOutWords)],
  );
  return new Map(rows.map((r) => [r.variant, r.n]));
}
