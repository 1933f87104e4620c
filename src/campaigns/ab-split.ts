import type { AbTest, OutboxWriting } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { findLinks } from "../../shared/links/text";
import { rescheduleJob } from "../jobs/jobs";
import type { Sender } from "../messages/outbox";
import type { User } from "../users/queries";
import { PARKED } from "../messages/due";
import { resolveTyped, segmentsEach, writeOutbox, type OutboxResult, type Recipient } from "./outbox";
import { AB_LIMITS } from "../../shared/campaigns/ab-stats";
import { abRestCount, keepAbRest, takeKept } from "./records";

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
export async function cleanAbTest(input: AbTestInput, shortenLinks: boolean, checkText: (text: string) => Promise<void>): Promise<AbTest> {
  const variants = input.variants.map((v) => v.trim());
  const { min, max } = AB_LIMITS.variants;
  if (variants.length < min || variants.length > max) throw badRequest(`An A/B test has ${min} to ${max} variants`);
  for (const [i, v] of variants.entries()) {
    if (!v) throw badRequest(`Variant ${variantLabel(i)} has no text`);
    if (v.length > 1600) throw badRequest(`Variant ${variantLabel(i)} is too long (1,600 characters at most)`);
    if (variants.indexOf(v) !== i) throw badRequest(`Variant ${variantLabel(i)} is the same text as variant ${variantLabel(variants.indexOf(v))}`);
    await checkText(v);
  }
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
export async function abSegments(ctx: AppContext, user: User, campaign: Campaign, test: AbTest, split: AbSplit): Promise<number> {
  let total = 0;
  for (const [i, g] of split.groups.entries()) total += (await segmentsEach(ctx, user, { ...campaign, content: test.variants[i]! }, g)).reduce((a, b) => a + b, 0);
  const longest = new Array<number>(split.rest.length).fill(0);
  for (const v of test.variants) (await segmentsEach(ctx, user, { ...campaign, content: v }, split.rest)).forEach((n, i) => (longest[i] = Math.max(longest[i]!, n)));
  return total + longest.reduce((a, b) => a + b, 0);
}

/**
 * Writes an A/B test's start (inside the caller's transaction): each variant's messages to its group through the
 * outbox, the rest of the audience in campaign_ab_rest for the winner, and the deciding job when the test decides
 * by itself. Answers how many test messages were queued.
 */
export async function writeAbTest(ctx: AppContext, user: User, campaign: Campaign, test: AbTest, split: AbSplit, sender: Sender, startAt: number): Promise<number> {
  let queued = 0;
  for (const [i, g] of split.groups.entries()) queued += await writeOutbox(ctx, user, { ...campaign, content: test.variants[i]! }, g, sender, startAt, startAt, i);
  await keepAbRest(ctx, campaign.id, split.rest.map((r, position) => ({ position, phone: r.phone, contactId: r.contactId })));
  await scheduleAbDecision(ctx, user, campaign, test, startAt);
  return queued;
}

/** The job that picks the winner, when the test decides by itself (in the start's transaction). */
export async function scheduleAbDecision(ctx: AppContext, user: User, campaign: Pick<Campaign, "id">, test: AbTest, startAt: number) {
  if (test.decideAfterHours === null) return;
  await rescheduleJob(ctx, { kind: AB_DECIDE, key: abDecideKey(campaign.id), runAt: startAt + test.decideAfterHours * 3600_000, userId: user.id, refId: campaign.id });
}

/**
 * An A/B test's audience up to this size is split and its test written in the start's transaction, and its winner
 * sent to the rest in the decision's; a larger one is written in chunks (outbox-writer.ts, the steps of
 * OutboxWriting's `ab`). Measured by scripts/bench/ab-start.ts: 1,000 recipients held the loop 40 ms at the start
 * and 61 ms at the winner on a loaded machine, 10,000 for 1.7 s and 19 s.
 */
export const AB_AT_ONCE = 400;

/**
 * Where a recipient sits in a test's split order as campaign_ab_rest keeps it when the split is made in chunks: the
 * hash `splitAudience` sorts by, as a signed 64-bit integer in the same order (its top bit flipped). A phone met
 * again in a later chunk has the same key, so the table's key (campaign, position) keeps it once. (Two phones of one
 * campaign with the same 64-bit hash, about one chance in 10^9 at 100,000 recipients, would keep only the first.)
 */
export const splitKey = (campaignId: string, phone: string) => BigInt.asIntN(64, BigInt(Bun.hash.wyhash(`${campaignId}:${phone}`)) ^ (1n << 63n));

/** A chunk of a test's audience kept for the split (step `split`, in the chunk's transaction); answers how many were new. */
export function keepForSplit(ctx: AppContext, campaignId: string, recipients: Recipient[]): Promise<number> {
  return keepAbRest(ctx, campaignId, recipients.map((r) => ({ position: splitKey(campaignId, r.phone), phone: r.phone, contactId: r.contactId })));
}

/**
 * Kept recipients as messages go to them now: each phone's contact read again (its fields; opted out since, counted
 * out in `skipped`), and one whose contact was deleted since left out.
 */
export async function keptRecipients(ctx: AppContext, user: User, rows: { phone: string; contactId: string | null }[], skipped: OutboxResult["skipped"]): Promise<Recipient[]> {
  const hadContact = new Map(rows.map((r) => [r.phone, r.contactId]));
  return (await resolveTyped(ctx, user, rows.map((r) => r.phone), new Set(), skipped)).filter((r) => !hadContact.get(r.phone) || r.contactId !== null);
}

/**
 * The next chunk of a test written in chunks (inside the chunk's transaction): step `test` writes the next of the
 * first `size` in split order to the variants in turn (the i-th to variant i mod n, as splitAudience deals them);
 * step `winner` writes the next of the rest the winner's text. The rows written go from campaign_ab_rest in the same
 * transaction, so a chunk run again after a crash starts where the last committed one ended. Answers what was
 * queued, how many were turned away as already written, and the writing's next state (null: over).
 */
export async function writeAbChunk(ctx: AppContext, user: User, campaign: Campaign, w: OutboxWriting, window: number, skipped: OutboxResult["skipped"]) {
  const test = campaign.abTest!;
  const step = w.ab!;
  const dueAt = campaign.status === "paused" ? PARKED : w.dueAt;
  let queued = 0;
  let offered = 0;
  if (step.step === "test") {
    const rows = await takeKept(ctx, campaign.id, Math.min(window, step.size - w.cursor));
    const variantOf = new Map(rows.map((r, i) => [r.phone, (w.cursor + i) % test.variants.length]));
    const recipients = await keptRecipients(ctx, user, rows, skipped);
    for (const [v, content] of test.variants.entries()) {
      const group = recipients.filter((r) => variantOf.get(r.phone) === v);
      offered += group.length;
      queued += await writeOutbox(ctx, user, { ...campaign, content }, group, w.sender, w.dueAt, dueAt, v);
    }
    const cursor = w.cursor + rows.length;
    return { queued, duplicate: offered - queued, next: cursor < step.size && rows.length ? { ...w, cursor } : null };
  }
  if (step.step !== "winner") throw new Error(`writeAbChunk: step ${step.step} is the split's`);
  const rows = await takeKept(ctx, campaign.id, window);
  const recipients = await keptRecipients(ctx, user, rows, skipped);
  queued = await writeOutbox(ctx, user, { ...campaign, content: test.variants[step.winner]! }, recipients, w.sender, w.dueAt, dueAt);
  return { queued, duplicate: recipients.length - queued, next: rows.length === window ? { ...w, cursor: w.cursor + rows.length } : null };
}

/** After the split step: the test's size from the audience kept, and its writing from the first of the split order. */
export async function afterSplit(ctx: AppContext, campaign: Campaign, w: OutboxWriting): Promise<OutboxWriting> {
  return { ...w, cursor: 0, ab: { step: "test", size: testSize(await abRestCount(ctx, campaign.id), campaign.abTest!) } };
}
