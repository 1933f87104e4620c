import { sql, type SQL } from "drizzle-orm";
import type { Engine } from "../contacts/engine-sql";
import { CONTACT_ID, customFieldColumn, FILTER_FIELDS, tagCondition, type FilterField } from "../contacts/filter-fields";
import { badRequest } from "../http/errors";
import { clickedCampaign, lastClickedColumn } from "../links/filter-fields";

export type Conditions = Record<string, Record<string, unknown>>;
const FIELDS: Record<string, FilterField> = { ...FILTER_FIELDS, lastClicked: { col: () => lastClickedColumn(CONTACT_ID), kind: "date" } };
const OPS = ["gte", "lte", "eq", "contains"] as const;
const DAY = 86_400_000;
/** Bounds of a segment: far above what the segment builder produces, far below what would cost time to check. */
export const MAX_CONDITION_FIELDS = 20;
const MAX_FIELD_LENGTH = 100;
const MAX_VALUE_LENGTH = 200;

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * The shape and bounds of conditions sent by a caller, checked before anything else reads them: an object of at
 * most MAX_CONDITION_FIELDS fields, each an object of known operators to a short string, a finite number or a
 * boolean. The request schema takes `conditions` as any JSON value, because Elysia's record cleaning would
 * first turn a long string into an object with one key per character (seconds for a megabyte).
 */
export function checkConditions(value: unknown): Conditions {
  if (!isPlainObject(value)) throw badRequest("Conditions must be an object of field: {operator: value}");
  const fields = Object.keys(value);
  if (fields.length > MAX_CONDITION_FIELDS) throw badRequest(`A segment can have at most ${MAX_CONDITION_FIELDS} conditions`);
  for (const field of fields) {
    if (field.length > MAX_FIELD_LENGTH) throw badRequest(`Segment field names are at most ${MAX_FIELD_LENGTH} characters`);
    const ops = value[field];
    if (!isPlainObject(ops)) throw badRequest(`Condition for ${field} must be an object such as {"gte": 100}`);
    const names = Object.keys(ops);
    if (names.length > OPS.length) throw badRequest(`Condition for ${field} has more than ${OPS.length} operators`);
    for (const op of names) {
      const v = ops[op];
      const ok = typeof v === "string" ? v.length <= MAX_VALUE_LENGTH : typeof v === "number" ? Number.isFinite(v) : typeof v === "boolean";
      if (!ok) throw badRequest(`The value for ${field} must be text of at most ${MAX_VALUE_LENGTH} characters, a number or true/false`);
    }
  }
  return value as Conditions;
}

/** A date value: an ISO date, or relative to now like "-30d" (also h, w). */
function dateValue(field: string, v: unknown, now: number): number {
  if (typeof v === "string") {
    const rel = /^([+-]?\d+)([hdw])$/.exec(v.trim());
    if (rel) return now + Number(rel[1]) * (rel[2] === "h" ? DAY / 24 : rel[2] === "w" ? 7 * DAY : DAY);
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  throw badRequest(`Invalid date for ${field}: use an ISO date or a relative value such as "-30d"`);
}

function numberValue(field: string, v: unknown): number {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw badRequest(`Invalid number for ${field}`);
  return n;
}

/**
 * A custom field's text as a number, as SQLite's CAST(... AS REAL) reads it: its leading number, 0 when it has none,
 * null when the field is missing. PostgreSQL's cast refuses text that is no number, so it is given the leading number.
 */
function asNumber(engine: Engine, text: SQL): SQL {
  if (engine === "sqlite") return sql`CAST(${text} AS REAL)`;
  return sql`CASE WHEN ${text} IS NULL THEN NULL ELSE coalesce(substring(${text} from '^[[:space:]]*([-+]?(?:[0-9]+[.]?[0-9]*|[.][0-9]+)(?:[eE][-+]?[0-9]+)?)')::double precision, 0) END`;
}

/**
 * Conditions `{field: {op: value}}` to one SQL condition (all must hold), values always bound as parameters.
 * Fields: totalSpent, engagementScore, purchases90d (numbers), optInDate, lastEngaged, lastClicked (dates), tags, source,
 * clickedCampaign ({eq: id}: a person's click of that campaign's links), and
 * customFields.<name> (numeric comparison for gte/lte, text for eq/contains). `userId`: the account whose contacts
 * the condition is about (a tag's contacts are read from that account's rows of contact_tags); `engine`: the records'
 * (`ctx.records.$engine`), whose SQL the condition is written in; byTag: for a count by countContactsWhere with
 * byTag, the tag's contacts listed first (tagCondition).
 */
export function compileConditions(conditions: Conditions, now: number, userId: string, engine: Engine, byTag = false): SQL {
  if (!conditions || typeof conditions !== "object" || Array.isArray(conditions)) throw badRequest("Conditions must be an object of field: {operator: value}");
  const parts: SQL[] = [];
  for (const [field, ops] of Object.entries(conditions)) {
    if (field === "clickedCampaign") {
      const id = ops && typeof ops === "object" && !Array.isArray(ops) && Object.keys(ops).length === 1 ? ops.eq : undefined;
      if (typeof id !== "string" || !id.trim()) throw badRequest('clickedCampaign takes {"eq": "<campaign id>"}');
      parts.push(clickedCampaign(CONTACT_ID, id.trim()));
      continue;
    }
    const known = FIELDS[field];
    let def = known && { col: known.col(now), kind: known.kind };
    if (!def && field.startsWith("customFields.")) {
      const name = field.slice("customFields.".length);
      if (!name) throw badRequest("Unknown segment field: customFields needs a name, such as customFields.city");
      def = { col: customFieldColumn(engine, name), kind: "text" };
      if (ops && typeof ops === "object") {
        for (const [op, v] of Object.entries(ops)) {
          if (op === "gte" || op === "lte") parts.push(sql`${asNumber(engine, def.col)} ${op === "gte" ? sql`>=` : sql`<=`} ${numberValue(field, v)}`);
        }
      }
    }
    if (!def)
      throw badRequest(
        `Unknown segment field: ${field}. Use totalSpent, optInDate, lastEngaged, lastClicked, clickedCampaign, tags, source, engagementScore, purchases90d or customFields.<name>`,
      );
    if (!ops || typeof ops !== "object" || Array.isArray(ops)) throw badRequest(`Condition for ${field} must be an object such as {"gte": 100}`);
    for (const [op, v] of Object.entries(ops)) {
      if (!(OPS as readonly string[]).includes(op)) throw badRequest(`Unknown operator ${op} for ${field}. Use gte, lte, eq or contains`);
      const { col, kind } = def;
      if (kind === "text" && field.startsWith("customFields.") && (op === "gte" || op === "lte")) continue;
      if (kind === "number") {
        if (op === "contains") throw badRequest(`Operator contains does not apply to ${field}`);
        const n = numberValue(field, v);
        parts.push(op === "gte" ? sql`${col} >= ${n}` : op === "lte" ? sql`${col} <= ${n}` : sql`${col} = ${n}`);
      } else if (kind === "date") {
        if (op === "contains") throw badRequest(`Operator contains does not apply to ${field}`);
        const d = dateValue(field, v, now);
        parts.push(op === "gte" ? sql`${col} >= ${d}` : op === "lte" ? sql`${col} <= ${d}` : sql`${col} >= ${d} AND ${col} < ${d + DAY}`);
      } else if (kind === "tags") {
        if (op !== "eq" && op !== "contains") throw badRequest(`Operator ${op} does not apply to tags; use eq or contains`);
        const tag = String(v ?? "").trim();
        if (!tag) throw badRequest("Invalid value for tags");
        // eq: a tag exactly this (case and all); contains: a tag holding it without regard to case.
        parts.push(tagCondition(engine, userId, op, tag, byTag));
      } else {
        if (op === "gte" || op === "lte") throw badRequest(`Operator ${op} does not apply to ${field}; use eq or contains`);
        const s = String(v ?? "");
        parts.push(op === "eq" ? sql`${col} = ${s}` : engine === "sqlite" ? sql`instr(lower(${col}), lower(${s})) > 0` : sql`strpos(lower(${col}), lower(${s})) > 0`);
      }
    }
  }
  return parts.length ? sql.join(parts.map((p) => sql`(${p})`), sql` AND `) : sql`1 = 1`;
}

/**
 * The quick-start segments, each matching contacts as the product keeps them: totalSpent and purchases90d add up
 * the purchases reported through the API or the automation screen, engagementScore rises with replies and purchases
 * (src/contacts/engagement.ts), lastEngaged counts a contact that never replied from when it joined.
 */
export const SEGMENT_TEMPLATES = [
  { id: "vip-customers", name: "VIP Customers", description: "Customers who spent $500 or more", conditions: { totalSpent: { gte: 50000 } } },
  { id: "recent-subscribers", name: "Recent Subscribers", description: "Opted in within the last 30 days", conditions: { optInDate: { gte: "-30d" } } },
  { id: "inactive-customers", name: "Inactive Customers", description: "No reply in the last 60 days (or never, if they joined earlier)", conditions: { lastEngaged: { lte: "-60d" } } },
  { id: "frequent-buyers", name: "Frequent Buyers", description: "3 or more purchases in the last 90 days", conditions: { purchases90d: { gte: 3 } } },
  { id: "loyal-fans", name: "Loyal Fans", description: "Engagement score of 80 or more (a reply adds 10, a purchase 20)", conditions: { engagementScore: { gte: 80 } } },
];
