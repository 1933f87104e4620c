import { explainCarrierError } from "../messages/carrier-errors";
import type { campaigns, CampaignAudience, CampaignStatus, OutboxWriting } from "../../db/schema";
import type { AppContext } from "../context";
import { quietHoldOf, type HeldRow } from "../messages/due";
import { campaignMessagePage } from "../messages/messages";
import { appendEvent } from "../events/events";
import { badRequest, conflict, notFound } from "../http/errors";
import { assertWithinLimit, usageFor } from "../licenses/limits";
import { senderFor } from "./sender";
import { AB_AT_ONCE, abSegments, cleanAbTest, scheduleAbDecision, splitAudience, variantLabel, writeAbTest, type AbTestInput } from "./ab-split";
import { wallToInstant } from "../time/zones";
import type { User } from "../users/queries";
import { campaignsMessaging, cancelCampaignMessages, hasMessages, releaseCampaign, type Sender } from "../messages/outbox";
import { accountStatusCounts, statusCountsByCampaign } from "./stats";
import { historyCsvResponse, rangeBounds, type HistoryRange, type HistorySort } from "./history";
import { PhoneNormalizer } from "../contacts/phones";
import { namesOfContacts } from "../contacts/contacts";
import { customFieldsHeld } from "../contacts/recipients";
import { defaultCountryOf } from "../users/default-country";
import { customFieldsOf, unknownFieldsMessage } from "../../shared/personalisation/render";
import { outboxSegments, resolveRecipients, segmentsPerMessage, writeOutbox, type OutboxResult } from "./outbox";
import { pauseCampaign } from "./lifecycle";
import { cancelCampaignStart, scheduleCampaignStart } from "./start-jobs";
import { CHUNKED_ABOVE, firstChunk, recipientCountUpTo, writeInChunks } from "./outbox-writer";
import {
  archiveRows,
  campaignNames,
  campaignPage,
  campaignsInStatus,
  deleteInStatus,
  findCampaign,
  findStartRow,
  insertCampaign,
  markCancelled,
  markResumed,
  markScheduled,
  markSending,
  typedRecipientsOf,
  updateFields,
  onConnection,
  type CampaignFilter,
  type CampaignRow,
  type StartRow,
} from "./records";
import { campaignClicks, humanClicksByCampaign, rate } from "../links/clicks";
import { assertHoldable, copyMedia, heldMedia, holdMedia, mediaView, releaseMedia, type MediaRow } from "../media/media";
import { campaignMedia } from "./outbox";

/** A campaign's statuses, as the schema declares them: the public API documents them (src/public-api/contract.ts). */
export { CAMPAIGN_STATUSES } from "../../db/schema";

export type { CampaignRow, StartRow } from "./records";

const COUNTED = ["queued", "sending", "sent", "delivered", "failed", "unknown", "skipped", "expired", "cancelled"] as const;
// `refused`: failed messages the provider never accepted (no sent_at); they are failures, but were never sent.
type Counts = Record<(typeof COUNTED)[number] | "refused", number>;

async function countsFor(ctx: AppContext, ids: string[]): Promise<Map<string, Counts>> {
  const out = new Map<string, Counts>();
  if (!ids.length) return out;
  const rows = await statusCountsByCampaign(ctx, ids);
  for (const id of ids) out.set(id, { ...(Object.fromEntries(COUNTED.map((s) => [s, 0])) as Counts), refused: 0 });
  for (const r of rows) {
    const k = out.get(r.id)!;
    if (r.status in k) k[r.status as keyof Counts] = r.n;
    if (r.status === "failed") k.refused = r.unsent;
  }
  return out;
}

export function campaignView(c: CampaignRow, k: Counts, clicks: { clicks: number; clickers: number } = { clicks: 0, clickers: 0 }, media: MediaRow[] = []) {
  const recipients = COUNTED.reduce((sum, s) => sum + k[s], 0);
  const totalSent = k.sent + k.delivered + k.failed - k.refused + k.unknown;
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    status: c.status,
    content: c.content,
    subject: c.subject,
    fromEmail: c.fromEmail,
    fromName: c.fromName,
    fromNumber: c.fromNumber,
    recipients: c.recipients,
    audience: c.audience,
    scheduledAt: c.scheduledAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    sentAt: c.sentAt?.toISOString() ?? null,
    completedAt: c.completedAt?.toISOString() ?? null,
    pauseReason: c.pauseReason,
    expiresAfterMinutes: c.expiresAfterMinutes,
    appendOptOut: c.appendOptOut,
    /** Not marketing: quiet hours never hold its messages (typed numbers only). */
    transactional: c.transactional,
    /** When the user chose to send its held messages at once; quiet hours hold none of its messages since. */
    anyHourSince: c.anyHourSince?.toISOString() ?? null,
    archived: c.archivedAt !== null,
    /** Its outbox is still being written (a large audience, in chunks): more recipients are on their way in. */
    writingOutbox: c.outboxWriting !== null,
    counts: { recipients, pending: k.queued, sending: k.sending, sent: k.sent, delivered: k.delivered, failed: k.failed, refused: k.refused, unknown: k.unknown, skipped: k.skipped, expired: k.expired, cancelled: k.cancelled },
    skipped: { optedOut: c.skippedOptedOut, invalid: c.skippedInvalid, duplicate: c.skippedDuplicate },
    totalSent,
    totalDelivered: k.delivered,
    totalBounced: k.failed,
    successRate: totalSent ? Math.round((k.delivered / totalSent) * 1000) / 10 : null,
    /** Links go out as short links (issue 32): with these UTM parameters, answering for this many days. */
    shortenLinks: c.shortenLinks,
    utmSource: c.utmSource,
    utmMedium: c.utmMedium,
    utmCampaign: c.utmCampaign,
    linkExpiryDays: c.linkExpiryDays,
    /** People's clicks (shared/links/classify.ts), and the share of recipients reached who clicked. */
    humanClicks: clicks.clicks,
    clickRate: rate(clicks.clickers, totalSent),
    /** Its attachments (issue 33): with any, each message is an MMS. */
    media: media.map(mediaView),
    /** Its A/B test (issue 32 item 3): the variants (A is `content`), the test share, the measure and the rule; the winner once picked. */
    abTest: c.abTest
      ? {
          ...c.abTest,
          variants: c.abTest.variants.map((content, i) => ({ label: variantLabel(i), content })),
          winner: c.abWinner === null ? null : variantLabel(c.abWinner),
          decidedAt: c.abDecidedAt?.toISOString() ?? null,
          decidedBy: c.abDecidedBy,
        }
      : null,
  };
}

export async function getCampaign(ctx: AppContext, userId: string, id: string): Promise<CampaignRow> {
  const row = await findCampaign(ctx, userId, id);
  if (!row) throw notFound("Campaign not found");
  return row;
}

/** A campaign as it is now, for its live progress frame; null when it was deleted (read in one turn after ready). */
export async function progressView(ctx: AppContext, userId: string, id: string) {
  const row = await findCampaign(ctx, userId, id);
  return row && viewOf(ctx, row);
}

/** A campaign as GET /api/campaigns/:id answers it (before its quiet-hours wait). */
export async function campaignViewOf(ctx: AppContext, userId: string, id: string) {
  return viewOf(ctx, await getCampaign(ctx, userId, id));
}

/** A campaign's click figures (issue 32): people's clicks and click rate, per link and per day, and every hit by verdict. */
export async function campaignClickFigures(ctx: AppContext, userId: string, id: string) {
  const view = await viewOf(ctx, await getCampaign(ctx, userId, id));
  return { campaignId: id, reached: view.totalSent, ...(await campaignClicks(ctx, userId, id, view.totalSent)) };
}

/** A campaign's view: its counts, clicks and media awaited. */
export async function viewOf(ctx: AppContext, row: CampaignRow) {
  const counts = (await countsFor(ctx, [row.id])).get(row.id)!;
  const clicks = (await humanClicksByCampaign(ctx, [row.id])).get(row.id);
  return campaignView(row, counts, clicks, (await heldMedia(ctx, [campaignMedia(row.id)])).get(campaignMedia(row.id)));
}

export type CampaignListQuery = CampaignFilter & {
  page: number;
  pageSize: number;
  /** Default: newest made first. */
  sort?: HistorySort;
};

export async function listCampaigns(ctx: AppContext, userId: string, q: CampaignListQuery) {
  const { page, pageSize, ...filter } = q;
  const { rows, total } = await campaignPage(ctx, userId, { ...filter, limit: pageSize, offset: (page - 1) * pageSize });
  const counts = await countsFor(ctx, rows.map((r) => r.id));
  const clicks = await humanClicksByCampaign(ctx, rows.map((r) => r.id));
  const media = await heldMedia(ctx, rows.map((r) => campaignMedia(r.id)));
  return { data: rows.map((r) => campaignView(r, counts.get(r.id)!, clicks.get(r.id), media.get(campaignMedia(r.id)))), total, page: q.page, pageSize: q.pageSize };
}

/** The list as a screen asks for it: date filters read in the account's zone, a search that looks like a phone also finds the campaigns that messaged it. */
export type CampaignSearch = Omit<CampaignListQuery, "bounds" | "alsoIds"> & { range?: HistoryRange; from?: string; to?: string };

async function resolveSearch(ctx: AppContext, user: User, q: CampaignSearch): Promise<CampaignListQuery> {
  await onConnection(ctx);
  const { range, from, to, ...rest } = q;
  const term = q.q?.trim() ?? "";
  const phone = term.replace(/\D/g, "").length >= 7 ? new PhoneNormalizer(await defaultCountryOf(ctx, user)).normalize(term) : null;
  return { ...rest, bounds: rangeBounds({ range, from, to }, user.timezone, ctx.now()), alsoIds: phone ? await campaignsMessaging(ctx, user.id, phone) : undefined };
}

export async function searchCampaigns(ctx: AppContext, user: User, q: CampaignSearch) {
  return listCampaigns(ctx, user.id, await resolveSearch(ctx, user, q));
}

/** Every campaign the search matches (all its pages) as a CSV download; see historyCsvResponse. */
export async function campaignsCsv(ctx: AppContext, user: User, q: Omit<CampaignSearch, "page" | "pageSize">) {
  const query = await resolveSearch(ctx, user, { ...q, page: 1, pageSize: 1 });
  return historyCsvResponse(user, ctx.now(), async (page, pageSize) => (await listCampaigns(ctx, user.id, { ...query, page, pageSize })).data);
}

export type CampaignInput = {
  name?: string;
  type?: string;
  content?: string;
  subject?: string | null;
  fromEmail?: string | null;
  fromName?: string | null;
  fromNumber?: string | null;
  recipients?: string[] | string | null;
  audience?: CampaignAudience | null;
  scheduledAt?: string | null;
  expiresAfterMinutes?: number;
  appendOptOut?: boolean;
  transactional?: boolean;
  shortenLinks?: boolean;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  linkExpiryDays?: number;
  /** Its attachments (uploads of POST /api/media), in order: each message an MMS; [] or null for none. */
  mediaIds?: string[];
  /** An A/B test of 2-4 texts (issue 32 item 3), null for none; its first text becomes the campaign's content. */
  abTest?: AbTestInput | null;
};

/** Recipients as typed: split on commas or newlines, trimmed, empties dropped (business.md section 5). */
export function splitRecipients(input: string[] | string | null | undefined): string[] {
  const list = Array.isArray(input) ? input : (input ?? "").split(/[,\n]/);
  return list.flatMap((r) => r.split(/[,\n]/)).map((r) => r.trim()).filter(Boolean);
}

/** The most numbers typed in one campaign, and the longest a typed list (a text) or one of its entries may be. */
export const TYPED_LIMITS = { entries: 100_000, text: 4_000_000, entry: 320 };
const TOO_MANY_TYPED = "Please enter at most 100,000 recipients; use a contact list for more";

/**
 * Checks the shape of typed recipients as a request sent them (an array of strings, or one string), in one pass that
 * builds nothing. The routes' schemas take the field as it comes, since TypeBox's clean and decode steps walked a
 * 100,000-entry list three times each, and with the checks they held the event loop about 100 ms per request.
 */
export function assertTypedRecipients(input: unknown): asserts input is string[] | string | null | undefined {
  if (input === null || input === undefined) return;
  if (typeof input === "string") {
    if (input.length > TYPED_LIMITS.text) throw badRequest(`Invalid recipients: at most ${TYPED_LIMITS.text.toLocaleString("en-US")} characters`);
    return;
  }
  if (!Array.isArray(input)) throw badRequest("Invalid recipients: expected a list of numbers, or numbers in one text separated by commas or new lines");
  if (input.length > TYPED_LIMITS.entries) throw badRequest(TOO_MANY_TYPED);
  for (let i = 0; i < input.length; i++) {
    const r: unknown = input[i];
    if (typeof r !== "string") throw badRequest(`Invalid recipients.${i}: expected a string`);
    if (r.length > TYPED_LIMITS.entry) throw badRequest(`Invalid recipients.${i}: at most ${TYPED_LIMITS.entry} characters`);
  }
}

/** Typed recipients split, and checked, this many at a time between turns of the event loop. */
const RECIPIENTS_SLICE = 5_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * splitRecipients for a list that may hold 100,000 numbers, a slice at a time with a turn of the event loop between
 * (in one go, a 100,000-recipient draft held the loop 170 ms with its checks), and with a number's check on the way.
 */
async function splitRecipientsInSlices(input: string[] | string | null | undefined, valid: (r: string) => boolean): Promise<{ list: string[]; allValid: boolean }> {
  const raw = Array.isArray(input) ? input : (input ?? "").split(/[,\n]/);
  const list: string[] = [];
  let allValid = true;
  for (let from = 0; from < raw.length; from += RECIPIENTS_SLICE) {
    if (from) await nextTurn();
    for (const r of splitRecipients(raw.slice(from, from + RECIPIENTS_SLICE))) {
      list.push(r);
      if (allValid && !valid(r)) allValid = false;
    }
  }
  return { list, allValid };
}

const SMS_RECIPIENT = /^\+?1?[\d\s\-()]{10,15}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const validSms = (r: string) => SMS_RECIPIENT.test(r) && r.replace(/\D/g, "").length >= 10;
const validEmail = (r: string) => EMAIL.test(r);

/**
 * A date-time from the UI: an ISO instant, or a wall-clock time without an offset, which is read in the
 * account's time zone (the time the user means).
 */
export function parseScheduledAt(value: string, timeZone: string): number {
  const v = value.trim();
  if (/[zZ]|[+-]\d\d:?\d\d$/.test(v)) {
    const at = Date.parse(v);
    if (Number.isNaN(at)) throw badRequest("Please choose a valid date and time");
    return at;
  }
  const m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,3})?)?$/.exec(v);
  if (!m) throw badRequest("Please choose a valid date and time");
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as number[];
  return wallToInstant(timeZone, Date.UTC(y!, mo! - 1, d!, h!, mi!, s ?? 0));
}

/** Refuses a text with a merge field that is neither built in nor a custom field of any of the account's contacts. */
async function assertKnownFields(ctx: AppContext, userId: string, content: string) {
  const custom = customFieldsOf(content);
  if (!custom.length) return;
  const known = await customFieldsHeld(ctx, userId, custom);
  const unknown = custom.filter((f) => !known.has(f));
  if (unknown.length) throw badRequest(unknownFieldsMessage(unknown), { code: "unknown_merge_field", fields: unknown });
}

/** Validates a create body, or an update's changed fields against the `current` campaign they apply to. */
async function cleanInput(ctx: AppContext, input: CampaignInput, user: User, current?: CampaignRow) {
  const partial = current !== undefined;
  const out: Partial<typeof campaigns.$inferInsert> = {};
  if (!partial || input.name !== undefined) {
    const name = (input.name ?? "").trim();
    if (!name) throw badRequest("Campaign name is required");
    if (name.length > 200) throw badRequest("Campaign name is too long (200 characters at most)");
    out.name = name;
  }
  if (!partial || input.type !== undefined) {
    const type = input.type ?? "sms";
    if (type !== "sms" && type !== "email") throw badRequest("Type must be email or sms");
    out.type = type;
  }
  if (input.abTest !== undefined) {
    if (input.abTest && (out.type ?? current?.type ?? "sms") !== "sms") throw badRequest("A/B tests are for SMS campaigns");
    const shorten = input.shortenLinks ?? current?.shortenLinks ?? true;
    out.abTest = input.abTest ? await cleanAbTest(input.abTest, shorten, (text) => assertKnownFields(ctx, user.id, text)) : null;
    // Variant A is the campaign's text: the counters, previews and the history read it as they read any campaign's.
    if (out.abTest) out.content = out.abTest.variants[0]!;
  } else if (current?.abTest) {
    if (input.shortenLinks === false && current.abTest.measure === "clicks") {
      throw badRequest("The click rate is measured on short links: turn link shortening on, or pick the winner by replies");
    }
    if (input.content !== undefined && input.content.trim() !== current.abTest.variants[0]) {
      throw badRequest("This campaign is an A/B test: its text is variant A, changed with the variants (abTest)");
    }
  }
  if (!out.abTest && (!partial || input.content !== undefined)) {
    const content = (input.content ?? "").trim();
    if (!content) throw badRequest("Content is required");
    if (content.length > 1600) throw badRequest("Content is too long (1,600 characters at most)");
    await assertKnownFields(ctx, user.id, content);
    out.content = content;
  }
  for (const key of ["subject", "fromEmail", "fromName", "fromNumber"] as const) {
    if (input[key] !== undefined) out[key] = input[key]?.trim() || null;
  }
  const type = out.type ?? current?.type ?? "sms";
  const valid = type === "email" ? validEmail : validSms;
  let typedValid: boolean | null = null;
  if (input.recipients !== undefined) {
    assertTypedRecipients(input.recipients);
    const typed = await splitRecipientsInSlices(input.recipients, valid);
    out.recipients = typed.list;
    typedValid = typed.allValid;
  }
  if (input.audience !== undefined) out.audience = input.audience ?? { kind: "manual" };
  else if (!partial) out.audience = { kind: "manual" };
  const audience = out.audience ?? current?.audience;
  if (audience?.kind === "manual") {
    const list = out.recipients ?? current?.recipients ?? [];
    if (!list.length) throw badRequest("Recipients are required");
    // The saved list was checked when it was typed, against the type it had; a new type checks it again.
    if (typedValid === null) typedValid = list.every(valid);
    if (!typedValid) throw badRequest(type === "email" ? "Please enter valid email addresses" : "Please enter valid phone numbers");
    if (list.length > TYPED_LIMITS.entries) throw badRequest(TOO_MANY_TYPED);
  }
  if (audience?.kind === "contacts" && !audience.contactIds.length) throw badRequest("Please select at least one contact");
  if (input.transactional !== undefined) out.transactional = input.transactional;
  // A one-off the recipient expects (an order update, an appointment) goes to numbers typed in; a list or a segment
  // is marketing, which quiet hours must hold.
  if ((out.transactional ?? current?.transactional) && audience?.kind !== "manual") {
    throw badRequest("Only a message to numbers typed in can be transactional: a list or a segment is marketing");
  }
  if (input.scheduledAt !== undefined) out.scheduledAt = input.scheduledAt ? new Date(parseScheduledAt(input.scheduledAt, user.timezone)) : null;
  if (input.expiresAfterMinutes !== undefined) out.expiresAfterMinutes = input.expiresAfterMinutes;
  if (input.appendOptOut !== undefined) out.appendOptOut = input.appendOptOut;
  else if (!partial) out.appendOptOut = user.appendOptOut;
  if (input.shortenLinks !== undefined) out.shortenLinks = input.shortenLinks;
  for (const k of ["utmSource", "utmMedium", "utmCampaign"] as const) if (input[k] !== undefined) out[k] = input[k]?.trim() || null;
  if (input.linkExpiryDays !== undefined) out.linkExpiryDays = input.linkExpiryDays;
  return out;
}

export async function createCampaign(ctx: AppContext, user: User, input: CampaignInput) {
  // A turn of the event loop after the request's body (1.7 MB for 100,000 numbers) was parsed, as updateCampaign.
  await nextTurn();
  const values = await cleanInput(ctx, input, user);
  const mediaIds = input.mediaIds ?? [];
  const now = new Date(ctx.now());
  // The typed list as written, not read back: parsing 100,000 numbers again held the event loop once more. The
  // attachments are checked in the transaction that holds them.
  const row = await ctx.withTransaction(async () => {
    await assertHoldable(ctx, user.id, null, mediaIds);
    const row = await insertCampaign(ctx, { ...(values as typeof campaigns.$inferInsert), id: Bun.randomUUIDv7(), userId: user.id, status: "draft", createdAt: now, updatedAt: now });
    if (mediaIds.length) await holdMedia(ctx, user.id, campaignMedia(row.id), mediaIds);
    return row;
  });
  // And one after the write (a 100,000-number list is 1.7 MB of JSON made and stored) before the answer is made.
  if ((values.recipients?.length ?? 0) > RECIPIENTS_SLICE) await nextTurn();
  return viewOf(ctx, { ...row, recipients: values.recipients ?? [] });
}

/** A campaign's row but its typed list (up to 100,000 numbers of JSON to parse), null when it is not the account's. */
export const campaignWithoutRecipients = findStartRow;

export async function updateCampaign(ctx: AppContext, user: User, id: string, input: CampaignInput) {
  // A turn of the event loop after the request's body (1.7 MB for 100,000 numbers) was parsed and checked in this one.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const row = await findStartRow(ctx, user.id, id);
  if (!row) throw notFound("Campaign not found");
  if (row.status !== "draft" && row.status !== "scheduled") throw conflict("Only draft and scheduled campaigns can be edited");
  // The saved list is read only when the edit keeps it (its checks and the answer need it).
  const saved = input.recipients === undefined ? (await getCampaign(ctx, user.id, id)).recipients : [];
  const values = await cleanInput(ctx, input, user, { ...row, recipients: saved });
  // The checks took turns of the event loop: the campaign may have been sent or deleted meanwhile. Its status is read
  // again in the transaction that writes, with the attachments' check.
  const answer = await ctx.withTransaction(async () => {
    const status = (await findStartRow(ctx, user.id, id))?.status;
    if (!status) throw notFound("Campaign not found");
    if (status !== "draft" && status !== "scheduled") throw conflict("Only draft and scheduled campaigns can be edited");
    if (input.mediaIds !== undefined) await assertHoldable(ctx, user.id, campaignMedia(id), input.mediaIds ?? []);
    await updateFields(ctx, id, { ...values, updatedAt: new Date(ctx.now()) });
    if (input.mediaIds !== undefined) await holdMedia(ctx, user.id, campaignMedia(id), input.mediaIds ?? []);
    if (status === "scheduled" && values.scheduledAt !== undefined) {
      if (values.scheduledAt) await scheduleCampaignStart(ctx, user.id, id, values.scheduledAt.getTime());
      else {
        await cancelCampaignStart(ctx, id);
        await updateFields(ctx, id, { status: "draft" });
      }
    }
    return (await findStartRow(ctx, user.id, id))!;
  });
  return viewOf(ctx, { ...answer, recipients: values.recipients ?? saved });
}

export async function duplicateCampaign(ctx: AppContext, user: User, id: string) {
  return ctx.withTransaction(async () => {
    const c = await getCampaign(ctx, user.id, id);
    const now = new Date(ctx.now());
    // The copy gets its own copies of the attachments: each campaign holds its own (deleting one leaves the other's).
    const copies = await copyMedia(ctx, user.id, ((await heldMedia(ctx, [campaignMedia(id)])).get(campaignMedia(id)) ?? []).map((m) => m.id));
    const row = await insertCampaign(ctx, {
      id: Bun.randomUUIDv7(),
      userId: user.id,
      name: `Copy of ${c.name}`.slice(0, 200),
      type: c.type,
      status: "draft",
      content: c.content,
      subject: c.subject,
      fromEmail: c.fromEmail,
      fromName: c.fromName,
      fromNumber: c.fromNumber,
      recipients: c.recipients,
      audience: c.audience,
      expiresAfterMinutes: c.expiresAfterMinutes,
      appendOptOut: c.appendOptOut,
      transactional: c.transactional,
      abTest: c.abTest,
      createdAt: now,
      updatedAt: now,
    });
    if (copies.length) await holdMedia(ctx, user.id, campaignMedia(row.id), copies.map((m) => m.id));
    return viewOf(ctx, { ...row, recipients: c.recipients });
  });
}

/** Deletes drafts (and cancelled or finished campaigns in bulk); a campaign that may still send is kept. */
/** The statuses a campaign may be deleted in: a draft alone (DELETE /api/campaigns/:id), or any that sends no more. */
export const DELETABLE: Record<"drafts" | "finished", CampaignStatus[]> = {
  drafts: ["draft"],
  finished: ["draft", "completed", "failed", "cancelled"],
};

/** Those of `ids` that are the owner's campaigns in one of `statuses`, with their status. */
export const deletableCampaigns = campaignsInStatus;

/**
 * Deletes those of `ids` that are the owner's and deletable; their messages, if any, are detached in the same
 * statement (ON DELETE SET NULL): a campaign with many goes through deleteFinishedCampaigns (delete.ts) first.
 */
export async function deleteCampaigns(ctx: AppContext, userId: string, ids: string[], onlyDrafts: boolean): Promise<number> {
  if (!ids.length) return 0;
  return ctx.withTransaction(async () => {
    const deleted = await deleteInStatus(ctx, userId, ids, onlyDrafts ? DELETABLE.drafts : DELETABLE.finished);
    // Their attachments are let go: the media sweep removes them once no message carries them.
    await releaseMedia(ctx, deleted.map(campaignMedia));
    return deleted.length;
  });
}

/** DELETE /api/campaigns/:id: a draft alone; 404 when it is not the account's, 409 (code `conflict`) when it is no draft. */
export async function deleteDraft(ctx: AppContext, userId: string, id: string) {
  const c = await getCampaign(ctx, userId, id);
  if (!(await deleteCampaigns(ctx, userId, [c.id], true))) throw conflict("Only draft campaigns can be deleted");
  return { message: "Campaign deleted" };
}

export async function archiveCampaigns(ctx: AppContext, userId: string, ids: string[], archive: boolean): Promise<number> {
  if (!ids.length) return 0;
  return archiveRows(ctx, userId, ids, archive);
}

/**
 * Starts a campaign now: expands the audience into the outbox, within the plan's monthly messages, and hands it
 * to the sending manager. Runs in its caller's transaction, so the rows and the `sending` status commit together (a
 * crash never leaves rows without a started campaign or the reverse): a user's start or resume (ctx.withTransaction)
 * or a scheduled start's job (its savepoint in the jobs runner's pass). `intendedAt` is when it was meant to go (a
 * scheduled time), from which its messages expire.
 */
export async function startCampaign(ctx: AppContext, user: User, row: StartRow, intendedAt: number) {
  if (row.type !== "sms") throw badRequest("Email campaigns are not available yet");
  const sender = await senderFor(ctx, user.id, row);
  const test = row.abTest;
  // An A/B test is split and written at once up to a smaller audience: it renders each recipient once per variant.
  const atOnce = test ? AB_AT_ONCE : CHUNKED_ABOVE;
  if ((await recipientCountUpTo(ctx, row, atOnce + 1)) > atOnce) return startChunked(ctx, user, row, sender, intendedAt);
  // Written in one go: its typed list is read now if it was left unread.
  const campaign: CampaignRow = { ...row, recipients: row.recipients ?? (row.audience.kind === "manual" ? await typedRecipientsOf(ctx, row.id) : []) };
  const { recipients, skipped } = await resolveRecipients(ctx, user, campaign);
  if (!recipients.length) throw badRequest("No recipients selected", { skipped, code: "no_recipients" });
  const split = test ? splitAudience(campaign.id, recipients, test) : null;
  const segments = test && split ? await abSegments(ctx, user, campaign, test, split) : await outboxSegments(ctx, user, campaign, recipients);
  const { notice } = await assertWithinLimit(ctx, user.id, "messages", segments);
  // The rest of an A/B test's audience is kept for the winner, not queued now.
  const writing = recipients.length - (split?.rest.length ?? 0);
  // Before the outbox's message.queued events, so a reader sees the campaign start first.
  await appendEvent(ctx, { userId: user.id, type: "campaign.started", subject: { kind: "campaign", id: campaign.id }, payload: { recipients: recipients.length } });
  const queued = test && split ? await writeAbTest(ctx, user, campaign, test, split, sender, intendedAt) : await writeOutbox(ctx, user, campaign, recipients, sender, intendedAt);
  const duplicate = skipped.duplicate + (writing - queued);
  await markSending(ctx, campaign.id, sender, { ...skipped, duplicate }, null);
  return { queued, skipped: { ...skipped, duplicate }, notice };
}

/**
 * Starts a large campaign whose outbox is then written in chunks (src/campaigns/outbox-writer.ts): in its caller's
 * transaction it becomes `sending` with its writing cursor at the first recipient, and the writer starts once that
 * has committed. The plan's monthly SMS are checked against the audience counted up to one past what the month has
 * left (a bounded count; typed recipients as typed) times one message's segments (segmentsPerMessage). Answers
 * nothing queued yet.
 */
async function startChunked(ctx: AppContext, user: User, campaign: StartRow, sender: Awaited<ReturnType<typeof senderFor>>, intendedAt: number) {
  const usage = (await usageFor(ctx, user)).messages;
  const test = campaign.abTest;
  // An A/B test's recipients each get one of its variants, or the winner: counted at the longest.
  const each = Math.max(...(await Promise.all((test ? test.variants : [campaign.content]).map((content) => segmentsPerMessage(ctx, user, { ...campaign, content })))));
  const counted = usage.unlimited ? CHUNKED_ABOVE + 1 : await recipientCountUpTo(ctx, campaign, Math.floor(Math.max(0, usage.limit - usage.used) / each) + 1);
  const { notice } = await assertWithinLimit(ctx, user.id, "messages", counted * each);
  await appendEvent(ctx, { userId: user.id, type: "campaign.started", subject: { kind: "campaign", id: campaign.id }, payload: { recipients: null, inChunks: true } });
  if (test) await scheduleAbDecision(ctx, user, campaign, test, intendedAt);
  await markSending(ctx, campaign.id, sender, { optedOut: 0, invalid: 0, duplicate: 0 }, firstChunk(intendedAt, sender, test !== null));
  // After the caller's transaction: a writer started inside it could not see the cursor.
  setImmediate(() => void writeInChunks(ctx, campaign.id));
  return { queued: 0, skipped: { optedOut: 0, invalid: 0, duplicate: 0 }, notice };
}

/** Puts a campaign on the schedule: one pending start job at `at` (replacing any it had), status scheduled. */
async function scheduleStart(ctx: AppContext, user: User, campaign: StartRow, at: number) {
  if (campaign.type !== "sms") throw badRequest("Email campaigns are not available yet");
  const id = campaign.id;
  await ctx.withTransaction(async () => {
    await senderFor(ctx, user.id, campaign);
    await scheduleCampaignStart(ctx, user.id, id, at);
    await markScheduled(ctx, id, at);
  });
}

/** Sends a campaign now or at its time, and answers it as it is then. */
export async function sendCampaign(ctx: AppContext, user: User, id: string, scheduledAtInput?: string | null) {
  const result = await startOrSchedule(ctx, user, id, scheduledAtInput);
  const row = await getCampaign(ctx, user.id, id);
  return { campaign: await viewOf(ctx, row), ...result };
}

/**
 * Starts a draft or scheduled campaign now, or puts it on the schedule for a later time. Its typed list is not read
 * here unless written in one go (src/campaigns/outbox-writer.ts StartRow): the caller answers with it. The status is
 * read in the transaction that starts it.
 */
export async function startOrSchedule(ctx: AppContext, user: User, id: string, scheduledAtInput?: string | null) {
  const campaign = await findStartRow(ctx, user.id, id);
  if (!campaign) throw notFound("Campaign not found");
  const startable = (c: StartRow) => {
    if (c.status !== "draft" && c.status !== "scheduled") throw conflict(`This campaign is ${c.status} and cannot be sent again`);
  };
  startable(campaign);
  const scheduledAt = scheduledAtInput ? parseScheduledAt(scheduledAtInput, user.timezone) : (campaign.scheduledAt?.getTime() ?? null);
  const now = ctx.now();
  if (scheduledAt !== null && scheduledAt > now + 1000) {
    await scheduleStart(ctx, user, campaign, scheduledAt);
    return { queued: 0, skipped: { optedOut: 0, invalid: 0, duplicate: 0 }, notice: null };
  }
  // A pending start job is dropped together with the start, never one without the other; the callback awaits the
  // start's records only.
  return ctx.withTransaction(async () => {
    const current = await findStartRow(ctx, user.id, id);
    if (!current) throw notFound("Campaign not found");
    startable(current);
    await cancelCampaignStart(ctx, id);
    return startCampaign(ctx, user, current, now);
  });
}

export async function pauseByUser(ctx: AppContext, userId: string, id: string) {
  const c = await getCampaign(ctx, userId, id);
  const refused = () => conflict("Only a sending or scheduled campaign can be paused");
  if (c.status !== "sending" && c.status !== "scheduled") throw refused();
  // The lifecycle's pause, as a failure run's: its conditional update leaves a campaign that finished meanwhile.
  if (!(await ctx.withTransaction(() => pauseCampaign(ctx, id, null, "user")))) throw refused();
  return viewOf(ctx, await getCampaign(ctx, userId, id));
}

/**
 * Resumes a paused campaign: its parked messages become due again (they still expire at their time). One
 * paused before it ever started goes back to its schedule while its time is still ahead, else starts now
 * (a schedule missed during downtime, or passed while on hold). The status is read again in the transaction that
 * changes it.
 */
export async function resumeByUser(ctx: AppContext, user: User, id: string) {
  const now = ctx.now();
  const paused = (c: CampaignRow) => {
    if (c.status !== "paused") throw conflict("Only a paused campaign can be resumed");
  };
  paused(await getCampaign(ctx, user.id, id));
  await ctx.withTransaction(async () => {
    const c = await getCampaign(ctx, user.id, id);
    paused(c);
    if (!(await hasMessages(ctx, id)) && !c.outboxWriting) {
      if (c.scheduledAt && c.scheduledAt.getTime() > now + 1000) await scheduleStart(ctx, user, c, c.scheduledAt.getTime());
      else await startCampaign(ctx, user, c, now);
      return;
    }
    await markResumed(ctx, id, now);
    await releaseCampaign(ctx, id, now);
  });
  return viewOf(ctx, await getCampaign(ctx, user.id, id));
}

/** Cancels what has not gone out; messages already handed to the provider keep their outcome. */
export async function cancelByUser(ctx: AppContext, userId: string, id: string) {
  const cancellable = (c: CampaignRow) => {
    if (!["sending", "paused", "scheduled"].includes(c.status)) throw conflict("Only a sending, paused or scheduled campaign can be cancelled");
  };
  cancellable(await getCampaign(ctx, userId, id));
  const now = ctx.now();
  await ctx.withTransaction(async () => {
    cancellable(await getCampaign(ctx, userId, id));
    await markCancelled(ctx, id, now);
    await cancelCampaignMessages(ctx, id);
    await cancelCampaignStart(ctx, id);
  });
  return viewOf(ctx, await getCampaign(ctx, userId, id));
}

/**
 * GET /api/campaign-logs: the account's campaign messages, newest first, optionally of one campaign and one status
 * ("pending" is queued). The total comes from the kept counts, so a page costs the same with a million messages.
 */
export async function campaignLogs(ctx: AppContext, userId: string, q: { page: number; pageSize: number; campaignId?: string; status?: string }) {
  const status = q.status === "pending" ? "queued" : q.status;
  const ids = q.campaignId ? [q.campaignId] : null;
  const total = (await accountStatusCounts(ctx, userId, ids))
    .filter((r) => !status || r.status === status)
    .reduce((sum, r) => sum + r.n, 0);
  const rows = await campaignMessagePage(ctx, userId, { campaignId: q.campaignId, status, limit: q.pageSize, offset: (q.page - 1) * q.pageSize });
  const people = await namesOfContacts(ctx, rows.flatMap((r) => (r.contact_id ? [r.contact_id] : [])));
  // The page's campaigns and contacts, named by their owners: a page of at most 200 rows.
  const names = await campaignNames(ctx, rows.map((r) => r.campaign_id));
  const iso = (v: unknown) => (typeof v === "number" ? new Date(v).toISOString() : null);
  const now = ctx.now();
  return {
    data: rows.map((r) => ({
      id: r.id,
      campaignId: r.campaign_id,
      campaignName: names.get(r.campaign_id) ?? null,
      recipientPhone: r.phone,
      recipientEmail: null,
      contactName: personName(r.contact_id ? people.get(r.contact_id) : undefined),
      status: r.status === "queued" ? "pending" : r.status,
      errorCode: r.error_code,
      errorMessage: r.error_message,
      // What a carrier code such as 30034 (unregistered 10DLC number) means, and what to do (issue 34 item 1).
      errorExplanation: explainCarrierError(r.error_code),
      timestamp: iso(r.updated_at ?? r.created_at),
      sentAt: iso(r.sent_at),
      deliveredAt: iso(r.delivered_at),
      ...heldOf(r, now),
    })),
    total,
    page: q.page,
    pageSize: q.pageSize,
  };
}

/**
 * GET /api/stats: the account's campaign messages sent (failures the provider had accepted included), delivered,
 * opened (SMS has no opens: null) and bounced (failed), read from the kept counts, not from the messages.
 */
export async function sendingStats(ctx: AppContext, userId: string) {
  const k = Object.fromEntries((await accountStatusCounts(ctx, userId)).map((r) => [r.status, r])) as Record<string, { n: number; unsent: number } | undefined>;
  const n = (s: string) => k[s]?.n ?? 0;
  return {
    totalSent: n("sent") + n("delivered") + n("unknown") + n("failed") - (k.failed?.unsent ?? 0),
    totalDelivered: n("delivered"),
    totalOpened: null,
    totalBounced: n("failed"),
  };
}

/** A recipient's name as the campaign logs show it: null for no contact or no name. */
const personName = (p: { firstName: string | null; lastName: string | null } | undefined) => `${p?.firstName ?? ""} ${p?.lastName ?? ""}`.trim() || null;

/**
 * A recipient's message held by quiet hours or a state's rule (src/sending/state-rules.ts): the rule, in the words
 * the engine wrote ("Held: Florida law allows texts 8 AM–8 PM (Fla. Stat. § 501.616(6))"), and when it may go.
 */
function heldOf(row: HeldRow, now: number): { heldReason: string | null; heldUntil: string | null } {
  const hold = quietHoldOf(row, now, { timezone: "UTC", locale: "en-US" });
  return hold ? { heldReason: hold.reason, heldUntil: new Date(hold.until).toISOString() } : { heldReason: null, heldUntil: null };
}
