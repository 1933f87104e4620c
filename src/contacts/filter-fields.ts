import { sql, type SQL } from "drizzle-orm";
import { contactPurchases, contacts } from "../../db/schema";

const DAY = 86_400_000;

/**
 * The contact fields a segment filters on, as SQL over the contacts table at a given time: the contacts domain owns
 * its columns, the segments domain (src/segments/conditions.ts) builds conditions from these.
 * - lastEngaged: a contact that never replied counts from when it joined (opted in, else was added), so "no
 *   engagement in the last 60 days" finds those who never answered, where a missing date matched nothing.
 * - purchases90d: purchases reported in the 90 days before `now` (src/contacts/engagement.ts).
 */
export const FILTER_FIELDS = {
  totalSpent: { col: () => sql`${contacts.totalSpent}`, kind: "number" },
  engagementScore: { col: () => sql`${contacts.engagementScore}`, kind: "number" },
  optInDate: { col: () => sql`${contacts.optInDate}`, kind: "date" },
  lastEngaged: { col: () => sql`coalesce(${contacts.lastEngagedAt}, ${contacts.optInDate}, ${contacts.createdAt})`, kind: "date" },
  purchases90d: {
    col: (now: number) =>
      sql`(SELECT count(*) FROM ${contactPurchases} WHERE ${contactPurchases.contactId} = ${contacts.id} AND ${contactPurchases.purchasedAt} >= ${now - 90 * DAY})`,
    kind: "number",
  },
  tags: { col: () => sql`${contacts.tags}`, kind: "tags" },
  source: { col: () => sql`${contacts.source}`, kind: "text" },
} as const satisfies Record<string, FilterField>;

/** The contact's id, for conditions other domains build about a contact (src/links/filter-fields.ts). */
export const CONTACT_ID = sql`${contacts.id}`;

export type FilterKind = "number" | "date" | "tags" | "text";
/** A field's SQL at the time the segment is counted, and how its values compare. */
export type FilterField = { col: (now: number) => SQL; kind: FilterKind };

/**
 * The user's contacts with a tag (op eq: exactly `tag`, case and all) or with a tag that holds `tag` without regard to
 * case (op contains), read from contact_tags (migration 0064) as json_each over each contact's tags matched them,
 * without reading every contact. For contains, the account's distinct tags (a small set) are found first by a skip
 * scan of the table's key, one lookup a tag, then the contacts of those that match.
 */
export function tagCondition(userId: string, op: "eq" | "contains", tag: string): SQL {
  if (op === "eq") return sql`${contacts.id} IN (SELECT contact_id FROM contact_tags WHERE user_id = ${userId} AND tag = ${tag})`;
  return sql`${contacts.id} IN (SELECT contact_id FROM contact_tags WHERE user_id = ${userId} AND tag IN (
    WITH RECURSIVE t(tag) AS (
      SELECT (SELECT min(tag) FROM contact_tags WHERE user_id = ${userId})
      UNION ALL SELECT (SELECT min(tag) FROM contact_tags WHERE user_id = ${userId} AND tag > t.tag) FROM t WHERE t.tag IS NOT NULL)
    SELECT tag FROM t WHERE instr(lower(tag), lower(${tag})) > 0))`;
}

/** A custom field's value (customFields.<name>), as text. */
export const customFieldColumn = (name: string): SQL =>
  sql`json_extract(${contacts.customFields}, ${"$." + JSON.stringify(name)})`;
