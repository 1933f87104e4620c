import type { SQL } from "drizzle-orm";
import type { CampaignAudience } from "../../db/schema";
import {
  audienceContactsInRowids,
  audienceContactsWhere,
  audienceWhere,
  countAudience,
  countAudienceUpTo,
  type AudienceContact,
} from "../contacts/audience";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { inboundCountSince } from "../messages/stats";
import { compileConditions } from "../segments/conditions";
import { findSegment } from "../segments/segments";

/**
 * A campaign's audience: the contacts record's presets (src/contacts/audience.ts), a segment's conditions
 * (segments) and the loyal preset's count of texts (messages) put together.
 */
export async function audienceCondition(ctx: AppContext, userId: string, audience: CampaignAudience): Promise<SQL> {
  const now = ctx.now();
  // The segment's record is read first; the condition is then built from it.
  const segment = audience.kind === "segment" ? await findSegment(ctx, userId, audience.segmentId) : undefined;
  return audienceWhere(userId, audience, now, {
    segment: () => {
      if (!segment) throw badRequest("The chosen segment no longer exists");
      return compileConditions(segment.conditions, now, userId, ctx.records.$engine);
    },
    repliesSince: (phone, since) => inboundCountSince(userId, phone, since),
  });
}

export async function audienceCount(ctx: AppContext, userId: string, audience: CampaignAudience): Promise<number> {
  return countAudience(ctx, await audienceCondition(ctx, userId, audience));
}

/** Exact counts of the wizard's presets. */
export async function presetCounts(ctx: AppContext, userId: string) {
  const count = (kind: "all" | "recent" | "loyal" | "new") => audienceCount(ctx, userId, { kind });
  return { all: await count("all"), recent: await count("recent"), loyal: await count("loyal"), new: await count("new") };
}

/** The contacts of an audience, for writing the outbox (streamed by the caller in one transaction). */
export async function audienceContacts(ctx: AppContext, userId: string, audience: CampaignAudience): Promise<AudienceContact[]> {
  return audienceContactsWhere(ctx, await audienceCondition(ctx, userId, audience));
}

/** How many contacts an audience has, counted no further than `cap` (a bounded read however large it is). */
export async function audienceCountUpTo(ctx: AppContext, userId: string, audience: CampaignAudience, cap: number): Promise<number> {
  return countAudienceUpTo(ctx, await audienceCondition(ctx, userId, audience), cap);
}

/** The audience's contacts whose rowid is in (after, upTo], in rowid order: one chunk of a large campaign. */
export async function audienceContactsInWindow(ctx: AppContext, userId: string, audience: CampaignAudience, after: number, upTo: number): Promise<AudienceContact[]> {
  return audienceContactsInRowids(ctx, await audienceCondition(ctx, userId, audience), after, upTo);
}
