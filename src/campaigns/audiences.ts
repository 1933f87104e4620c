import { and, eq, sql, type SQL } from "drizzle-orm";
import { contacts, type CampaignAudience } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { inboundCountSince } from "../messages/stats";
import { compileConditions } from "../segments/conditions";
import { findSegment } from "../segments/segments";

const DAY = 86_400_000;

/**
 * The audience presets as DECISIONS.md defines them, over subscribed contacts with a phone (less those who only
 * texted in and never opted in: a conversation is not marketing consent):
 * all; recent = added in the last 30 days; new = added in the last 7 days; loyal = 3 or more inbound messages in
 * the last 90 days, or tagged 'loyal'.
 */
export function audienceCondition(ctx: AppContext, userId: string, audience: CampaignAudience): SQL {
  const now = ctx.now();
  const base = and(
    eq(contacts.userId, userId),
    eq(contacts.status, "subscribed"),
    sql`${contacts.phone} IS NOT NULL`,
    sql`NOT (${contacts.source} = 'inbound' AND ${contacts.optInDate} IS NULL)`,
  )!;
  switch (audience.kind) {
    case "all":
      return base;
    case "recent":
      return and(base, sql`${contacts.createdAt} >= ${now - 30 * DAY}`)!;
    case "new":
      return and(base, sql`${contacts.createdAt} >= ${now - 7 * DAY}`)!;
    case "loyal":
      return and(
        base,
        sql`(EXISTS (SELECT 1 FROM json_each(${contacts.tags}) WHERE lower(value) = 'loyal')
          OR ${inboundCountSince(userId, contacts.phone, now - 90 * DAY)} >= 3)`,
      )!;
    case "contacts":
      if (!audience.contactIds.length) return sql`0`;
      return and(base, sql`${contacts.id} IN (SELECT value FROM json_each(${JSON.stringify(audience.contactIds)}))`)!;
    case "segment": {
      const segment = findSegment(ctx, userId, audience.segmentId);
      if (!segment) throw badRequest("The chosen segment no longer exists");
      return and(base, compileConditions(segment.conditions, now, userId))!;
    }
    case "manual":
      return sql`0`;
  }
}

export function audienceCount(ctx: AppContext, userId: string, audience: CampaignAudience): number {
  return ctx.db.select({ n: sql<number>`count(*)` }).from(contacts).where(audienceCondition(ctx, userId, audience)).get()!.n;
}

/** Exact counts of the wizard's presets. */
export function presetCounts(ctx: AppContext, userId: string) {
  const count = (kind: "all" | "recent" | "loyal" | "new") => audienceCount(ctx, userId, { kind });
  return { all: count("all"), recent: count("recent"), loyal: count("loyal"), new: count("new") };
}

export type AudienceContact = { id: string; phone: string; first_name: string; last_name: string; email: string | null; custom_fields: string };

/** The contacts of an audience, for writing the outbox (streamed by the caller in one transaction). */
export function audienceContacts(ctx: AppContext, userId: string, audience: CampaignAudience): AudienceContact[] {
  return ctx.db
    .select({ id: contacts.id, phone: sql<string>`${contacts.phone}`, first_name: contacts.firstName, last_name: contacts.lastName, email: contacts.email, custom_fields: sql<string>`${contacts.customFields}` })
    .from(contacts)
    .where(audienceCondition(ctx, userId, audience))
    .all();
}

/** How many contacts an audience has, counted no further than `cap` (a bounded read however large it is). */
export function audienceCountUpTo(ctx: AppContext, userId: string, audience: CampaignAudience, cap: number): number {
  const inner = ctx.db.select({ one: sql`1` }).from(contacts).where(audienceCondition(ctx, userId, audience)).limit(cap);
  return ctx.db.select({ n: sql<number>`count(*)` }).from(inner.as("capped")).get()!.n;
}

/** The highest contacts rowid: where an audience read in rowid windows ends. */
export function lastContactRowid(ctx: AppContext): number {
  return ctx.db.select({ n: sql<number | null>`max(${contacts}.rowid)` }).from(contacts).get()!.n ?? 0;
}

/**
 * The audience's contacts whose rowid is in (after, upTo], in rowid order: one chunk of a large campaign, read by
 * rowid range (NOT INDEXED: the planner would otherwise walk the account's every contact by its user index and
 * sort them, per chunk), so each costs at most upTo - after rows whatever the audience's size.
 */
export function audienceContactsInWindow(ctx: AppContext, userId: string, audience: CampaignAudience, after: number, upTo: number): AudienceContact[] {
  return ctx.db.all<AudienceContact>(
    sql`SELECT ${contacts.id} AS id, ${contacts.phone} AS phone, ${contacts.firstName} AS first_name, ${contacts.lastName} AS last_name,
          ${contacts.email} AS email, ${contacts.customFields} AS custom_fields
        FROM ${contacts} NOT INDEXED
        WHERE ${contacts}.rowid > ${after} AND ${contacts}.rowid <= ${upTo} AND ${audienceCondition(ctx, userId, audience)}
        ORDER BY ${contacts}.rowid`,
  );
}
