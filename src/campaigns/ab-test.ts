import type { OutboxWriting } from "../../db/schema";
import type { AppContext } from "../context";
import { conflict, badRequest, HttpError, notFound } from "../http/errors";
import { cancelJobs, registerJobHandler, type Job } from "../jobs/jobs";
import { STOP_WORDS } from "../keywords/matcher";
import { clicksByMessage, rate } from "../links/clicks";
import { abVariantOfMessages, abVariantRepliers, abVariantStatusCounts } from "../messages/ab-variants";
import { PARKED } from "../messages/due";
import { campaignHasOpenMessages } from "../messages/outbox";
import { findUserById, type User } from "../users/queries";
import { AB_AT_ONCE, AB_DECIDE, abDecideKey, keptRecipients, variantLabel } from "./ab-split";
import { abRestCount, addSkipped, findCampaign, setWinnerOnce, setWriting, takeKept } from "./records";
import { CLEAR_AT, differenceConfidence, rankByRate, RECHECK_MINUTES, REPLY_WINDOW_HOURS } from "../../shared/campaigns/ab-stats";
import { getCampaign, viewOf, type CampaignRow } from "./campaigns";
import { pauseCampaign } from "./lifecycle";
import { writeOutbox } from "./outbox";
import { writeInChunks } from "./outbox-writer";
import { senderFor } from "./sender";
import { statusCountsByCampaign } from "./stats";

/**
 * An A/B test's report and its winner (issue 32 item 3). The winner is the variant with the higher rate of the
 * measure: human clicks (shared/links/classify.ts) or replies, over the test messages that reached a provider. A
 * rule picks it `decideAfterHours` after the start (a job on the jobs table, unique per campaign), or the user
 * does. Either way, one transaction sets the winner (only while none is set) and queues the rest of the audience
 * with the winner's text through the outbox (a large rest: sets where its chunked writing starts, each chunk taking
 * its recipients off the rest), so the rest is never sent twice: a second pick, the job run again after a crash, or
 * both at once find the winner set and do nothing (and the outbox is unique per campaign and phone).
 */

const REPLY_WINDOW_MS = REPLY_WINDOW_HOURS * 3600_000;
const RECHECK_MS = RECHECK_MINUTES * 60_000;

const MEASURE_NAMES = { clicks: "click rate", replies: "reply rate" } as const;
const pct = (n: number | null) => (n === null ? "–" : `${n.toFixed(1)}%`);

type Figures = { recipients: number; sent: number; delivered: number; failed: number; pending: number; humanClicks: number; clickers: number; repliers: number };
const noFigures = (): Figures => ({ recipients: 0, sent: 0, delivered: 0, failed: 0, pending: 0, humanClicks: 0, clickers: 0, repliers: 0 });

/** Status counts into figures: `sent` counts the messages a provider accepted (as the campaign's totalSent does). */
function addStatus(f: Figures, status: string, n: number, unsent: number) {
  f.recipients += n;
  if (status === "sent" || status === "delivered" || status === "unknown") f.sent += n;
  if (status === "failed") {
    f.sent += n - unsent;
    f.failed += n;
  }
  if (status === "delivered") f.delivered += n;
  if (status === "queued" || status === "sending") f.pending += n;
}

const withRates = (f: Figures) => ({ ...f, clickRate: rate(f.clickers, f.sent), replyRate: rate(f.repliers, f.sent) });

/**
 * The report: each variant's figures (recipients, sent, delivered, failed, people's clicks and clickers, repliers,
 * rates), the rest of the audience's (held until the winner, then sent it), the leader by the measure and the
 * confidence that it beats the runner-up, and the verdict in words.
 */
export async function abTestReport(ctx: AppContext, user: User, id: string) {
  return reportOf(ctx, await getCampaign(ctx, user.id, id));
}

/** The report of a campaign read (also by the rule's decision, a job), from the records of its messages and clicks. */
async function reportOf(ctx: AppContext, c: CampaignRow) {
  const id = c.id;
  const test = c.abTest;
  if (!test) throw notFound("This campaign has no A/B test");
  const held = c.abWinner === null || c.outboxWriting ? await abRestCount(ctx, id) : 0;
  const statuses = await abVariantStatusCounts(ctx, id);
  const clicked = await clicksByMessage(ctx, id);
  const variantOf = await abVariantOfMessages(ctx, id, [...clicked.keys()]);
  const repliers = await abVariantRepliers(ctx, id, REPLY_WINDOW_MS, ctx.now(), [...STOP_WORDS]);
  const variants = test.variants.map(noFigures);
  for (const r of statuses) if (variants[r.variant]) addStatus(variants[r.variant]!, r.status, r.n, r.unsent);
  const rest = noFigures();
  for (const r of await statusCountsByCampaign(ctx, [id])) addStatus(rest, r.status, r.n, r.unsent);
  for (const v of variants) for (const k of ["recipients", "sent", "delivered", "failed", "pending"] as const) rest[k] -= v[k];
  for (const [messageId, { clicks }] of clicked) {
    const v = variantOf.get(messageId);
    const f = v === undefined ? rest : variants[v];
    if (!f) continue;
    f.humanClicks += clicks;
    f.clickers += 1;
  }
  for (const [v, n] of repliers) if (variants[v]) variants[v]!.repliers = n;

  const hitsOf = (f: Figures) => (test.measure === "clicks" ? f.clickers : f.repliers);
  const ranked = rankByRate(variants.map((f, variant) => ({ variant, hits: hitsOf(f), of: f.sent })));
  const [first, second] = ranked as [(typeof ranked)[0], (typeof ranked)[0]];
  const diff = differenceConfidence(first, second);
  const leads = first.of > 0 && first.hits * second.of > second.hits * first.of;
  const clear = leads && diff !== null && diff.confidence >= CLEAR_AT;
  const name = MEASURE_NAMES[test.measure];
  const rateOf = (r: (typeof ranked)[0]) => rate(r.hits, r.of);
  let verdict: string;
  if (!first.of) verdict = "No test message has reached a provider yet.";
  else if (clear) {
    verdict = `${variantLabel(first.variant)} is the clear winner: a ${name} of ${pct(rateOf(first))} against ${pct(rateOf(second))} for ${variantLabel(second.variant)}, at ${diff!.confidence.toFixed(1)}% confidence.`;
  } else if (!leads) verdict = `No clear winner: the variants have the same ${name}.`;
  else if (diff === null) verdict = `No clear winner: too few recipients to compare.`;
  else {
    verdict = `No clear winner: ${variantLabel(first.variant)} leads with a ${name} of ${pct(rateOf(first))} against ${pct(rateOf(second))} for ${variantLabel(second.variant)}, at ${diff.confidence.toFixed(1)}% confidence (${CLEAR_AT}% makes a clear winner).`;
  }
  return {
    campaignId: id,
    measure: test.measure,
    testPercent: test.testPercent,
    decideAfterHours: test.decideAfterHours,
    /** When the rule picks the winner (null: by hand, or already picked). */
    decidesAt: test.decideAfterHours !== null && c.abWinner === null && c.sentAt ? new Date(c.sentAt.getTime() + test.decideAfterHours * 3600_000).toISOString() : null,
    variants: variants.map((f, i) => ({ label: variantLabel(i), content: test.variants[i]!, ...withRates(f) })),
    /** The rest of the audience: held for the winner (`held`), then sent it. */
    rest: { held, ...withRates(rest) },
    leader: first.of ? variantLabel(first.variant) : null,
    runnerUp: first.of ? variantLabel(second.variant) : null,
    /** Two-proportion z-test (pooled, two-sided) of the leader against the runner-up; null when it cannot be told. */
    z: diff?.z ?? null,
    confidence: diff?.confidence ?? null,
    clearWinner: clear,
    verdict,
    winner: c.abWinner === null ? null : variantLabel(c.abWinner),
    decidedBy: c.abDecidedBy,
    decidedAt: c.abDecidedAt?.toISOString() ?? null,
    /** The variant a rule would pick now: the higher rate, a tie to the earlier variant. */
    pick: variantLabel(first.variant),
    pickIndex: first.variant,
  };
}

/**
 * Sets the winner and queues the rest of the audience with its text, in one transaction (nested in the caller's:
 * the deciding job's), only if no winner is set, the test's own messages are all written and the campaign is
 * sending or paused (its rest then written parked, released by the resume). Answers whether it did. The rest is
 * read as typed numbers are: each phone's contact now (its fields; opted out since, left out and counted), and a
 * contact deleted since is left out. A rest larger than AB_AT_ONCE is written in chunks once the transaction has
 * committed (outbox-writer.ts, step `winner`), each chunk taking its recipients off the rest as it writes them.
 */
async function sendWinner(ctx: AppContext, user: User, c: CampaignRow, winner: number, by: "rule" | "user"): Promise<boolean> {
  const test = c.abTest!;
  const sender = await senderFor(ctx, user.id, c);
  const now = ctx.now();
  // In the caller's transaction (the user's pick, or the deciding job's savepoint in the jobs runner's pass).
  const decide = async () => {
    const won = await setWinnerOnce(ctx, c.id, winner, by, now);
    if (!won) return null;
    await cancelJobs(ctx, { key: abDecideKey(c.id) });
    if ((await abRestCount(ctx, c.id)) > AB_AT_ONCE) {
      const writing: OutboxWriting = { cursor: 0, dueAt: now, sender, ab: { step: "winner", winner } };
      await setWriting(ctx, c.id, writing);
      return "in chunks" as const;
    }
    const skipped = { optedOut: 0, invalid: 0, duplicate: 0 };
    // The whole rest, taken off as it is written.
    const recipients = await keptRecipients(ctx, user, await takeKept(ctx, c.id, null), skipped);
    const queued = await writeOutbox(ctx, user, { ...c, content: test.variants[winner]! }, recipients, sender, now, won === "paused" ? PARKED : now);
    await addSkipped(ctx, c.id, { ...skipped, duplicate: skipped.duplicate + (recipients.length - queued) });
    return "written" as const;
  };
  const done = await decide();
  // After the caller's transaction (the job's): a writer started inside it could not see the state it starts from.
  if (done === "in chunks") setImmediate(() => void writeInChunks(ctx, c.id));
  // No rest to send (an audience all in the test): the campaign may be over.
  else if (done) await ctx.campaignOutbox.settle([c.id]);
  return done !== null;
}

/**
 * POST /api/campaigns/:id/ab-test/winner: the user picks the winner (`variant`, a letter), or sends the leader now
 * (no variant); the rest of the audience gets it through the outbox.
 */
export async function pickWinnerByUser(ctx: AppContext, user: User, id: string, variant?: string | null) {
  // The campaign is read in the transaction that sets the winner; the callback awaits that record alone.
  await ctx.withTransaction(async () => {
    const c = await getCampaign(ctx, user.id, id);
    if (!c.abTest) throw notFound("This campaign has no A/B test");
    if (c.abWinner !== null) throw conflict(`The winner was already picked: variant ${variantLabel(c.abWinner)}`);
    if (c.status !== "sending" && c.status !== "paused") throw conflict(`This campaign is ${c.status}: its A/B test cannot send a winner`);
    if (c.outboxWriting) throw conflict("The test's messages are still being written: pick the winner once they are");
    let winner: number;
    if (variant === undefined || variant === null) winner = (await reportOf(ctx, c)).pickIndex;
    else {
      winner = c.abTest.variants.findIndex((_, i) => variantLabel(i) === variant.toUpperCase());
      if (winner < 0) throw badRequest(`Variant must be one of ${c.abTest.variants.map((_, i) => variantLabel(i)).join(", ")}`);
    }
    if (!(await sendWinner(ctx, user, c, winner, "user"))) throw conflict("The winner was picked meanwhile");
  });
  const c = await getCampaign(ctx, user.id, id);
  const report = await reportOf(ctx, c);
  return { campaign: await viewOf(ctx, c), report };
}

/**
 * The rule's decision, run by the job at its time inside the transaction that claims it: nothing when a winner is
 * set or the campaign no longer sends; later while test messages are still to go out; else the leader is sent.
 */
async function decideByRule(ctx: AppContext, job: Job) {
  const user = job.userId ? await findUserById(ctx, job.userId) : undefined;
  if (!user || !job.refId) return;
  const c = await findCampaign(ctx, user.id, job.refId);
  if (!c) return;
  if (!c.abTest || c.abWinner !== null || (c.status !== "sending" && c.status !== "paused")) return;
  if (c.outboxWriting || (await campaignHasOpenMessages(ctx, c.id))) return { runAgainAt: ctx.now() + RECHECK_MS };
  const { pickIndex } = await reportOf(ctx, c);
  try {
    await sendWinner(ctx, user, c, pickIndex, "rule");
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    await pauseCampaign(ctx, c.id, `Its A/B test's winner could not be sent: ${err.message}. Pick the winner again once that is fixed.`);
  }
}

export function registerAbDecisions(ctx: AppContext) {
  registerJobHandler(ctx, AB_DECIDE, decideByRule, { transactional: true, firstDelayMs: 60_000, maxAttempts: 8 });
}
