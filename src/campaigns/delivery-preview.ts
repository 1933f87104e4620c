import type { CampaignAudience } from "../../db/schema";
import { firstAudienceContact, lastContactRowid, zoneGroupsWhere, type AudienceContact } from "../contacts/audience";
import type { AppContext } from "../context";
import { segmentCount, segmentInfo } from "../messages/segments";
import { zoneForRecipient, type QuietHours } from "../sending/quiet-hours";
import { holdFor, stateOfNumber } from "../sending/state-rules";
import { stateRulesInForce } from "../state-rules/overrides";
import { businessNameOf, type User } from "../users/queries";
import { compile, fieldsOf } from "../../shared/personalisation/render";
import { clockLabel } from "../time/clock";
import { audienceCondition, audienceContacts, audienceContactsInWindow } from "./audiences";
import { inWindows, pieces } from "./turns";
import { parseScheduledAt, splitRecipients } from "./campaigns";
import { heldByCampaign } from "../messages/due";
import { measuredAsSent, personalize, resolveTyped, type Recipient } from "./outbox";
import { registrationWarning } from "./registration-warning";
import { testSize, variantLabel } from "./ab-split";
import { chooseSender } from "../phone-numbers/numbers";
import { cannotSendMms } from "../../shared/providers/mms";
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
/**
 * Who the audience comes to: numbers with how many recipients each stands for, and the first recipient; typed
 * numbers also as the recipients they resolve to (read once, for the longest message too).
 */
type Reach = { groups: { phone: string; n: number }[]; skipped: { optedOut: number; invalid: number; duplicate: number }; sample: Sample | undefined; typed?: Recipient[] };

/** Typed numbers resolved, and contacts chosen by id read, this many at a time, with turns of the event loop between. */
const TYPED_PIECE = 200;
const ID_PIECE = 2_000;

/**
 * Who the audience comes to, read in pieces with turns of the event loop between (issue 29 item 5): 100,000 typed
 * numbers resolved in one go held the loop 2.1 s of its own work, a million contacts grouped 0.5-1 s.
 */
export async function reachOf(ctx: AppContext, user: User, input: Pick<DeliveryPreviewInput, "audience" | "recipients">): Promise<Reach> {
  if (input.audience.kind === "manual") {
    const raw = Array.isArray(input.recipients) ? input.recipients : (input.recipients ?? "").split(/[,\n]/);
    const skipped = { optedOut: 0, invalid: 0, duplicate: 0 };
    const seen = new Set<string>();
    const typed: Recipient[] = [];
    const clock = pieces();
    for (let from = 0; from < raw.length; from += TYPED_PIECE) {
      // The same seen and skipped across pieces: the counts are the whole list's, as the writer's are.
      for (const r of await resolveTyped(ctx, user, splitRecipients(raw.slice(from, from + TYPED_PIECE)), seen, skipped)) typed.push(r);
      if (clock.due()) await clock.turn();
    }
    return { groups: typed.map((r) => ({ phone: r.phone, n: 1 })), skipped, sample: typed[0], typed };
  }
  // Contacts are unique by phone and the condition leaves out opted-out ones: nothing to skip or merge. Grouped a
  // window of rowids at a time (NOT INDEXED: a rowid range, not the account's index walked per window), or contacts
  // chosen by id a piece of ids at a time, and merged here.
  const where = await audienceCondition(ctx, user.id, input.audience);
  const merged = new Map<string, { phone: string; n: number }>();
  const add = (rows: { k: string; phone: string; n: number }[]) => {
    for (const r of rows) {
      const g = merged.get(r.k);
      if (!g) merged.set(r.k, { phone: r.phone, n: r.n });
      else {
        g.n += r.n;
        if (r.phone < g.phone) g.phone = r.phone;
      }
    }
  };
  const audience = input.audience;
  if (audience.kind === "contacts") {
    const clock = pieces();
    for (let from = 0; from < audience.contactIds.length; from += ID_PIECE) {
      add(await zoneGroupsWhere(ctx, await audienceCondition(ctx, user.id, { kind: "contacts", contactIds: audience.contactIds.slice(from, from + ID_PIECE) })));
      if (clock.due()) await clock.turn();
    }
  } else {
    await inWindows(await lastContactRowid(ctx), async (after, upTo) => add(await zoneGroupsWhere(ctx, where, { after, upTo })));
  }
  // The first customer added: the outbox is written in the order contacts were added.
  const first = await firstAudienceContact(ctx, where);
  return { groups: [...merged.values()], skipped: { optedOut: 0, invalid: 0, duplicate: 0 }, sample: first };
}

/**
 * The preview, computed in pieces with turns of the event loop between (issue 29 item 5): the audience read, its
 * groups' zones and rules, its every message rendered for the longest one and the registration warning's countries.
 */
export async function previewDelivery(ctx: AppContext, user: User, input: DeliveryPreviewInput) {
  const reach = await reachOf(ctx, user, input);
  const { groups, skipped, sample } = reach;
  const at = input.scheduledAt ? parseScheduledAt(input.scheduledAt, user.timezone) : ctx.now();
  const quiet = input.transactional ? { ...quietHoursOf(user), enabled: false } : quietHoursOf(user);
  const untilByZone = new Map<string, number | null>();
  // A state's hours hold marketing texts as the engine does (src/sending/state-rules.ts); its daily cap depends on
  // what each person got by then, which a preview does not know.
  const rules = input.transactional ? new Map() : await stateRulesInForce(ctx);
  let total = 0;
  let inQuietHours = 0;
  let first: number | null = null;
  let last: number | null = null;
  // A million numbers outside North America are a million groups.
  const clock = pieces();
  for (const g of groups) {
    if (clock.due()) await clock.turn();
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
    longest = await longestMessage(ctx, user, input, reach, (r) => measure(personalize(fill, r, business, appendOptOut)), { text, total });
  }
  const abTest = input.abTest && input.abTest.variants.length > 1 ? await abEstimate(ctx, user, input, input.abTest, reach, total) : null;
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
    registration: await registrationWarning(ctx, user, input.fromNumber, async () => groups),
    // With attachments: one MMS per recipient, priced per MMS, and the sender's refusal when it sends no MMS.
    mms: input.attachments ? { messages: total, refusal: await mmsRefusal(ctx, user, input.fromNumber) } : null,
  };
}

async function mmsRefusal(ctx: AppContext, user: User, fromNumber: string | null | undefined): Promise<string | null> {
  try {
    const sender = await chooseSender(ctx, user.id, fromNumber);
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
async function abEstimate(ctx: AppContext, user: User, input: DeliveryPreviewInput, test: { variants: string[]; testPercent: number }, reach: Reach, total: number) {
  const sample = reach.sample;
  const business = businessNameOf(user);
  const appendOptOut = input.appendOptOut ?? user.appendOptOut;
  const measure = measuredAsSent(ctx, user, input.shortenLinks ?? true);
  const size = testSize(total, test);
  const k = test.variants.length;
  const variants = [];
  for (const [i, content] of test.variants.entries()) {
    const fill = compile(content);
    const render = (r: Sample) => measure(personalize(fill, r, business, appendOptOut));
    const text = render(sample ?? { phone: "", firstName: "", lastName: "", customFields: {} });
    const longest = await longestMessage(ctx, user, { ...input, content }, reach, render, { text, total });
    const segments = input.attachments ? 1 : (longest?.segments ?? segmentCount(text));
    variants.push({ label: variantLabel(i), recipients: Math.floor(size / k) + (i < size % k ? 1 : 0), segments });
  }
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
async function longestMessage(
  ctx: AppContext,
  user: User,
  input: DeliveryPreviewInput,
  reach: Reach,
  render: (r: Sample) => string,
  first: { text: string; total: number },
) {
  const sample = reach.sample;
  if (!sample) return null;
  if (!fieldsOf(input.content ?? "").length) {
    const info = segmentInfo(first.text);
    return { text: first.text, recipient: nameOf(sample), ...info, totalSegments: info.segments * first.total };
  }
  let best = { text: first.text, recipient: sample, segments: -1, length: -1 };
  let totalSegments = 0;
  const consider = (r: Sample) => {
    const text = render(r);
    const segments = segmentCount(text);
    totalSegments += segments;
    if (segments > best.segments || (segments === best.segments && text.length > best.length)) best = { text, recipient: r, segments, length: text.length };
  };
  const considerContacts = (rows: AudienceContact[]) => {
    for (const c of rows) consider({ phone: c.phone, firstName: c.first_name, lastName: c.last_name, email: c.email, customFields: JSON.parse(c.custom_fields) });
  };
  const audience = input.audience;
  if (reach.typed) {
    const clock = pieces();
    for (const r of reach.typed) {
      consider(r);
      if (clock.due()) await clock.turn();
    }
  } else if (audience.kind === "contacts") {
    const clock = pieces();
    for (let from = 0; from < audience.contactIds.length; from += ID_PIECE) {
      considerContacts(await audienceContacts(ctx, user.id, { kind: "contacts", contactIds: audience.contactIds.slice(from, from + ID_PIECE) }));
      if (clock.due()) await clock.turn();
    }
  } else {
    // A window of rowids at a time: a million contacts rendered in one go held the event loop 3.3 s of its own work.
    await inWindows(await lastContactRowid(ctx), async (after, upTo) => considerContacts(await audienceContactsInWindow(ctx, user.id, audience, after, upTo)));
  }
  return { text: best.text, recipient: nameOf(best.recipient), ...segmentInfo(best.text), totalSegments };
}

/** `byLaw`: how many of them a state's rule holds (each recipient says which); the others wait for quiet hours. */
export type QuietWait = { count: number; byLaw: number; resumesAt: string; lastResumeAt: string };

/**
 * Messages of running campaigns the sending manager has put off until quiet hours end: queued, due later, not
 * parked by a pause, and not waiting out a provider error (those carry its code).
 */
async function quietWaits(ctx: AppContext, user: User, campaignIds: string[]): Promise<Map<string, QuietWait>> {
  const out = new Map<string, QuietWait>();
  if (!campaignIds.length) return out;
  const rows = await heldByCampaign(ctx, user.id, campaignIds, ctx.now());
  const label = clockLabel(user.quietHoursEnd, user.locale);
  for (const r of rows) out.set(r.id, { count: r.n, byLaw: r.byLaw, resumesAt: label, lastResumeAt: new Date(r.last).toISOString() });
  return out;
}

/** A campaign as the API answers it, with its quiet-hours wait (null when nothing is waiting). */
export async function withQuietWait<C extends { id: string }>(ctx: AppContext, user: User, list: C[]): Promise<(C & { quietWait: QuietWait | null })[]> {
  const waits = await quietWaits(ctx, user, list.map((c) => c.id));
  return list.map((c) => ({ ...c, quietWait: waits.get(c.id) ?? null }));
}
