import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { jsonList } from "../../db/json-array";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { contactConsents, contacts } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { appendEvent, appendEvents, type NewEvent } from "../events/events";
import { badRequest, conflict, notFound } from "../http/errors";
import { nextTurn } from "../time/next-turn";
import { listPage, markAhead } from "./list-marks";
import { COUNT_CAP, searchCondition, searchPage, type IndexedFilter, type PageQuery } from "./search";
import { postgresSearchPage } from "./search-postgres";

export type ContactRow = typeof contacts.$inferSelect;
export type ContactSource = ContactRow["source"];
/** Texting in records no consent, so "inbound" is a contact source only. */
export type ConsentSource = Exclude<ContactSource, "inbound">;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function contactView(c: ContactRow) {
  return {
    id: c.id,
    firstName: c.firstName,
    lastName: c.lastName,
    email: c.email,
    phone: c.phone,
    tags: c.tags ?? [],
    customFields: c.customFields ?? {},
    status: c.status,
    source: c.source,
    optInDate: iso(c.optInDate),
    lastEngagedAt: iso(c.lastEngagedAt),
    totalSpent: c.totalSpent,
    engagementScore: c.engagementScore,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt ?? c.createdAt),
  };
}
export type ContactView = ReturnType<typeof contactView>;

export const newId = () => Bun.randomUUIDv7();

/** A contact of this user, or 404 (another user's contact answers exactly like a missing one). */
export async function getContact(ctx: AppContext, userId: string, id: string): Promise<ContactRow> {
  await ready(ctx.db);
  return contactOf(ctx, userId, id);
}

/** getContact's statement, after ready (inside this file's transactions). */
async function contactOf(ctx: AppContext, userId: string, id: string): Promise<ContactRow> {
  const row = await ctx.records.select().from(contacts).where(and(eq(contacts.userId, userId), eq(contacts.id, id))).get();
  if (!row) throw notFound("Contact not found");
  return row;
}

// Prepared once: every drip step reads its contact (building and preparing the query was most of a step's time).
const byId = preparedPerDb((db: RecordsDb) =>
  db.select().from(contacts).where(and(eq(contacts.userId, sql.placeholder("userId")), eq(contacts.id, sql.placeholder("id")))).prepare(),
);

/** A contact of this user, or undefined (a drip step finds the contact may have been deleted). */
export async function findContactById(ctx: AppContext, userId: string, id: string): Promise<ContactRow | undefined> {
  await ready(ctx.db);
  return byId(ctx.records).get({ userId, id });
}

/** The names of these contacts (any of them gone is left out), by id: a list of messages names its recipients. */
export async function namesOfContacts(ctx: AppContext, ids: string[]): Promise<Map<string, { firstName: string; lastName: string }>> {
  if (!ids.length) return new Map();
  await ready(ctx.db);
  const rows = await ctx.records
    .select({ id: contacts.id, firstName: contacts.firstName, lastName: contacts.lastName })
    .from(contacts)
    .where(inArray(contacts.id, [...new Set(ids)]))
    .all();
  return new Map(rows.map((r) => [r.id, { firstName: r.firstName, lastName: r.lastName }]));
}

// Prepared once: every inbound message looks its sender up (twice when it may have created the contact).
const byPhone = preparedPerDb((db: RecordsDb) =>
  db.select().from(contacts).where(and(eq(contacts.userId, sql.placeholder("userId")), eq(contacts.phone, sql.placeholder("phone")))).prepare(),
);

export async function findByPhone(ctx: AppContext, userId: string, phone: string): Promise<ContactRow | undefined> {
  await ready(ctx.db);
  return phoneRow(ctx, userId, phone);
}

/** findByPhone's statement, after ready (inside this file's transactions). */
function phoneRow(ctx: AppContext, userId: string, phone: string): Promise<ContactRow | undefined> {
  return byPhone(ctx.records).get({ userId, phone });
}

/** The user's contacts of these phones, by phone (a page of threads names its contacts). */
export async function contactsByPhone(ctx: AppContext, userId: string, phones: string[]): Promise<Map<string, ContactRow>> {
  await ready(ctx.db);
  if (!phones.length) return new Map();
  const rows = await ctx.records
    .select()
    .from(contacts)
    .where(and(eq(contacts.userId, userId), inArray(contacts.phone, [...new Set(phones)])))
    .all();
  return new Map(rows.map((r) => [r.phone!, r]));
}

export type ListParams = PageQuery;

/**
 * A page of the user's contacts, searched (`q`) and filtered (`extra`, a segment's conditions) or not. The
 * total of a search or filter is counted up to COUNT_CAP: beyond it the answer says `totalCapped: true`.
 * The total, the page's rowids and their rows are read in one transaction: other callers' records (a delete) wait
 * until it ends, so none lands between the rowids and their rows, nor between the total and the page cut from it.
 */
export async function listContacts(ctx: AppContext, userId: string, p: ListParams, extra?: SQL, indexed?: IndexedFilter) {
  const view = (rows: ContactRow[], total: number, totalCapped: boolean) => ({
    data: rows.map(contactView),
    total,
    totalCapped,
    page: p.page,
    pageSize: p.pageSize,
  });
  const rowid = sql<number>`${contacts}.rowid`;
  const rowsOf = async (rowids: number[]) => {
    const found = rowids.length ? await ctx.records.select({ rowid, row: contacts }).from(contacts).where(inArray(rowid, rowids)).all() : [];
    const byRowid = new Map(found.map((x) => [x.rowid, x.row]));
    return rowids.map((r) => byRowid.get(r)!);
  };
  const whole = !extra && !(p.q ?? "").trim();
  // A deep page's saved positions made first, a few a turn, outside the transaction that reads the page in one.
  if (whole) await markAhead(ctx, userId, p);
  return ctx.withTransaction(async () => {
    const total = (await countersOf(ctx, userId)).total;
    // The page's rowids from an index alone (list-marks.ts), then their rows: selecting the rows themselves looked up
    // every row an OFFSET stepped over.
    if (whole) return view(await rowsOf(await listPage(ctx, userId, p, total)), total, false);
    const { rowids, n } =
      ctx.records.$engine === "sqlite" ? await searchPage(ctx, userId, p, extra, total, indexed) : await postgresSearchPage(ctx, userId, p, extra, indexed);
    return view(await rowsOf(rowids), Math.min(n, COUNT_CAP), n > COUNT_CAP);
  });
}

/** The user's contact counters, kept in `contact_totals` by triggers (migrations 0003 and 0005). */
export async function contactCounters(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  return countersOf(ctx, userId);
}

async function countersOf(ctx: AppContext, userId: string) {
  const [row] = await ctx.records.$rows<{ total: number; email: number; sms: number }>(
    "SELECT total, with_email AS email, with_phone AS sms FROM contact_totals WHERE user_id = ?",
    [userId],
  );
  return { total: row?.total ?? 0, email: row?.email ?? 0, sms: row?.sms ?? 0 };
}

/** A keyword opt-in's sender number and keyword, logged with its consent. */
export type ConsentDetail = { number?: string | null; keyword?: string | null };

/** Logs a consent in the caller's transaction (a contact added by hand). */
export async function recordConsent(
  ctx: AppContext,
  userId: string,
  contactId: string,
  kind: "opt_in" | "opt_out",
  source: ConsentSource,
  text: string | null,
  detail: ConsentDetail = {},
): Promise<void> {
  await ready(ctx.db);
  await consentRow(ctx, userId, contactId, kind, source, text, detail);
}

/** recordConsent's statement, after ready (inside this file's transactions). */
async function consentRow(
  ctx: AppContext,
  userId: string,
  contactId: string,
  kind: "opt_in" | "opt_out",
  source: ConsentSource,
  text: string | null,
  detail: ConsentDetail = {},
) {
  const { number = null, keyword = null } = detail;
  await ctx.records.insert(contactConsents).values({ id: newId(), userId, contactId, kind, source, text, number, keyword, createdAt: new Date(ctx.now()) }).run();
}

export async function listConsents(ctx: AppContext, userId: string, contactId: string) {
  await ready(ctx.db);
  await contactOf(ctx, userId, contactId);
  const rows = await ctx.records
    .select()
    .from(contactConsents)
    .where(and(eq(contactConsents.userId, userId), eq(contactConsents.contactId, contactId)))
    .orderBy(asc(contactConsents.createdAt), asc(contactConsents.id))
    .all();
  return rows.map((c) => ({ id: c.id, contactId: c.contactId, kind: c.kind, source: c.source, text: c.text, number: c.number, keyword: c.keyword, createdAt: c.createdAt.toISOString() }));
}

/**
 * Opts a contact out by id (404 when the owner has none), in one transaction (a savepoint of the caller's: an
 * automation rule's action). Idempotent on status; every call is logged.
 */
export async function optOutById(ctx: AppContext, userId: string, id: string, source: ConsentSource, text: string | null): Promise<ContactRow> {
  return ctx.withTransaction(async () => {
    const was = (await contactOf(ctx, userId, id)).status;
    await ctx.records.update(contacts).set({ status: "opted_out", updatedAt: new Date(ctx.now()) }).where(and(eq(contacts.userId, userId), eq(contacts.id, id))).run();
    await consentRow(ctx, userId, id, "opt_out", source, text);
    if (was !== "opted_out") await appendEvent(ctx, { userId, type: "contact.opted_out", subject: { kind: "contact", id }, payload: { source } });
    return await contactOf(ctx, userId, id);
  });
}

/** The owner's opt-out (POST /api/contacts/:id/opt-out). */
export async function optOutByOwner(ctx: AppContext, userId: string, id: string, text: string): Promise<ContactRow> {
  return optOutById(ctx, userId, id, "manual", text);
}

/**
 * The owner's contact of this phone (`found`), or the contact of `values` stored now (`created`). Stored ON CONFLICT
 * DO NOTHING: another caller may store the phone between the lookup and the insert (PostgreSQL's transactions run at
 * once, where SQLite's take turns), and its contact is then the one found.
 */
async function foundOrCreated(ctx: AppContext, userId: string, phone: string, values: typeof contacts.$inferInsert): Promise<{ found?: ContactRow; created?: ContactRow }> {
  const found = await phoneRow(ctx, userId, phone);
  if (found) return { found };
  const [created] = await ctx.records.insert(contacts).values(values).onConflictDoNothing().returning().all();
  return created ? { created } : { found: (await phoneRow(ctx, userId, phone))! };
}

/**
 * STOP and friends (the inbound flow, a confirmed possible opt-out, the sending engine's provider refusals, the public
 * API): opts the number out, creating a bare contact when the number is unknown so later sends still skip it, in
 * one transaction (a savepoint of the caller's). `phone` is E.164.
 */
export async function optOutContact(ctx: AppContext, userId: string, phone: string, source: ConsentSource, text: string | null): Promise<ContactRow> {
  return ctx.withTransaction(async () => {
    const { found, created } = await foundOrCreated(ctx, userId, phone, { id: newId(), userId, phone, source, status: "opted_out", updatedAt: new Date(ctx.now()) });
    const row = (found ?? created)!;
    if (created) {
      await appendEvent(ctx, { userId, type: "contact.created", subject: { kind: "contact", id: row.id }, payload: { source } });
    } else {
      await ctx.records.update(contacts).set({ status: "opted_out", updatedAt: new Date(ctx.now()) }).where(eq(contacts.id, row.id)).run();
    }
    await consentRow(ctx, userId, row.id, "opt_out", source, text);
    if (found?.status !== "opted_out") await appendEvent(ctx, { userId, type: "contact.opted_out", subject: { kind: "contact", id: row.id }, payload: { source } });
    return (await phoneRow(ctx, userId, phone))!;
  });
}

/**
 * The contact's own START/YES or keyword (the inbound flow): the only way an opted-out contact becomes subscribed
 * again, in one transaction (a savepoint of the caller's).
 */
export async function optInContact(
  ctx: AppContext,
  userId: string,
  phone: string,
  source: ConsentSource,
  text: string | null,
  detail: ConsentDetail = {},
): Promise<ContactRow> {
  return ctx.withTransaction(async () => {
    const at = new Date(ctx.now());
    const { found, created } = await foundOrCreated(ctx, userId, phone, { id: newId(), userId, phone, source, status: "subscribed", optInDate: at, updatedAt: at });
    const row = (found ?? created)!;
    if (created) {
      await appendEvent(ctx, { userId, type: "contact.created", subject: { kind: "contact", id: row.id }, payload: { source } });
    } else {
      await ctx.records.update(contacts).set({ status: "subscribed", optInDate: at, updatedAt: at }).where(eq(contacts.id, row.id)).run();
    }
    await consentRow(ctx, userId, row.id, "opt_in", source, text, detail);
    if (found?.status !== "subscribed") {
      await appendEvent(ctx, { userId, type: "contact.opted_in", subject: { kind: "contact", id: row.id }, payload: { source, keyword: detail.keyword ?? null } });
    }
    return (await phoneRow(ctx, userId, phone))!;
  });
}

/** The ids of the user's contacts matching a condition (a segment's), oldest first, at most `limit`. */
export async function contactIdsWhere(ctx: AppContext, userId: string, condition: SQL, limit: number): Promise<string[]> {
  await ready(ctx.db);
  const rows = await ctx.records.select({ id: contacts.id }).from(contacts).where(and(eq(contacts.userId, userId), condition)).orderBy(asc(contacts.createdAt)).limit(limit).all();
  return rows.map((r) => r.id);
}

/** Whether one contact of the user matches a condition (a segment's), read now. */
export async function contactMatches(ctx: AppContext, userId: string, id: string, condition: SQL): Promise<boolean> {
  await ready(ctx.db);
  return !!(await ctx.records.select({ id: contacts.id }).from(contacts).where(and(eq(contacts.userId, userId), eq(contacts.id, id), condition)).get());
}

/**
 * The state a contact's custom field `state` (any case: State, STATE) names for this number, as the account wrote it
 * ("FL", "Florida"); null when the number is no contact's or the contact has none. The sending engine lets it win
 * over the area code when it applies a state's rules (src/sending/state-rules.ts).
 */
export async function contactStateField(ctx: AppContext, userId: string, phone: string): Promise<string | null> {
  return (await contactStateFields(ctx, [{ userId, phone }])).get(personKey(userId, phone)) ?? null;
}

/** The key of contactStateFields' answer for one person. */
export const personKey = (userId: string, phone: string) => `${userId}\n${phone}`;

/**
 * contactStateField for many people at once (the sending engine's batch, read once before its checks rather than
 * awaited per row): by personKey, the people with a `state` field only.
 */
export async function contactStateFields(ctx: AppContext, people: { userId: string; phone: string }[]): Promise<Map<string, string>> {
  const phonesOf = new Map<string, Set<string>>();
  for (const p of people) {
    const phones = phonesOf.get(p.userId);
    if (phones) phones.add(p.phone);
    else phonesOf.set(p.userId, new Set([p.phone]));
  }
  const found = new Map<string, string>();
  await ready(ctx.db);
  for (const [userId, phones] of phonesOf) {
    const rows = await ctx.records.$rows<{ phone: string; f: string }>(
      sql`SELECT phone, custom_fields AS f FROM contacts WHERE user_id = ${userId} AND phone IN (${jsonList(ctx.records, [...phones])}) AND custom_fields IS NOT NULL`,
    );
    for (const row of rows) {
      const fields = JSON.parse(row.f) as Record<string, unknown>;
      const key = Object.keys(fields).find((k) => k.trim().toLowerCase() === "state");
      const value = key === undefined ? null : fields[key];
      if (typeof value === "string") found.set(personKey(userId, row.phone), value);
    }
  }
  return found;
}

/**
 * Whether a phone is opted out, as the sending engine asks of every message but a compliance reply at the moment of
 * sending (src/messages/outbox-store.ts): one statement prepared on the connection of the moment, as the store
 * prepares its own (a restore builds the store again).
 */
export async function optedOutReader(ctx: AppContext): Promise<(userId: string, phone: string) => boolean> {
  const st = ctx.db.$client.prepare(`SELECT 1 FROM contacts WHERE user_id = ? AND phone = ? AND status = 'opted_out'`);
  return (userId, phone) => !!st.get(userId, phone);
}

export function normalizeTags(tags: string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];
}

export function displayName(c: { firstName: string; lastName: string; email: string | null; phone: string | null }) {
  return `${c.firstName} ${c.lastName}`.trim() || c.email || c.phone || "Unknown";
}

/**
 * Contacts deleted or tagged per transaction of a bulk delete or tag, with a turn of the event loop between: about
 * 20 ms each, where the 10,000 contacts one request may name held the server 400 ms (delete: each takes its search
 * index entry, its counts and its messages' link with it) and 480 ms (tag: an event each) in one transaction.
 */
export const BULK_CHUNK = 500;

/** Deletes those of `ids` (at most BULK_CHUNK) that are the owner's; answers how many. Their messages stay, detached. */
async function deleteSome(ctx: AppContext, userId: string, ids: string[]): Promise<number> {
  return (await ctx.records.delete(contacts).where(and(eq(contacts.userId, userId), inArray(contacts.id, ids))).returning({ id: contacts.id }).all()).length;
}

/** Deletes the owner's contact of this id (404 when there is none); its messages stay, detached. */
export async function deleteContact(ctx: AppContext, userId: string, id: string): Promise<void> {
  await ready(ctx.db);
  if (!(await deleteSome(ctx, userId, [id]))) throw notFound("Contact not found");
}

/** Deletes those of `ids` that are the owner's, BULK_CHUNK per transaction; answers how many. */
export async function deleteContacts(ctx: AppContext, userId: string, ids: string[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < ids.length; i += BULK_CHUNK) {
    if (i) await nextTurn();
    deleted += await ctx.withTransaction(async () => deleteSome(ctx, userId, ids.slice(i, i + BULK_CHUNK)));
  }
  return deleted;
}

/**
 * Adds or removes tags on the contacts among `ids` (at most BULK_CHUNK: see bulkTagInChunks), in one transaction (a
 * savepoint of the caller's). With `announce`, each contact that gains a tag gets a contact.tagged event (a trigger of
 * automation rules): the owner's tagging and the rules' own; a keyword's tags are announced by its opt-in.
 */
export async function bulkTag(ctx: AppContext, userId: string, ids: string[], tagsIn: string[], action: "add" | "remove", announce = false): Promise<number> {
  const tags = normalizeTags(tagsIn);
  if (!tags.length) throw badRequest("Please enter at least one tag");
  return ctx.withTransaction(async () => {
    let updated = 0;
    const tagged: NewEvent[] = [];
    const rows = await ctx.records.select({ id: contacts.id, tags: contacts.tags }).from(contacts).where(and(eq(contacts.userId, userId), inArray(contacts.id, ids))).all();
    for (const r of rows) {
      const next = action === "add" ? normalizeTags([...r.tags, ...tags]) : r.tags.filter((t) => !tags.includes(t));
      if (next.length === r.tags.length && next.every((t, j) => t === r.tags[j])) continue;
      await ctx.records.update(contacts).set({ tags: next, updatedAt: new Date(ctx.now()) }).where(eq(contacts.id, r.id)).run();
      const added = announce ? next.filter((t) => !r.tags.includes(t)) : [];
      if (added.length) tagged.push({ userId, type: "contact.tagged", subject: { kind: "contact", id: r.id }, payload: { tags: added } });
      updated++;
    }
    // The chunk's events in one call, after its rows.
    await appendEvents(ctx, tagged);
    return updated;
  });
}

/** The owner's tagging of the contacts among `ids` (POST /api/contacts/bulk-tag): BULK_CHUNK per transaction, announced. */
export async function bulkTagInChunks(ctx: AppContext, userId: string, ids: string[], tags: string[], action: "add" | "remove"): Promise<number> {
  if (!normalizeTags(tags).length) throw badRequest("Please enter at least one tag");
  let updated = 0;
  for (let i = 0; i < ids.length; i += BULK_CHUNK) {
    if (i) await nextTurn();
    updated += await bulkTag(ctx, userId, ids.slice(i, i + BULK_CHUNK), tags, action, true);
  }
  return updated;
}

/** Adds and removes tags on one contact of the owner (404 when none), in one transaction; answers the contact. */
export async function retagContact(ctx: AppContext, userId: string, id: string, add: string[] | undefined, remove: string[] | undefined): Promise<ContactRow> {
  return ctx.withTransaction(async () => {
    await contactOf(ctx, userId, id);
    if (add?.length) await bulkTag(ctx, userId, [id], add, "add");
    if (remove?.length) await bulkTag(ctx, userId, [id], remove, "remove");
    return await contactOf(ctx, userId, id);
  });
}

/**
 * Groups of this user's contacts sharing the same phone digits, paged by group, in order of the digits. Phones are
 * unique per owner and stored in E.164, so each group holds at least one phone written another way (older data:
 * "+1 (305) 555-0123"): one pass over the (user_id, phone) index finds those, and a group is them plus the E.164
 * contact with their digits. (No index on the digits is kept for this: it cost every import a fifth of its time.)
 */
export async function duplicateGroups(ctx: AppContext, userId: string, page: number, pageSize: number) {
  await ready(ctx.db);
  const phone = sql`${contacts.phone}`;
  // SQLite's planner is told the (user_id, phone) index and tests the spelling with GLOB; PostgreSQL chooses that
  // index itself and tests it with a regular expression.
  const written = await ctx.records.$rows<{ r: number; digits: string }>(
    ctx.records.$engine === "sqlite"
      ? sql`SELECT rowid AS r, ${contacts.phoneDigits} AS digits FROM ${contacts} INDEXED BY contacts_user_phone_idx
          WHERE ${contacts.userId} = ${userId} AND ${phone} IS NOT NULL AND NOT (${phone} GLOB '+[0-9]*' AND ${phone} NOT GLOB '+*[^0-9]*')`
      : sql`SELECT rowid AS r, ${contacts.phoneDigits} AS digits FROM ${contacts}
          WHERE ${contacts.userId} = ${userId} AND ${phone} IS NOT NULL AND ${phone} !~ '^[+][0-9]+$'`,
  );
  const byDigits = new Map<string, number[]>();
  for (const w of written) if (w.digits) byDigits.set(w.digits, [...(byDigits.get(w.digits) ?? []), w.r]);
  const e164 = await ctx.records.$rows<{ r: number; phone: string }>(
    sql`SELECT rowid AS r, phone FROM ${contacts} WHERE ${contacts.userId} = ${userId} AND ${phone} IN (SELECT '+' || value FROM (${jsonList(ctx.records, [...byDigits.keys()])}) AS d)`,
  );
  for (const c of e164) byDigits.get(c.phone.slice(1))!.push(c.r);
  const groups = [...byDigits].filter(([, rows]) => rows.length > 1).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = [];
  for (const [digits, rows] of groups.slice((page - 1) * pageSize, page * pageSize)) {
    const members = await ctx.records
      .select()
      .from(contacts)
      .where(and(eq(contacts.userId, userId), sql`${contacts}.rowid IN (${jsonList(ctx.records, rows, "bigint")})`))
      .orderBy(asc(contacts.createdAt), sql`${contacts}.rowid`)
      .all();
    data.push({ phone: members[0]?.phone ?? digits, contacts: members.map(contactView) });
  }
  return { data, total: groups.length };
}

/**
 * Merges contacts into a primary in one transaction: tags (union), custom fields (the primary's win), empty
 * name and email filled from the others, consent history and messages moved. When any merged contact
 * opted out, the primary is opted out too (a merge never re-subscribes anyone). The contacts are read in the
 * transaction that merges them, so a change made meanwhile (an opt-out) is merged, not written over.
 */
export async function mergeContacts(ctx: AppContext, userId: string, primaryId: string | undefined, mergeIdsIn: string[]) {
  if (!primaryId) throw badRequest("Please select which contact to keep as primary.");
  const mergeIds = [...new Set(mergeIdsIn)].filter((id) => id !== primaryId);
  if (!mergeIds.length) throw badRequest("Please select at least one contact to merge into the primary.");
  return ctx.withTransaction(async () => {
    const primary = await contactOf(ctx, userId, primaryId);
    const others: ContactRow[] = [];
    for (const id of mergeIds) others.push(await contactOf(ctx, userId, id));
    let customFields: Record<string, string> = {};
    for (const o of others) customFields = { ...customFields, ...o.customFields };
    customFields = { ...customFields, ...primary.customFields };
    const pick = <K extends "firstName" | "lastName">(k: K) => primary[k] || others.find((o) => o[k])?.[k] || "";
    const optedOut = primary.status === "opted_out" || others.some((o) => o.status === "opted_out");
    const spent = Math.max(primary.totalSpent, ...others.map((o) => o.totalSpent));
    await ctx.records.update(contactConsents).set({ contactId: primary.id }).where(and(eq(contactConsents.userId, userId), inArray(contactConsents.contactId, mergeIds))).run();
    await ctx.contactMessages.move(userId, mergeIds, primary.id);
    await ctx.records.delete(contacts).where(and(eq(contacts.userId, userId), inArray(contacts.id, mergeIds))).run();
    await ctx.records
      .update(contacts)
      .set({
        tags: normalizeTags([...primary.tags, ...others.flatMap((o) => o.tags)]),
        customFields,
        firstName: pick("firstName"),
        lastName: pick("lastName"),
        email: primary.email || others.find((o) => o.email)?.email || null,
        phone: primary.phone || others.find((o) => o.phone)?.phone || null,
        status: optedOut ? "opted_out" : primary.status,
        totalSpent: spent,
        updatedAt: new Date(ctx.now()),
      })
      .where(eq(contacts.id, primary.id))
      .run();
    return contactView(await contactOf(ctx, userId, primary.id));
  });
}

/** 409 when another contact of the owner has this phone; awaited inside the caller's ctx.withTransaction. */
export async function assertNoDuplicatePhone(ctx: AppContext, userId: string, phone: string, exceptId?: string): Promise<void> {
  await ready(ctx.db);
  const existing = await phoneRow(ctx, userId, phone);
  if (existing && existing.id !== exceptId) {
    // The existing contact's id and name let the form offer to open or merge it rather than end at an error.
    throw conflict("A contact with this phone number already exists", { existingContactId: existing.id, existingName: displayName(existing) });
  }
}

/**
 * The contact for a phone that texted in without being one (a conversation's contact): subscribed, with no consent
 * recorded (writing to the business is not an opt-in), inside the caller's transaction. The caller checks the plan
 * (hasRoomForContact) first.
 */
export async function createFromInbound(ctx: AppContext, userId: string, phone: string): Promise<ContactRow> {
  await ready(ctx.db);
  const at = new Date(ctx.now());
  // Texting in starts a conversation; it is not consent to marketing: optInDate stays empty, which keeps the
  // contact out of campaign audiences (campaigns/audiences.ts) until it opts in by keyword or START.
  const row = await ctx.records.insert(contacts).values({ id: newId(), userId, phone, source: "inbound", status: "subscribed", createdAt: at, updatedAt: at }).returning().get();
  await appendEvent(ctx, { userId, type: "contact.created", subject: { kind: "contact", id: row.id }, payload: { source: "inbound" } });
  return row;
}

/** Phones of the account's contacts the contacts search `q` finds (names, phones), at most `limit`. */
export async function phonesOfContactsMatching(ctx: AppContext, userId: string, q: string, limit: number): Promise<string[]> {
  const where = searchCondition(q, userId, ctx.records.$engine);
  if (!where) return [];
  await ready(ctx.db);
  const rows = await ctx.records.select({ phone: contacts.phone }).from(contacts).where(and(eq(contacts.userId, userId), where)).limit(limit).all();
  return rows.flatMap((r) => (r.phone ? [r.phone] : []));
}

/**
 * The user's contacts after one id, in id order, optionally only those of one status: the public API's cursor pages
 * (a cursor survives inserts).
 */
export async function contactsAfter(ctx: AppContext, userId: string, afterId: string | null, limit: number, status?: ContactRow["status"]): Promise<ContactRow[]> {
  await ready(ctx.db);
  const after = afterId === null ? undefined : sql`${contacts.id} > ${afterId}`;
  const only = status === undefined ? undefined : eq(contacts.status, status);
  return ctx.records.select().from(contacts).where(and(eq(contacts.userId, userId), after, only)).orderBy(asc(contacts.id)).limit(limit).all();
}
