import { campaigns } from "../../db/schema";
import { recipientReader } from "../contacts/recipients";
import { PhoneNormalizer } from "../contacts/phones";
import { defaultCountryOf } from "../users/default-country";
import type { AppContext } from "../context";
import { enqueue, type Sender } from "../messages/outbox";
import { segmentCount } from "../messages/segments";
import { businessNameOf, type User } from "../users/queries";
import { compile, type MergeValues } from "../../shared/personalisation/render";
import type { AudienceContact } from "../contacts/audience";
import { audienceContacts } from "./audiences";
import { expiryAt, linkDomainOf, shortener } from "../links/links";
import { findLinks, withShortLinkLengths } from "../../shared/links/text";
import { heldMediaIds } from "../media/media";

/** Who holds a campaign's attachments (src/media): each of its messages carries them, an MMS. */
export const campaignMedia = (id: string) => `campaign:${id}` as const;

export const OPT_OUT_LINE = "Reply STOP to opt out";

/** Opt-out instructions already written into a message ("Reply STOP to ...", "Text STOP to end"), not "stop" in prose. */
const HAS_OPT_OUT = /\b(?:reply|text|txt|send)\s+["'“]?stop\b|\bstop\s+to\s+(?:opt|end|quit|cancel|unsub)/i;

type Campaign = typeof campaigns.$inferSelect;
export type Recipient = {
  phone: string;
  contactId: string | null;
  firstName: string;
  lastName: string;
  email: string | null;
  customFields: Record<string, string>;
};
/** What a text is rendered with; `phone` and `email` may be absent (a typed sample). */
export type RecipientFields = Pick<Recipient, "firstName" | "lastName" | "customFields"> & { phone?: string | null; email?: string | null };

/**
 * A recipient's text: its merge fields filled by the one renderer (shared/personalisation/render.ts), then the opt-out
 * line unless turned off or the text already tells how to opt out. `template` may be the content compiled once, so
 * a campaign's many recipients do not re-parse it.
 */
export function personalize(template: string | ((v: MergeValues) => string), r: RecipientFields, business: string, appendOptOut: boolean): string {
  const fill = typeof template === "string" ? compile(template) : template;
  let text = fill({ firstName: r.firstName, lastName: r.lastName, phone: r.phone, email: r.email, business, customFields: r.customFields });
  if (appendOptOut && !HAS_OPT_OUT.test(text)) text = `${text.trimEnd()}\n${OPT_OUT_LINE}`;
  return text;
}

export type OutboxResult = { queued: number; skipped: { optedOut: number; invalid: number; duplicate: number } };

/**
 * Typed recipients as messages go to them: canonical phones, each once (`seen` carries across calls), with the
 * contact's fields when the phone is a contact's; invalid, repeated and opted-out numbers are counted out in `skipped`.
 */
export async function resolveTyped(ctx: AppContext, user: User, raws: string[], seen: Set<string>, skipped: OutboxResult["skipped"]): Promise<Recipient[]> {
  const lookup = await recipientReader(ctx, user.id);
  const phones = new PhoneNormalizer(await defaultCountryOf(ctx, user));
  const recipients: Recipient[] = [];
  for (const raw of raws) {
    const phone = phones.normalize(raw);
    if (!phone) {
      skipped.invalid++;
      continue;
    }
    if (seen.has(phone)) {
      skipped.duplicate++;
      continue;
    }
    seen.add(phone);
    const c = lookup(phone);
    if (c?.status === "opted_out") {
      skipped.optedOut++;
      continue;
    }
    recipients.push({
      phone,
      contactId: c?.id ?? null,
      firstName: c?.first_name ?? "",
      lastName: c?.last_name ?? "",
      email: c?.email ?? null,
      customFields: c ? JSON.parse(c.custom_fields) : {},
    });
  }
  return recipients;
}

/** An audience's contacts as recipients, each phone once (`seen` carries across calls); repeats counted in `skipped`. */
export function contactRecipients(contacts: AudienceContact[], seen: Set<string>, skipped: OutboxResult["skipped"]): Recipient[] {
  const recipients: Recipient[] = [];
  for (const c of contacts) {
    if (seen.has(c.phone)) {
      skipped.duplicate++;
      continue;
    }
    seen.add(c.phone);
    recipients.push({ phone: c.phone, contactId: c.id, firstName: c.first_name, lastName: c.last_name, email: c.email, customFields: JSON.parse(c.custom_fields) });
  }
  return recipients;
}

/** Who a campaign goes to, deduplicated by canonical phone, with opted-out and invalid numbers counted out. */
export async function resolveRecipients(ctx: AppContext, user: User, campaign: Campaign): Promise<{ recipients: Recipient[]; skipped: OutboxResult["skipped"] }> {
  const skipped = { optedOut: 0, invalid: 0, duplicate: 0 };
  const seen = new Set<string>();
  const recipients =
    campaign.audience.kind === "manual"
      ? await resolveTyped(ctx, user, campaign.recipients, seen, skipped)
      : contactRecipients(await audienceContacts(ctx, user.id, campaign.audience), seen, skipped);
  return { recipients, skipped };
}

/** The SMS (segments) of a campaign's messages to these recipients, merge fields filled: what they count against the plan. */
export async function outboxSegments(ctx: AppContext, user: User, campaign: Campaign, recipients: Recipient[]): Promise<number> {
  return (await segmentsEach(ctx, user, campaign, recipients)).reduce((a, b) => a + b, 0);
}

/** Each recipient's message's SMS (segments), in order: what outboxSegments sums (an A/B test compares them per variant). */
export async function segmentsEach(ctx: AppContext, user: User, campaign: Campaign, recipients: Recipient[]): Promise<number[]> {
  // An MMS is one message however long its text, as providers count and price it (shared/providers/mms.ts).
  if ((await heldMediaIds(ctx, campaignMedia(campaign.id))).length) return recipients.map(() => 1);
  const business = businessNameOf(user);
  const fill = compile(campaign.content);
  const measure = measuredAsSent(ctx, user, campaign.shortenLinks);
  return recipients.map((r) => segmentCount(measure(personalize(fill, r, business, campaign.appendOptOut))));
}

/**
 * A rendered text as it will be measured once sent: its links counted at a short link's length when they are to
 * be shortened (issue 32), so the plan's check and the cost estimate count what the provider gets.
 */
export function measuredAsSent(ctx: AppContext, user: User, shortenLinks: boolean): (text: string) => string {
  if (!shortenLinks) return (text) => text;
  const domain = linkDomainOf(ctx, user);
  return (text) => withShortLinkLengths(text, domain);
}

/**
 * The SMS (segments) of one message of a campaign rendered without a recipient (merge fields at their fallbacks):
 * every message's exactly when the text has no merge fields, else an estimate. A large campaign, written in chunks
 * later, is checked against the plan with it instead of rendering its whole audience before it starts.
 */
export async function segmentsPerMessage(ctx: AppContext, user: User, campaign: Pick<Campaign, "id" | "content" | "appendOptOut" | "shortenLinks">): Promise<number> {
  if ((await heldMediaIds(ctx, campaignMedia(campaign.id))).length) return 1;
  const text = personalize(campaign.content, { firstName: "", lastName: "", customFields: {} }, businessNameOf(user), campaign.appendOptOut);
  return segmentCount(measuredAsSent(ctx, user, campaign.shortenLinks)(text));
}

/**
 * Queues one message per recipient through the outbox, in its caller's transaction (a start's, a chunk's, the
 * winner's), its records awaited once per call, never per recipient (unique per campaign and phone, so a second call adds nobody twice), due at `dueAt` (by default `startAt`; a paused campaign's rows are written parked)
 * and expiring `expiresAfterMinutes` after `startAt`. An A/B test's messages carry their `abVariant` (0 = A).
 * Answers how many were queued.
 */
export async function writeOutbox(
  ctx: AppContext,
  user: User,
  campaign: Campaign,
  recipients: Recipient[],
  sender: Sender,
  startAt: number,
  dueAt = startAt,
  abVariant: number | null = null,
): Promise<number> {
  const business = businessNameOf(user);
  const fill = compile(campaign.content);
  const expiresAt = startAt + campaign.expiresAfterMinutes * 60_000;
  // Links become short links here, one per recipient and link, in the transaction that writes the messages (issue 32):
  // the campaign's link rows found or made once for the chunk, then one slim row per recipient and link, written
  // together once the messages are.
  const domain = linkDomainOf(ctx, user);
  const utm = { source: campaign.utmSource, medium: campaign.utmMedium, campaign: campaign.utmCampaign };
  const linksExpire = expiryAt(ctx.now(), campaign.linkExpiryDays);
  const mediaIds = await heldMediaIds(ctx, campaignMedia(campaign.id));
  // Ids reserved, as first needed, for as many short links as the content has links for each recipient (at least
  // one: a merge field may bring a link; one bringing more reserves more).
  const perText = Math.max(1, findLinks(campaign.content).length);
  const shorten = campaign.shortenLinks
    ? await shortener(ctx, domain, { userId: user.id, campaignId: campaign.id, source: `campaign:${campaign.id}`, utm, expiresAt: linksExpire }, recipients.length * perText)
    : null;
  const items = recipients.map((r) => {
    const id = Bun.randomUUIDv7();
    const text = personalize(fill, r, business, campaign.appendOptOut);
    const content = shorten ? shorten.shorten(text, id) : text;
    return {
      id,
      userId: user.id,
      campaignId: campaign.id,
      contactId: r.contactId,
      phone: r.phone,
      content,
      segments: mediaIds.length ? 1 : segmentCount(content),
      ...(mediaIds.length ? { sharedMediaIds: mediaIds } : {}),
      // A transactional campaign's messages are one-off messages: quiet hours and the daily cap leave them be.
      kind: campaign.transactional ? ("single" as const) : ("campaign" as const),
      sender,
      dueAt,
      expiresAt,
      abVariant,
    };
  });
  const written = await enqueue(ctx, items);
  // A recipient already written (a repeated chunk) got no new message, and keeps no short link.
  if (shorten) await shorten.write(written.length < items.length ? new Set(written) : undefined);
  return written.length;
}
