import { contactsAfter, contactView, deleteContact, findByPhone, getContact, normalizeTags, optOutContact } from "../contacts/contacts";
import { createContact, updateContact, type ContactInput } from "../contacts/manual";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { recipientPhone } from "../users/default-country";

/** A page cursor is the last id of the page before, opaque to callers (base64url), so its form may change. */
export const encodeCursor = (lastId: string) => Buffer.from(JSON.stringify({ after: lastId })).toString("base64url");

export function decodeCursor(cursor: string | undefined): string | null {
  if (!cursor) return null;
  try {
    const after = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { after?: unknown }).after;
    if (typeof after === "string" && after.length <= 64) return after;
  } catch {
    // Falls through to the 400 below: whatever the cause, the cursor is not one this API gave out.
  }
  throw badRequest("Invalid cursor: pass back the nextCursor of a previous page");
}

/**
 * A cursor page of a list the owning domain answers whole (an account's segments or keywords: tens, not
 * thousands), in the list's own order; a cursor naming an item that is gone since is a 400.
 */
export function pageOfList<T extends { id: string }>(items: T[], cursor: string | undefined, limit: number) {
  const after = decodeCursor(cursor);
  const start = after === null ? 0 : items.findIndex((x) => x.id === after) + 1;
  if (start === 0 && after !== null) throw badRequest("Invalid cursor: the item it points after no longer exists; start again without a cursor");
  const page = items.slice(start, start + limit);
  return { data: page, nextCursor: start + limit < items.length ? encodeCursor(page.at(-1)!.id) : null };
}

/** A cursor page of the account's contacts, or of its opted-out ones only (GET /api/v1/opt-outs). */
export async function contactPage(ctx: AppContext, userId: string, cursor: string | undefined, limit: number, optedOutOnly = false) {
  const rows = await contactsAfter(ctx, userId, decodeCursor(cursor), limit + 1, optedOutOnly ? "opted_out" : undefined);
  const page = rows.slice(0, limit);
  return { data: page.map(contactView), nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!.id) : null };
}

export type ApiContactFields = {
  phone?: string;
  firstName?: string;
  lastName?: string;
  email?: string | null;
  tags?: string[];
  customFields?: Record<string, string>;
};

/** The stored fields with the given ones laid over them, the phone in E.164 (the account's default country). */
async function merged(ctx: AppContext, userId: string, base: ContactInput, input: ApiContactFields): Promise<ContactInput> {
  return {
    firstName: input.firstName?.trim() ?? base.firstName,
    lastName: input.lastName?.trim() ?? base.lastName,
    email: input.email === undefined ? base.email : input.email?.trim() || null,
    phone: input.phone === undefined ? base.phone : await recipientPhone(ctx, userId, input.phone),
    tags: input.tags === undefined ? undefined : normalizeTags(input.tags),
    customFields: input.customFields,
  };
}

const EMPTY: ContactInput = { firstName: "", lastName: "", email: null, phone: null };

export async function createApiContact(ctx: AppContext, userId: string, input: ApiContactFields) {
  if (!input.phone) throw badRequest("phone is required");
  return (await createContact(ctx, userId, await merged(ctx, userId, EMPTY, input))).contact;
}

export async function updateApiContact(ctx: AppContext, userId: string, id: string, input: ApiContactFields) {
  const c = await getContact(ctx, userId, id);
  return updateContact(ctx, userId, id, await merged(ctx, userId, { ...c, tags: c.tags ?? [] }, input));
}

/**
 * Creates the contact of this phone, or updates the one that has it: `created` says which. The tags given are
 * added to the contact's own (a shop's "shopify" tag must not wipe the "vip" tag a segment or drip goal reads);
 * `replaceTags: true` makes them the contact's whole list instead.
 */
export async function upsertApiContact(ctx: AppContext, userId: string, input: ApiContactFields & { phone: string; replaceTags?: boolean }) {
  const existing = await findByPhone(ctx, userId, await recipientPhone(ctx, userId, input.phone));
  if (!existing) return { contact: await createApiContact(ctx, userId, input), created: true };
  const tags = input.tags === undefined || input.replaceTags ? input.tags : [...(existing.tags ?? []), ...input.tags];
  return { contact: await updateApiContact(ctx, userId, existing.id, { ...input, tags }), created: false };
}

export async function deleteApiContact(ctx: AppContext, userId: string, id: string) {
  await deleteContact(ctx, userId, id);
}

/** Records an opt-out the caller's system received (e.g. an unsubscribe in a shop), as the 'api' source. */
export async function addOptOut(ctx: AppContext, userId: string, phone: string) {
  return contactView(await optOutContact(ctx, userId, await recipientPhone(ctx, userId, phone), "api", "Opted out through the API"));
}
