import { sql, type SQL } from "drizzle-orm";
import { contacts } from "../../db/schema";

/**
 * The contact fields a segment filters on, as SQL over the contacts table: the contacts domain owns its columns,
 * the segments domain (src/segments/conditions.ts) builds conditions from these.
 */
export const FILTER_FIELDS = {
  totalSpent: { col: sql`${contacts.totalSpent}`, kind: "number" },
  engagementScore: { col: sql`${contacts.engagementScore}`, kind: "number" },
  optInDate: { col: sql`${contacts.optInDate}`, kind: "date" },
  lastEngaged: { col: sql`${contacts.lastEngagedAt}`, kind: "date" },
  tags: { col: sql`${contacts.tags}`, kind: "tags" },
  source: { col: sql`${contacts.source}`, kind: "text" },
} as const satisfies Record<string, { col: SQL; kind: FilterKind }>;

export type FilterKind = "number" | "date" | "tags" | "text";

/** A custom field's value (customFields.<name>), as text. */
export const customFieldColumn = (name: string): SQL =>
  sql`json_extract(${contacts.customFields}, ${"$." + JSON.stringify(name)})`;
