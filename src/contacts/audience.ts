import { and, eq, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { contacts, type CampaignAudience } from "../../db/schema";
import type { AppContext } from "../context";
import { preparedPerDb } from "../../db/prepared";
import { ready } from "../../db/transaction";

/**
 * A campaign's audience over the contacts table (src/campaigns/audiences.ts composes it): the presets' condition,
 * and the reads of the contacts a condition chooses (counted, listed, a rowid window at a time, grouped by zone).
 */

const DAY = 86_400_000;

/** What an audience's condition needs from other owners: a segment's condition, and a phone's texts since an instant. */
export type AudienceParts = {
  segment(segmentId: string): SQL;
  repliesSince(phone: AnyColumn, since: number): SQL;
};

/**
 * The audience presets as DECISIONS.md defines them, over subscribed contacts with a phone (less those who only
 * texted in and never opted in: a conversation is not marketing consent):
 * all; recent = added in the last 30 days; new = added in the last 7 days; loyal = 3 or more inbound messages in
 * the last 90 days, or tagged 'loyal'.
 */
export function audienceWhere(userId: string, audience: CampaignAudience, now: number, parts: AudienceParts): SQL {
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
          OR ${parts.repliesSince(contacts.phone, now - 90 * DAY)} >= 3)`,
      )!;
    case "contacts":
      if (!audience.contactIds.length) return sql`0`;
      return and(base, sql`${contacts.id} IN (SELECT value FROM json_each(${JSON.stringify(audience.contactIds)}))`)!;
    case "segment":
      return and(base, parts.segment(audience.segmentId))!;
    case "manual":
      return sql`0`;
  }
}

export async function countAudience(ctx: AppContext, where: SQL): Promise<number> {
  await ready(ctx.db);
  return ctx.db.select({ n: sql<number>`count(*)` }).from(contacts).where(where).get()!.n;
}

export type AudienceContact = { id: string; phone: string; first_name: string; last_name: string; email: string | null; custom_fields: string };

/** The contacts a condition chooses, for writing the outbox (streamed by the caller in one transaction). */
export async function audienceContactsWhere(ctx: AppContext, where: SQL): Promise<AudienceContact[]> {
  await ready(ctx.db);
  return ctx.db
    .select({ id: contacts.id, phone: sql<string>`${contacts.phone}`, first_name: contacts.firstName, last_name: contacts.lastName, email: contacts.email, custom_fields: sql<string>`${contacts.customFields}` })
    .from(contacts)
    .where(where)
    .all();
}

/** How many contacts a condition chooses, counted no further than `cap` (a bounded read however large it is). */
export async function countAudienceUpTo(ctx: AppContext, where: SQL, cap: number): Promise<number> {
  await ready(ctx.db);
  const inner = ctx.db.select({ one: sql`1` }).from(contacts).where(where).limit(cap);
  return ctx.db.select({ n: sql<number>`count(*)` }).from(inner.as("capped")).get()!.n;
}

// Prepared once: every chunk of a campaign's outbox asks.
const maxContactRowid = preparedPerDb((db) => db.select({ n: sql<number | null>`max(${contacts}.rowid)` }).from(contacts).prepare());

/** The highest contacts rowid: where an audience read in rowid windows ends. */
export async function lastContactRowid(ctx: AppContext): Promise<number> {
  await ready(ctx.db);
  return maxContactRowid(ctx.db).get()!.n ?? 0;
}

/**
 * The contacts a condition chooses whose rowid is in (after, upTo], in rowid order: one chunk of a large campaign,
 * read by rowid range (NOT INDEXED: the planner would otherwise walk the account's every contact by its user index
 * and sort them, per chunk), so each costs at most upTo - after rows whatever the audience's size.
 */
export async function audienceContactsInRowids(ctx: AppContext, where: SQL, after: number, upTo: number): Promise<AudienceContact[]> {
  await ready(ctx.db);
  // Through the records' raw statements, whose text (the same for every chunk of a campaign: the window's bounds are
  // parameters) keeps its compiled statement; drizzle's own `all` had SQLite compile it again for each chunk.
  return ctx.records.$rows<AudienceContact>(
    sql`SELECT ${contacts.id} AS id, ${contacts.phone} AS phone, ${contacts.firstName} AS first_name, ${contacts.lastName} AS last_name,
          ${contacts.email} AS email, ${contacts.customFields} AS custom_fields
        FROM ${contacts} NOT INDEXED
        WHERE ${contacts}.rowid > ${after} AND ${contacts}.rowid <= ${upTo} AND ${where}
        ORDER BY ${contacts}.rowid`,
  );
}

/**
 * North American numbers grouped by area code (recipient-zone decides their zone by it alone), any other number on
 * its own; so a list of a million customers is a few hundred groups, each with one zone.
 */
const ZONE_GROUP = sql`CASE WHEN length(${contacts.phone}) = 12 AND substr(${contacts.phone}, 2, 1) = '1' THEN substr(${contacts.phone}, 1, 5) ELSE ${contacts.phone} END`;

/**
 * The contacts a condition chooses, grouped by zone (`k`) with the lowest phone of each group: all of them, or those
 * whose rowid is in (after, upTo] (NOT INDEXED, as audienceContactsInRowids).
 */
export async function zoneGroupsWhere(ctx: AppContext, where: SQL, window?: { after: number; upTo: number }): Promise<{ k: string; phone: string; n: number }[]> {
  await ready(ctx.db);
  const condition = window ? sql`${contacts}.rowid > ${window.after} AND ${contacts}.rowid <= ${window.upTo} AND ${where}` : where;
  const from = window ? sql`${contacts} NOT INDEXED` : sql`${contacts}`;
  return ctx.db.all<{ k: string; phone: string; n: number }>(sql`SELECT ${ZONE_GROUP} AS k, min(${contacts.phone}) AS phone, count(*) AS n FROM ${from} WHERE ${condition} GROUP BY k`);
}

/**
 * The first contact a condition chooses in the order contacts were added (the outbox is written in that order;
 * without an order the planner's index chose, and the lowest number came first): a preview's sample.
 */
export async function firstAudienceContact(ctx: AppContext, where: SQL) {
  await ready(ctx.db);
  return ctx.db
    .select({ phone: sql<string>`${contacts.phone}`, firstName: contacts.firstName, lastName: contacts.lastName, email: contacts.email, customFields: contacts.customFields })
    .from(contacts)
    .where(where)
    .orderBy(contacts.createdAt, sql`${contacts}.rowid`)
    .limit(1)
    .get();
}
