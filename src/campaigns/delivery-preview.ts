import { count, sql } from "drizzle-orm";
import { contacts, type CampaignAudience } from "../../db/schema";
import type { AppContext } from "../context";
import { segmentCount, segmentInfo } from "../messages/segments";
import { zoneForRecipient, type QuietHours } from "../sending/quiet-hours";
import { holdFor, stateOfNumber } from "../sending/state-rules";
import { stateRulesInForce } from "../state-rules/overrides";
import { businessNameOf, type User } from "../users/queries";
import { compile, fieldsOf } from "../personalisation/render";
import { clockLabel } from "../time/clock";
import { audienceCondition, audienceContacts } from "./audiences";
import { parseScheduledAt, splitRecipients } from "./campaigns";
import { heldByCampaign } from "../messages/due";
import { measuredAsSent, personalize, resolveRecipients, type Recipient } from "./outbox";
import { registrationWarning } from "./registration-warning";
import { testSize, variantLabel } from "./ab-split";
import { chooseSender } from "../phone-numbers/numbers";
import { cannotSendMms } from "../providers/mms";
import type { ProviderKind } from "../providers/types";

/**
 * What sending will really do, said before the user sends (issue 11): how many recipients the audience comes to
 * once opted-out, invalid and repeated numbers are left out, how many of them are inside quiet hours at the
 * moment it would go, and when those get it; the message exactly as the first of them will read it, and the
 * longest message any of them will get (its segments, and the segments of all of them).
 * The same code decides as the sending manager does: the recipient's zone from the number, else the account's.
 */

export type DeliveryPreviewInput = {
  audience: CampaignAudience;
  recipients?: string[] | string | null;
  content?: string;
  appendOptOut?: boolean;
  scheduledAt?: string | null;
  /** A transactional message (to typed numbers): quiet hours do not hold it. */
  transactional?: boolean;
  /** The sender asked for (the default number otherwise), for the registration warning. */
  fromNumber?: string | null;
  /** Links go out shortened (the default): texts are measured with short links (issue 32). */
  shortenLinks?: boolean;
  /** How many attachments it carries: with any, each message is one MMS (issue 33). */
  attachments?: number;
  /** An A/B test's texts (the first is `content`) and test share: each variant's messages counted at its own length. */
  abTest?: { variants: string[]; testPercent: number } | null;
};

/** The account's quiet hours as the sending manager reads them. */
const quietHoursOf = (user: User): QuietHours => ({
  enabled: user.quietHoursEnabled,
  start: user.quietHoursStart as QuietHours["start"],
  end: user.quietHoursEnd as QuietHours["end"],
});

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

type Sample = Pick<Recipient, "phone" | "firstName" | "lastName" | "customFields"> & { email?: string | null };
/** Who the audience comes to: numbers with how many recipients each stands for, and the first recipient. */
type Reach = { groups: { phone: string; n: number }[]; skipped: { optedOut: number; invalid: number; duplicate: number }; sample: Sample | undefined };

/**
 * North American numbers grouped by area code (recipient-zone decides their zone by it alone), any other number on
 * its own; so a list of a million customers is a few hundred groups, each with one zone.
 */
const ZONE_GROUP = sql`CASE WHEN length(${contacts.phone}) = 12 AND substr(${contacts.phone}, 2, 1) = '1' THEN substr(${contacts.phone}, 1, 5) ELSE ${contacts.phone} END`;

export function reachOf(ctx: AppContext, user: User, input: DeliveryPreviewInput): Reach {
  if (input.audience.kind === "manual") {
    // resolveRecipients reads only the audience and the typed numbers of a campaign.
    const draft = { audience: input.audience, recipients: splitRecipients(input.recipients) } as Parameters<typeof resolveRecipients>[2];
    const { recipients, skipped } = resolveRecipients(ctx, user, draft);
    return { groups: recipients.map((r) => ({ phone: r.phone, n: 1 })), skipped, sample: recipients[0] };
  }
  // Contacts are unique by phone and the condition leaves out opted-out ones: nothing to skip or merge.
  const where = audienceCondition(ctx, user.id, input.audience);
  const groups = ctx.db.select({ phone: sql<string>`min(${contacts.phone})`, n: count() }).from(contacts).where(where).groupBy(ZONE_GROUP).all();
  const first = ctx.db
    .select({ phone: sql<string>`${contacts.phone}`, firstName: contacts.firstName, lastName: contacts.lastName, email: contacts.email, customFields: contacts.customFields })
    .from(contacts)
    .where(where)
    // The first customer added (the outbox is written in the order contacts were added); without an order the
    // planner's index chose, and the lowest number came first.
    .orderBy(contacts.createdAt, sql`${contacts}.rowid`)
    .limit(1)
    .get();
  return { groups, skipped: { optedOut: 0, invalid: 0, duplicate: 0 }, sample: first };
}

export function previewDelivery(ctx: AppContext, user: User, input: DeliveryPreviewInput) {
  const { groups, skipped, sample } = reachOf(ctx, user, input);
  const at = input.scheduledAt ? parseScheduledAt(input.scheduledAt, user.timezone) : ctx.now();
  const quiet = input.transactional ? { ...quietHoursOf(user), enabled: false } : quietHoursOf(user);
  const untilByZone = new Map<string, number | null>();
  // A state's hours hold marketing texts as the engine does (src/sending/state-rules.ts); its daily cap depends on
  // what each person got by then, which a preview does not know.
  const rules = input.transactional ? new Map() : stateRulesInForce(ctx);
  let total = 0;
  let inQuietHours = 0;
  let first: number | null = null;
  let last: number | null = null;
  for (const g of groups) {
    total += g.n;
    const zone = zoneForRecipient(g.phone, user.timezone);
    const rule = rules.get(stateOfNumber(g.phone) ?? "") ?? null;
    const key = `${zone} ${rule?.state ?? ""}`;
    let until = untilByZone.get(key);
    if (until === undefined) untilByZone.set(key, (until = holdFor(at, zone, quiet.enabled ? quiet : null, rule, [])?.until ?? null));
    if (until === null) continue;
    inQuietHours += g.n;
    first = first === null ? until : Math.min(first, until);
    last = last === null ? until : Math.max(last, until);
  }
  let preview = null;
  let longest;
  if (input.content !== undefined) {
    const fill = compile(input.content);
    const business = businessNameOf(user);
    const appendOptOut = input.appendOptOut ?? user.appendOptOut;
    const measure = measuredAsSent(ctx, user, input.shortenLinks ?? true);
    const text = measure(personalize(fill, sample ?? { firstName: "", lastName: "", customFields: {} }, business, appendOptOut));
    preview = { text, recipient: sample ? nameOf(sample) : null, ...segmentInfo(text) };
    longest = longestMessage(ctx, user, input, (r) => measure(personalize(fill, r, business, appendOptOut)), { sample, text, total });
  }
  const abTest = input.abTest && input.abTest.variants.length > 1 ? abEstimate(ctx, user, input, input.abTest, sample, total) : null;
  return {
    total,
    inQuietHours,
    // Quiet hours end at the same clock time everywhere: the recipient's own morning.
    resumesAt: inQuietHours ? clockLabel(quiet.end, user.locale) : null,
    firstResumeAt: iso(first),
    lastResumeAt: iso(last),
    skipped,
    preview,
    longest,
    abTest,
    // Carriers that will block the sender's texts to some of these recipients (issue 34 item 1).
    registration: registrationWarning(ctx, user, input.fromNumber, () => groups),
    // With attachments: one MMS per recipient, priced per MMS, and the sender's refusal when it sends no MMS.
    mms: input.attachments ? { messages: total, refusal: mmsRefusal(ctx, user, input.fromNumber) } : null,
  };
}

function mmsRefusal(ctx: AppContext, user: User, fromNumber: string | null | undefined): string | null {
  try {
    const sender = chooseSender(ctx, user.id, fromNumber);
    return sender ? cannotSendMms(sender.provider as ProviderKind) : null;
  } catch {
    // A number no longer the account's: the send itself says so.
    return null;
  }
}

/**
 * What an A/B test will send (issue 32 item 3): the test share split evenly between the variants, each variant's
 * longest message for this audience, and the segments of it all, the rest counted at the longest variant's (the
 * winner is not known before the test): the figure the cost estimate takes. With attachments each is one MMS.
 */
function abEstimate(ctx: AppContext, user: User, input: DeliveryPreviewInput, test: { variants: string[]; testPercent: number }, sample: Sample | undefined, total: number) {
  const business = businessNameOf(user);
  const appendOptOut = input.appendOptOut ?? user.appendOptOut;
  const measure = measuredAsSent(ctx, user, input.shortenLinks ?? true);
  const size = testSize(total, test);
  const k = test.variants.length;
  const variants = test.variants.map((content, i) => {
    const fill = compile(content);
    const render = (r: Sample) => measure(personalize(fill, r, business, appendOptOut));
    const text = render(sample ?? { phone: "", firstName: "", lastName: "", customFields: {} });
    const longest = longestMessage(ctx, user, { ...input, content }, render, { sample, text, total });
    const segments = input.attachments ? 1 : (longest?.segments ?? segmentCount(text));
    return { label: variantLabel(i), recipients: Math.floor(size / k) + (i < size % k ? 1 : 0), segments };
  });
  const rest = total - size;
  const most = Math.max(...variants.map((v) => v.segments));
  return { testRecipients: size, restRecipients: rest, variants, totalSegments: variants.reduce((sum, v) => sum + v.recipients * v.segments, 0) + rest * most };
}

const nameOf = (r: Sample) => `${r.firstName} ${r.lastName}`.trim() || r.phone;

/**
 * The longest message the audience will receive once each recipient's merge fields are filled (the one whose
 * segments the counter shows, since a long name can tip a message into a second segment), and the segments of all
 * of them together (what the provider bills). Without merge fields every message is the first recipient's.
 */
function longestMessage(
  ctx: AppContext,
  user: User,
  input: DeliveryPreviewInput,
  render: (r: Sample) => string,
  first: { sample: Sample | undefined; text: string; total: number },
) {
  if (!first.sample) return null;
  if (!fieldsOf(input.content ?? "").length) {
    const info = segmentInfo(first.text);
    return { text: first.text, recipient: nameOf(first.sample), ...info, totalSegments: info.segments * first.total };
  }
  let best = { text: first.text, recipient: first.sample, segments: -1, length: -1 };
  let totalSegments = 0;
  const consider = (r: Sample) => {
    const text = render(r);
    const segments = segmentCount(text);
    totalSegments += segments;
    if (segments > best.segments || (segments === best.segments && text.length > best.length)) best = { text, recipient: r, segments, length: text.length };
  };
  if (input.audience.kind === "manual") {
    const draft = { audience: input.audience, recipients: splitRecipients(input.recipients) } as Parameters<typeof resolveRecipients>[2];
    for (const r of resolveRecipients(ctx, user, draft).recipients) consider(r);
  } else {
    for (const c of audienceContacts(ctx, user.id, input.audience)) {
      consider({ phone: c.phone, firstName: c.first_name, lastName: c.last_name, email: c.email, customFields: JSON.parse(c.custom_fields) });
    }
  }
  return { text: best.text, recipient: nameOf(best.recipient), ...segmentInfo(best.text), totalSegments };
}

/** `byLaw`: how many of them a state's rule holds (each recipient says which); the others wait for quiet hours. */
export type QuietWait = { count: number; byLaw: number; resumesAt: string; lastResumeAt: string };

/**
 * Messages of running campaigns the sending manager has put off until quiet hours end: queued, due later, not
 * parked by a pause, and not waiting out a provider error (those carry its code).
 */
export function quietWaits(ctx: AppContext, user: User, campaignIds: string[]): Map<string, QuietWait> {
  const out = new Map<string, QuietWait>();
  if (!campaignIds.length) return out;
  const rows = heldByCampaign(ctx, user.id, campaignIds, ctx.now());
  const label = clockLabel(user.quietHoursEnd, user.locale);
  for (const r of rows) out.set(r.id, { count: r.n, byLaw: r.byLaw, resumesAt: label, lastResumeAt: new Date(r.last).toISOString() });
  return out;
}

/** A campaign as the API answers it, with its quiet-hours wait (null when nothing is waiting). */
export function withQuietWait<C extends { id: string }>(ctx: AppContext, user: User, list: C[]): (C & { quietWait: QuietWait | null })[] {
  const waits = quietWaits(ctx, user, list.map((c) => c.id));
  return list.map((c) => ({ ...c, quietWait: waits.get(c.id) ?? null }));
}
