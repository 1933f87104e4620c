import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { wallToInstant, zoneOffset } from "../time/zones";
import { findUserById, type User } from "../users/queries";
import { currentLicense, type CurrentLicense } from "./licenses";

export type LimitKind = "contacts" | "messages" | "phoneNumbers";
export type UsageFigure = { used: number; limit: number; unlimited: boolean; notice: string | null };
export type Usage = { license: CurrentLicense | null; contacts: UsageFigure; messages: UsageFigure; phoneNumbers: UsageFigure };

export const NOTICE_RATIO = 0.8;
const fmt = (n: number) => new Intl.NumberFormat("en-US").format(n);

/** Midnight of the 1st of the current month in a time zone, as an instant (UTC for an unknown zone). */
export function startOfMonthIn(timeZone: string, now: number): Date {
  const local = new Date(now + zoneOffset(timeZone, now));
  return new Date(wallToInstant(timeZone, Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1)));
}

function figure(used: number, limit: number, label?: (f: { used: number; limit: number }) => string): UsageFigure {
  const unlimited = limit < 0;
  return {
    used,
    limit,
    unlimited,
    notice: label && !unlimited && limit > 0 && used >= limit * NOTICE_RATIO ? label({ used, limit }) : null,
  };
}

const contactsNotice = (plan: string, used: number, limit: number) =>
  `You have used ${Math.floor((used / limit) * 100)}% of your ${plan} plan's ${fmt(limit)} contacts (${fmt(used)}). Upgrade your plan or redeem a license code before you reach the limit.`;
const messagesNotice = (plan: string, used: number, limit: number) =>
  `You have used ${Math.floor((used / limit) * 100)}% of your ${plan} plan's ${fmt(limit)} SMS this month (${fmt(used)}). Upgrade your plan or redeem a license code before you reach the limit.`;

/**
 * Contacts stored, SMS sent this calendar month (in the user's time zone) and sender numbers against the plan,
 * counted by their owners through the context (ctx.usageCounts).
 * A plan sells "5,000 SMS per month" (the spec's pricing), and an SMS is what providers bill: one segment, so a
 * 200-character text is 2 (src/messages/segments.ts). Sender numbers get no 80% notice: a plan has a handful, and
 * the limit error says all there is.
 */
export async function usageFor(ctx: AppContext, userOrId: User | string): Promise<Usage> {
  const user = typeof userOrId === "string" ? await findUserById(ctx, userOrId) : userOrId;
  if (!user) throw new HttpError(404, "Not found");
  const license = await currentLicense(ctx, user);
  const admin = user.role === "admin";
  const contactLimit = admin ? -1 : (license?.plan.monthlyContacts ?? 0);
  const messageLimit = admin ? -1 : (license?.plan.monthlyMessages ?? 0);
  const numberLimit = admin ? -1 : (license?.plan.phoneNumbers ?? 0);
  const planName = license?.plan.name ?? "";
  const contacts = await ctx.usageCounts.contacts(user.id);
  const messages = await ctx.usageCounts.segmentsSince(user.id, startOfMonthIn(user.timezone, ctx.now()));
  const numbers = await ctx.usageCounts.numbers(user.id);
  return {
    license,
    contacts: figure(contacts, contactLimit, (f) => contactsNotice(planName, f.used, f.limit)),
    messages: figure(messages, messageLimit, (f) => messagesNotice(planName, f.used, f.limit)),
    phoneNumbers: figure(numbers, numberLimit),
  };
}

export const NO_LICENSE =
  "No active license found. Your trial or plan has ended; redeem a license code or upgrade your plan to continue.";

/**
 * The one check before storing contacts, sending messages (`adding` in SMS: their segments) or adding sender
 * numbers: throws 402 when `adding` more would pass
 * the plan's limit (or no license is in force), and otherwise returns the 80% notice when the usage
 * after adding reaches 80% of the limit.
 */
export async function assertWithinLimit(ctx: AppContext, userId: string, kind: LimitKind, adding: number): Promise<{ notice: string | null }> {
  const usage = await usageFor(ctx, userId);
  const f = usage[kind];
  if (f.unlimited) return { notice: null };
  if (!usage.license) throw new HttpError(402, NO_LICENSE, { kind, used: f.used, limit: 0 });
  const plan = usage.license.plan.name;
  const after = f.used + Math.max(0, adding);
  if (after > f.limit) {
    const message =
      kind === "contacts"
        ? `Your ${plan} plan allows ${fmt(f.limit)} contacts; you have ${fmt(f.used)} and tried to add ${fmt(adding)}. Upgrade your plan or redeem a license code.`
        : kind === "messages"
          ? `Your ${plan} plan allows ${fmt(f.limit)} SMS per month; you have sent ${fmt(f.used)} this month and tried to send ${fmt(adding)} (a text longer than one SMS counts each part). Upgrade your plan or redeem a license code.`
          : `Your ${plan} plan allows ${fmt(f.limit)} phone ${f.limit === 1 ? "number" : "numbers"}; you have ${fmt(f.used)}. Remove one, upgrade your plan or redeem a license code to add another.`;
    throw new HttpError(402, message, { kind, used: f.used, limit: f.limit, adding });
  }
  if (kind !== "phoneNumbers" && after >= f.limit * NOTICE_RATIO) {
    return { notice: kind === "contacts" ? contactsNotice(plan, after, f.limit) : messagesNotice(plan, after, f.limit) };
  }
  return { notice: null };
}

/**
 * Whether a contact the account did not add itself (one created by an inbound START or keyword) fits in the
 * plan: false at the contact limit or without a license in force. Never throws: the caller records the inbound
 * message either way and only skips creating the contact.
 */
export async function hasRoomForContact(ctx: AppContext, userId: string): Promise<boolean> {
  // The contacts figure of usageFor alone: each new number that texts in asks, and the month's message count
  // (a scan of the month's messages) has no part in the answer.
  const user = await findUserById(ctx, userId);
  if (!user) throw new HttpError(404, "Not found");
  if (user.role === "admin") return true;
  const license = await currentLicense(ctx, user);
  const limit = license?.plan.monthlyContacts ?? 0;
  if (limit < 0) return true;
  return !!license && (await ctx.usageCounts.contacts(user.id)) + 1 <= limit;
}

/**
 * Whether `segments` more SMS fit in the month's plan, for a reply the account did not ask for itself (a keyword's
 * confirmation): false at the limit or without a license in force. Never throws, like hasRoomForContact.
 */
export async function hasRoomForMessages(ctx: AppContext, userId: string, segments: number): Promise<boolean> {
  const usage = await usageFor(ctx, userId);
  if (usage.messages.unlimited) return true;
  return !!usage.license && usage.messages.used + segments <= usage.messages.limit;
}
