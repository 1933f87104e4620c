import { eq, sql } from "drizzle-orm";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { contactPurchases, contacts } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { atMost } from "./engine-sql";

/**
 * How engaged a contact is, 0 to 100, as the segments read it (engagementScore; Loyal Fans is 80 or more): each reply
 * the contact texts adds REPLY_POINTS and each purchase the account reports PURCHASE_POINTS, up to 100. The score
 * was a column nothing wrote, so the quick-start could never match anyone.
 */
export const REPLY_POINTS = 10;
export const PURCHASE_POINTS = 20;
const MAX_SCORE = 100;

/** The score after `points` more, as SQL over the contacts row being updated. */
export const raisedScore = (points: number) => atMost(sql`${contacts.engagementScore} + ${points}`, MAX_SCORE);

/**
 * A purchase reported for a contact (the API's purchase event, or the automation screen's): kept with its time, so
 * a segment counts purchases in the last 90 days (the event log is pruned sooner), added to what the contact has
 * spent (cents, the unit of totalSpent) and to its engagement. Runs in the caller's transaction.
 */
export async function addPurchase(ctx: AppContext, userId: string, contactId: string, amountCents: number, at: number): Promise<void> {
  await ready(ctx.db);
  await ctx.records.insert(contactPurchases).values({ userId, contactId, amountCents, purchasedAt: at }).run();
  await ctx.records
    .update(contacts)
    .set({ totalSpent: sql`${contacts.totalSpent} + ${amountCents}`, engagementScore: raisedScore(PURCHASE_POINTS) })
    .where(sql`${contacts.id} = ${contactId}`)
    .run();
}

// Prepared once per connection: every inbound text from a contact runs it.
const touchOnReply = preparedPerDb((db: RecordsDb) =>
  // The set takes no placeholder as such: wrapped, it binds as given (ms, as the column stores it).
  db
    .update(contacts)
    .set({ lastEngagedAt: sql`${sql.placeholder("at")}`, engagementScore: raisedScore(REPLY_POINTS) })
    .where(eq(contacts.id, sql.placeholder("id")))
    .prepare(),
);

/** A contact texted in: its last engagement is now and its score rises by REPLY_POINTS. */
export async function recordReply(ctx: AppContext, contactId: string, at: number): Promise<void> {
  await ready(ctx.db);
  await touchOnReply(ctx.records).run({ id: contactId, at });
}
