import { sql, type SQL } from "drizzle-orm";
import { contactPurchases, contacts } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import type { Engine } from "./engine-sql";
import type { IndexedFilter } from "./search";

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
 * case (op contains).
 * - drive true, for a count (countContactsWhere with byTag): the tag's contacts listed first from contact_tags
 *   (migration 0064), so SQLite reads those contacts rather than every contact of the owner and its JSON tags.
 *   For contains, the account's distinct tags (a small set) are found by a skip scan of the table's key, one
 *   lookup a tag, then the rows of those that match.
 * - drive false (a page in date order, one contact's check): each contact read tested by json_each over its tags,
 *   which measured faster there than a lookup of contact_tags's key per contact (scripts/bench/tag-segments.ts).
 * On PostgreSQL the tags are read as jsonb and the account's matching tags from contact_tags's key directly (its
 * planner skips no scan by itself; the key's (user_id, tag) prefix is read once).
 */
export function tagCondition(engine: Engine, userId: string, op: "eq" | "contains", tag: string, drive = false): SQL {
  if (engine === "postgres") {
    if (!drive)
      return op === "eq"
        ? sql`${contacts.tags}::jsonb @> jsonb_build_array(${tag}::text)`
        : sql`EXISTS (SELECT 1 FROM jsonb_array_elements_text(${contacts.tags}::jsonb) AS t(value) WHERE strpos(lower(value), lower(${tag})) > 0)`;
    const matching = op === "eq" ? sql`tag = ${tag}` : sql`strpos(lower(tag), lower(${tag})) > 0`;
    return sql`${contacts}.rowid IN (SELECT contact_rowid FROM contact_tags WHERE user_id = ${userId} AND ${matching})`;
  }
  if (!drive)
    return op === "eq"
      ? sql`EXISTS (SELECT 1 FROM json_each(${contacts.tags}) WHERE value = ${tag})`
      : sql`EXISTS (SELECT 1 FROM json_each(${contacts.tags}) WHERE instr(lower(value), lower(${tag})) > 0)`;
  const tags =
    op === "eq"
      ? sql`tag = ${tag}`
      : sql`tag IN (
    WITH RECURSIVE t(tag) AS (
      SELECT (SELECT min(tag) FROM contact_tags WHERE user_id = ${userId})
      UNION ALL SELECT (SELECT min(tag) FROM contact_tags WHERE user_id = ${userId} AND tag > t.tag) FROM t WHERE t.tag IS NOT NULL)
    SELECT tag FROM t WHERE instr(lower(tag), lower(${tag})) > 0)`;
  return sql`${contacts}.rowid IN (SELECT contact_rowid FROM contact_tags WHERE user_id = ${userId} AND ${tags})`;
}

/**
 * How many of the user's contacts tagCondition finds, read from contact_tags's key alone: for a segment whose only
 * condition is one tag operator, where even a list of a common tag's contacts (300,000 of a million) costs a
 * second looked up contact by contact. Each row of contact_tags is a stored contact's (the triggers remove them
 * with it).
 */
export async function countTagged(ctx: AppContext, userId: string, op: "eq" | "contains", tag: string): Promise<number> {
  await ready(ctx.db);
  const counted =
    op === "eq"
      ? sql`SELECT count(*) AS n FROM contact_tags WHERE user_id = ${userId} AND tag = ${tag}`
      : ctx.records.$engine === "sqlite"
        ? sql`WITH RECURSIVE t(tag) AS (
             SELECT (SELECT min(tag) FROM contact_tags WHERE user_id = ${userId})
             UNION ALL SELECT (SELECT min(tag) FROM contact_tags WHERE user_id = ${userId} AND tag > t.tag) FROM t WHERE t.tag IS NOT NULL)
           SELECT count(DISTINCT contact_rowid) AS n FROM contact_tags
           WHERE user_id = ${userId} AND tag IN (SELECT tag FROM t WHERE instr(lower(tag), lower(${tag})) > 0)`
        : sql`SELECT count(DISTINCT contact_rowid) AS n FROM contact_tags WHERE user_id = ${userId} AND strpos(lower(tag), lower(${tag})) > 0`;
  return (await ctx.records.$rows<{ n: number }>(counted))[0]!.n;
}

/**
 * A one-tag condition as the contact list reads it (searchPage's IndexedFilter): its contacts counted up to a cap
 * from contact_tags's key alone (a 1% tag's 10,001 in a million walked contact by contact took 0.7-1.5 s), and the
 * condition driven by contact_tags. For one tag exactly (eq), `inCreationOrder` reads a page of its contacts in
 * creation order from the key too (user_id, tag, created_at, contact_rowid: migration 0079), as the list orders them.
 * Builds the filter and runs nothing: each read is a record of its own, run when the list asks.
 */
export async function taggedFilter(ctx: AppContext, userId: string, op: "eq" | "contains", tag: string): Promise<IndexedFilter> {
  const counted = async (cap: number) => {
    if (op !== "eq") return Math.min(cap, await countTagged(ctx, userId, op, tag));
    await ready(ctx.db);
    const [{ n }] = (await ctx.records.$rows<{ n: number }>(
      "SELECT count(*) AS n FROM (SELECT 1 FROM contact_tags WHERE user_id = ? AND tag = ? LIMIT ?) AS m",
      [userId, tag, cap],
    )) as [{ n: number }];
    return n;
  };
  const inCreationOrder =
    op === "eq"
      ? async (order: "asc" | "desc", limit: number, offset: number) => {
          await ready(ctx.db);
          const dir = order === "asc" ? "ASC" : "DESC";
          const rows = await ctx.records.$rows<{ r: number }>(
            `SELECT contact_rowid AS r FROM contact_tags WHERE user_id = ? AND tag = ? ORDER BY created_at ${dir}, contact_rowid ${dir} LIMIT ? OFFSET ?`,
            [userId, tag, limit, offset],
          );
          return rows.map((x) => x.r);
        }
      : undefined;
  return { counted, driven: tagCondition(ctx.records.$engine, userId, op, tag, true), inCreationOrder };
}

/** A custom field's value (customFields.<name>), as text. */
export const customFieldColumn = (engine: Engine, name: string): SQL =>
  engine === "sqlite" ? sql`json_extract(${contacts.customFields}, ${"$." + JSON.stringify(name)})` : sql`(${contacts.customFields}::jsonb ->> ${name}::text)`;
