import type { AbTest } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { findLinks } from "../links/text";
import { rescheduleJob } from "../jobs/jobs";
import type { Sender } from "../messages/outbox";
import type { User } from "../users/queries";
import { segmentsEach, writeOutbox, type Recipient } from "./outbox";
import { AB_LIMITS } from "./ab-stats";

/**
 * An A/B test's start (issue 32 item 3): its settings checked, the audience split, the plan's count of what the
 * test and the winner will send, and the test's messages with the rest of the audience written. The report and the
 * winner's sending are in ab-test.ts.
 */

type Campaign = Parameters<typeof writeOutbox>[2];

/** The job that picks the winner by the measure, `decideAfterHours` after the start; its key names the campaign. */
export const AB_DECIDE = "campaign_ab_decide";
export const abDecideKey = (campaignId: string) => `${AB_DECIDE}:${campaignId}`;

/** Variant letters: the first is the campaign's own text. */
export const variantLabel = (i: number) => "ABCD"[i] ?? String(i + 1);

export type AbTestInput = { variants: string[]; testPercent: number; measure: "clicks" | "replies"; decideAfterHours?: number | null };

/**
 * An A/B test as saved: 2-4 distinct texts, each checked as a campaign's text is (`checkText`), a test share of
 * 2-50% and, with the click rate as measure, a link in every text to click (shortened, or nobody's click counts).
 */
export function cleanAbTest(input: AbTestInput, shortenLinks: boolean, checkText: (text: string) => void): AbTest {
  const variants = input.variants.map((v) => v.trim());
  const { min, max } = AB_LIMITS.variants;
  if (variants.length < min || variants.length > max) throw badRequest(`An A/B test has ${min} to ${max} variants`);
  variants.forEach((v, i) => {
    if (!v) throw badRequest(`Variant ${variantLabel(i)} has no text`);
    if (v.length > 1600) throw badRequest(`Variant ${variantLabel(i)} is too long (1,600 characters at most)`);
    if (variants.indexOf(v) !== i) throw badRequest(`Variant ${variantLabel(i)} is the same text as variant ${variantLabel(variants.indexOf(v))}`);
    checkText(v);
  });
  const share = AB_LIMITS.testPercent;
  if (!Number.isInteger(input.testPercent) || input.testPercent < share.min || input.testPercent > share.max) {
    throw badRequest(`The test share must be a whole percent from ${share.min} to ${share.max}`);
  }
  if (input.measure === "clicks") {
    if (!shortenLinks) throw badRequest("The click rate is measured on short links: turn link shortening on, or pick the winner by replies");
    const missing = variants.findIndex((v) => !findLinks(v).length);
    if (missing >= 0) throw badRequest(`Variant ${variantLabel(missing)} has no link to click: the click rate needs a link in every variant`);
  }
  const hours = input.decideAfterHours ?? null;
  const h = AB_LIMITS.decideAfterHours;
  if (hours !== null && (!Number.isInteger(hours) || hours < h.min || hours > h.max)) throw badRequest(`Decide after ${h.min} to ${h.max} whole hours, or by hand`);
  return { variants, testPercent: input.testPercent, measure: input.measure, decideAfterHours: hours };
}

/** How many of an audience of `total` the test goes to: the share, rounded, at least one per variant. */
export function testSize(total: number, test: Pick<AbTest, "variants" | "testPercent">): number {
  return Math.min(total, Math.max(test.variants.length, Math.round((total * test.testPercent) / 100)));
}

export type AbSplit = { groups: Recipient[][]; rest: Recipient[] };

/**
 * The audience split for a test: recipients ordered by a hash of the campaign and their phone (the same order on
 * every run, unrelated to when they were added), the first `testSize` dealt to the variants in turn, the others
 * kept for the winner. It is computed once, at the start, and stored (the test's messages and campaign_ab_rest).
 */
export function splitAudience(campaignId: string, recipients: Recipient[], test: AbTest): AbSplit {
  const keyed = recipients.map((r) => ({ r, h: Bun.hash.wyhash(`${campaignId}:${r.phone}`) }));
  keyed.sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : a.r.phone < b.r.phone ? -1 : 1));
  const size = testSize(keyed.length, test);
  const groups: Recipient[][] = test.variants.map(() => []);
  keyed.slice(0, size).forEach(({ r }, i) => groups[i % groups.length]!.push(r));
  return { groups, rest: keyed.slice(size).map(({ r }) => r) };
}

/**
 * The SMS (segments) an A/B campaign may send, for the plan's check: each test recipient's own variant, and for
 * each of the rest the longest of the variants for them (the winner is not known yet).
 */
export function abSegments(ctx: AppContext, user: User, campaign: Campaign, test: AbTest, split: AbSplit): number {
  let total = 0;
  split.groups.forEach((g, i) => (total += segmentsEach(ctx, user, { ...campaign, content: test.variants[i]! }, g).reduce((a, b) => a + b, 0)));
  const longest = new Array<number>(split.rest.length).fill(0);
  for (const v of test.variants) segmentsEach(ctx, user, { ...campaign, content: v }, split.rest).forEach((n, i) => (longest[i] = Math.max(longest[i]!, n)));
  return total + longest.reduce((a, b) => a + b, 0);
}

/**
 * Writes an A/B test's start (inside the caller's transaction): each variant's messages to its group through the
 * outbox, the rest of the audience in campaign_ab_rest for the winner, and the deciding job when the test decides
 * by itself. Answers how many test messages were queued.
 */
export function writeAbTest(ctx: AppContext, user: User, campaign: Campaign, test: AbTest, split: AbSplit, sender: Sender, startAt: number): number {
  let queued = 0;
  split.groups.forEach((g, i) => (queued += writeOutbox(ctx, user, { ...campaign, content: test.variants[i]! }, g, sender, startAt, startAt, i)));
  const insert = ctx.db.$client.prepare(`INSERT OR IGNORE INTO campaign_ab_rest (campaign_id, position, phone, contact_id) VALUES (?, ?, ?, ?)`);
  split.rest.forEach((r, i) => insert.run(campaign.id, i, r.phone, r.contactId));
  if (test.decideAfterHours !== null) {
    rescheduleJob(ctx, { kind: AB_DECIDE, key: abDecideKey(campaign.id), runAt: startAt + test.decideAfterHours * 3600_000, userId: user.id, refId: campaign.id });
  }
  return queued;
}

/** The rest of an A/B campaign's audience, in the order it was split off. */
export function abRest(ctx: AppContext, campaignId: string): { phone: string; contactId: string | null }[] {
  return ctx.db.$client
    .query(`SELECT phone, contact_id AS contactId FROM campaign_ab_rest WHERE campaign_id = ? ORDER BY position`)
    .all(campaignId) as { phone: string; contactId: string | null }[];
}

/** How many recipients each campaign kept for its winner. */
export function abRestCount(ctx: AppContext, campaignId: string): number {
  return (ctx.db.$client.query(`SELECT count(*) AS n FROM campaign_ab_rest WHERE campaign_id = ?`).get(campaignId) as { n: number }).n;
}
