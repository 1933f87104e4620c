import { SegmentedMessage } from "sms-segments-calculator";
import type { CampaignView, LogStatus, SendResult } from "../../../api/campaigns";
import type { PhoneNumber } from "../../../api/phone-numbers";
import { formatNumber } from "../../../lib/format";
import { fieldsOf } from "../../../../shared/personalisation/render";

export type CampaignStatus = "draft" | "scheduled" | "sending" | "paused" | "completed" | "failed" | "cancelled";
export type PresetAudience = "all" | "recent" | "loyal" | "new";
export type Audience =
  | { kind: "manual" }
  | { kind: PresetAudience }
  | { kind: "contacts"; contactIds: string[] }
  | { kind: "segment"; segmentId: string };

/** Messages held until quiet hours end, and the recipients' clock time when they do ("8:00 AM"). */
export type QuietWait = { count: number; byLaw: number; resumesAt: string; lastResumeAt: string };

/** A campaign as the server answers it. */
export type Campaign = CampaignView;

export type { LogStatus };
export type { PhoneNumber, SendResult };

export const OPT_OUT_LINE = "\nReply STOP to opt out";
export const CAMPAIGN_REFRESH_MS = 3000;

export const PRESET_AUDIENCES: { kind: PresetAudience; label: string; description: string }[] = [
  { kind: "all", label: "All customers", description: "Everyone subscribed to your texts" },
  { kind: "recent", label: "Recent customers", description: "Added in the last 30 days" },
  { kind: "loyal", label: "Loyal customers", description: "3 or more replies in 90 days, or tagged loyal" },
  { kind: "new", label: "New customers", description: "Added in the last 7 days" },
];

type Badge = { label: string; className: string; spinner?: boolean };
const GREEN = "bg-green-100 text-green-800";
const GREY = "bg-slate-100 text-slate-700";

/** Sending pulses blue, failed is red, finished is green, paused amber, anything else grey (an unknown status looks like a draft). */
export function statusBadge(status: string): Badge {
  switch (status) {
    case "sending":
      return { label: "Sending", className: "animate-pulse bg-blue-100 text-blue-800", spinner: true };
    case "failed":
      return { label: "Failed", className: "bg-red-100 text-red-800" };
    case "completed":
      return { label: "Completed", className: GREEN };
    case "sent":
      return { label: "Sent", className: GREEN };
    case "delivered":
      return { label: "Delivered", className: GREEN };
    case "paused":
      return { label: "Paused", className: "bg-amber-100 text-amber-800" };
    case "waiting":
      return { label: "Waiting", className: "bg-amber-100 text-amber-800" };
    case "scheduled":
      return { label: "Scheduled", className: GREY };
    case "cancelled":
      return { label: "Cancelled", className: GREY };
    default:
      return { label: "Draft", className: GREY };
  }
}

/** A recipient's delivery status as the details list shows it. */
export function logBadge(status: LogStatus): Badge {
  switch (status) {
    case "pending":
      return { label: "Pending", className: GREY };
    case "sending":
      return { label: "Sending", className: "bg-blue-100 text-blue-800", spinner: true };
    case "sent":
      return { label: "Sent", className: "bg-blue-100 text-blue-800" };
    case "delivered":
      return { label: "Delivered", className: GREEN };
    case "failed":
      return { label: "Failed", className: "bg-red-100 text-red-800" };
    case "unknown":
      return { label: "Unknown", className: "bg-amber-100 text-amber-800" };
    case "skipped":
      return { label: "Skipped", className: GREY };
    case "expired":
      return { label: "Expired", className: "bg-amber-100 text-amber-800" };
    default:
      return { label: "Cancelled", className: GREY };
  }
}

export const canEdit = (c: Campaign) => c.status === "draft" || c.status === "scheduled";
export const canPause = (c: Campaign) => c.status === "sending";
export const canResume = (c: Campaign) => c.status === "paused";
/** Messages of it wait for quiet hours: the user may send them now (after the compliance warning). */
export const canSendHeld = (c: Campaign) => c.status === "sending" && !!c.quietWait && c.quietWait.count > 0;
export const canCancel = (c: Campaign) => c.status === "sending" || c.status === "paused" || c.status === "scheduled";

const REPORT_WINDOW_MS = 5 * 60_000;

/** Figures still moving: the campaign sends, or it finished minutes ago and delivery reports are still arriving. */
export function isLive(c: Campaign, now = Date.now()): boolean {
  if (c.status === "sending") return true;
  const finished = c.completedAt ?? c.sentAt;
  return c.counts.sent > 0 && !!finished && now - new Date(finished).getTime() < REPORT_WINDOW_MS;
}

/** Recipients so far; before sending, the typed numbers (a contact audience is counted when it is sent, else a dash). */
export function formatRecipients(c: Campaign, locale: string): string {
  if (c.counts.recipients > 0 || (c.status !== "draft" && c.status !== "scheduled"))
    return formatNumber(c.counts.recipients, locale);
  return c.audience.kind === "manual" ? formatNumber(c.recipients.length, locale) : "—";
}

export const formatRate = (rate: number | null) => (rate === null || rate === undefined ? "—" : `${rate}%`);

/** Recipients typed by hand: split on commas or newlines, trimmed, empties dropped. */
export const parseRecipients = (text: string) =>
  text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The spec's phone check: 10-15 of digits, spaces, dashes and parentheses, optional + and 1, at least 10 digits. */
export function isValidPhone(value: string): boolean {
  return /^\+?1?[\d\s\-()]{10,15}$/.test(value) && value.replace(/\D/g, "").length >= 10;
}

/** "Promotion - 03/14/2026": the wizard's campaign name. */
export const campaignName = (typeLabel: string, date: string) => `${typeLabel} - ${date}`;

export const hasMergeFields = (text: string) => fieldsOf(text).length > 0;

export type Measure = {
  encoding: "GSM-7" | "UCS-2";
  characters: number;
  segments: number;
  perSegment: number;
  /** What one unsplit message holds in this encoding: 160 (GSM-7) or 70 (UCS-2). */
  single: number;
  unicodeCharacters: string[];
};

/** Characters as the network counts them: GSM-7 extension characters take two, UCS-2 surrogate pairs two. */
export function measureSms(content: string, appendOptOut: boolean): Measure {
  const text = content && appendOptOut ? content + OPT_OUT_LINE : content;
  const m = new SegmentedMessage(text);
  const gsm = m.encodingName === "GSM-7";
  const segments = text ? m.segmentsCount : 0;
  const single = gsm ? 160 : 70;
  return {
    encoding: m.encodingName,
    characters: Math.round(m.messageSize / (gsm ? 7 : 16)),
    segments,
    perSegment: segments > 1 ? (gsm ? 153 : 67) : single,
    single,
    unicodeCharacters: [...new Set(m.getNonGsmCharacters())],
  };
}

function zoneOffsetMs(utcMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  })
    .formatToParts(new Date(utcMs))
    .reduce<Record<string, number>>((acc, p) => (p.type !== "literal" && (acc[p.type] = Number(p.value)), acc), {});
  const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** A datetime-local value ("2026-03-14T09:30") read as wall time in the account's time zone, as an ISO instant. */
export function zonedInputToIso(value: string, timeZone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!m) return null;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!);
  // Two passes settle the offset on either side of a daylight-saving change.
  let utc = wall - zoneOffsetMs(wall, timeZone);
  utc = wall - zoneOffsetMs(utc, timeZone);
  return new Date(utc).toISOString();
}

/** An ISO instant as a datetime-local value in the account's time zone. */
export function isoToZonedInput(iso: string, timeZone: string): string {
  const ms = new Date(iso).getTime();
  return new Date(ms + zoneOffsetMs(ms, timeZone)).toISOString().slice(0, 16);
}

/** Date and time in the user's locale and time zone. */
export function formatDateTime(iso: string | null, locale: string, timeZone: string): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "Invalid date";
  return new Intl.DateTimeFormat(locale, { timeZone, dateStyle: "medium", timeStyle: "short" }).format(d);
}

export function describeAudience(audience: Audience, recipients: number): string {
  switch (audience.kind) {
    case "manual":
      return `${recipients} phone number${recipients === 1 ? "" : "s"}`;
    case "contacts":
      return `${audience.contactIds.length} chosen contact${audience.contactIds.length === 1 ? "" : "s"}`;
    case "segment":
      return "A segment";
    default:
      return PRESET_AUDIENCES.find((a) => a.kind === audience.kind)?.label ?? audience.kind;
  }
}

/** "12 messages queued; 2 skipped (1 opted out, 1 invalid)". */
export function describeSend(result: Pick<SendResult, "queued" | "skipped"> & { campaign?: { writingOutbox?: boolean } }): string {
  // A large audience is queued in chunks after the start: the answer has no count yet.
  if (result.campaign?.writingOutbox) return "Messages are being queued for every recipient; sending starts as they go in";
  const { optedOut, invalid, duplicate } = result.skipped ?? { optedOut: 0, invalid: 0, duplicate: 0 };
  const reasons = [
    optedOut && `${optedOut} opted out`,
    invalid && `${invalid} invalid`,
    duplicate && `${duplicate} duplicate`,
  ].filter(Boolean);
  const skipped = optedOut + invalid + duplicate;
  const queued = `${result.queued} message${result.queued === 1 ? "" : "s"} queued`;
  return skipped ? `${queued}; ${skipped} skipped (${reasons.join(", ")})` : queued;
}
