import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/**
 * What a campaign's recipients are read with (src/campaigns/outbox.ts): the contact of each typed number, and
 * whether a merge field names a custom field any contact has.
 */

/**
 * The custom fields, of those named, that at least one of the account's contacts has: a merge field none has is a
 * typing mistake the user is told about when saving, not a blank in every message.
 */
export async function customFieldsHeld(ctx: AppContext, userId: string, names: string[]): Promise<Set<string>> {
  await ready(ctx.db);
  // PostgreSQL asks jsonb whether the object has the key (jsonb_exists: its `?` operator would read as a parameter).
  const has =
    ctx.records.$engine === "sqlite"
      ? "SELECT 1 AS one FROM contacts, json_each(contacts.custom_fields) AS f WHERE contacts.user_id = ? AND f.key = ? LIMIT 1"
      : "SELECT 1 AS one FROM contacts WHERE contacts.user_id = ? AND jsonb_exists(contacts.custom_fields::jsonb, ?) LIMIT 1";
  const held = new Set<string>();
  for (const name of names) if ((await ctx.records.$rows(has, [userId, name])).length) held.add(name);
  return held;
}

/** A typed number's contact, as a recipient's fields are filled from it. */
export type RecipientContact = { id: string; status: string; first_name: string; last_name: string; email: string | null; custom_fields: string };

/**
 * Reads the account's contact of a phone (E.164), one statement prepared for the many numbers of a campaign's
 * typed list; null for a number that is no contact.
 */
export async function recipientReader(ctx: AppContext, userId: string): Promise<(phone: string) => RecipientContact | null> {
  const lookup = ctx.db.$client.prepare(`SELECT id, status, first_name, last_name, email, custom_fields FROM contacts WHERE user_id = ? AND phone = ?`);
  return (phone) => lookup.get(userId, phone) as RecipientContact | null;
}
