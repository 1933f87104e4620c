import { and, eq } from "drizzle-orm";
import { contacts } from "../../db/schema";
import type { AppContext } from "../context";
import { appendEvent } from "../events/events";
import { assertWithinLimit } from "../licenses/limits";
import { assertNoDuplicatePhone, contactView, getContact, newId, recordConsent } from "./contacts";

/** A contact as the account owner types it, checked (the phone in E.164); tags and custom fields only if sent. */
export type ContactInput = {
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  tags?: string[];
  customFields?: Record<string, string>;
};

/**
 * Adds a contact by hand, subscribed, with its opt-in recorded and its event, in one transaction that also checks
 * the phone and the plan. 409 for a phone another contact has; 402 past the plan's contacts (`notice` near it).
 */
export async function createContact(ctx: AppContext, userId: string, c: ContactInput) {
  return ctx.withTransaction(async () => {
    if (c.phone) await assertNoDuplicatePhone(ctx, userId, c.phone);
    const { notice } = await assertWithinLimit(ctx, userId, "contacts", 1);
    const at = new Date(ctx.now());
    const id = newId();
    const stored = await ctx.records
      .insert(contacts)
      .values({
        id,
        userId,
        firstName: c.firstName,
        lastName: c.lastName,
        email: c.email,
        phone: c.phone,
        tags: c.tags ?? [],
        customFields: c.customFields ?? {},
        source: "manual",
        status: "subscribed",
        optInDate: at,
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing()
      .returning({ id: contacts.id })
      .all();
    // Another request stored this phone since the check above (PostgreSQL's transactions run at once where SQLite's
    // take turns), and waited for, its contact is the 409's.
    if (!stored.length) await assertNoDuplicatePhone(ctx, userId, c.phone!);
    await recordConsent(ctx, userId, id, "opt_in", "manual", "Added by the account owner");
    await appendEvent(ctx, { userId, type: "contact.created", subject: { kind: "contact", id }, payload: { source: "manual" } });
    return { contact: contactView(await getContact(ctx, userId, id)), notice };
  });
}

/**
 * Replaces an existing contact's fields, in one transaction with its checks: 404 when the owner has no contact of
 * this id, 409 for a phone another contact has.
 */
export async function updateContact(ctx: AppContext, userId: string, id: string, c: ContactInput) {
  return ctx.withTransaction(async () => {
    await getContact(ctx, userId, id);
    if (c.phone) await assertNoDuplicatePhone(ctx, userId, c.phone, id);
    const update = () =>
      ctx.records
        .update(contacts)
        .set({
          firstName: c.firstName,
          lastName: c.lastName,
          email: c.email,
          phone: c.phone,
          ...(c.tags ? { tags: c.tags } : {}),
          ...(c.customFields ? { customFields: c.customFields } : {}),
          updatedAt: new Date(ctx.now()),
        })
        .where(and(eq(contacts.userId, userId), eq(contacts.id, id)))
        .run();
    if (!c.phone) await update();
    else {
      // Another request may give this phone to another contact after the check above (PostgreSQL's transactions run
      // at once, where SQLite's take turns): the unique index then refuses the update, in a savepoint of its own so
      // the transaction can still read, and the 409 names the contact that has the phone.
      const phone = c.phone;
      await ctx.withTransaction(update).catch(async (err: unknown) => {
        if (!isUniqueViolation(err)) throw err;
        await assertNoDuplicatePhone(ctx, userId, phone, id);
        throw err;
      });
    }
    return contactView(await getContact(ctx, userId, id));
  });
}

/** PostgreSQL's unique violation (SQLSTATE 23505), as Bun.sql reports it, under drizzle's "Failed query" error. */
function isUniqueViolation(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) if ((e as { errno?: unknown }).errno === "23505") return true;
  return false;
}
