import { accountClicks } from "../links/clicks";
/**
 * The figures of the three dashboards (advanced home, results dashboard, simple home), computed from the rollups
 * the messages triggers keep, the contacts' and consents' indexes, and the campaigns' kept counts: never a scan of
 * the messages. Days and months are the account's; a rate or a change with nothing to divide by is null (a dash).
 * Spend is what each message cost at the price recorded when it was sent (src/providers/prices.ts), so a new price
 * changes estimates, not the past.
 */
import { campaignLabels, countActiveCampaigns } from "../campaigns/stats";
import { listCampaigns } from "../campaigns/campaigns";
import { contactsAddedIn, countContacts, optOutsIn } from "../contacts/stats";
import type { AppContext } from "../context";
import { listNumbers } from "../phone-numbers/numbers";
import type { User } from "../users/queries";
import { ensureBuckets } from "./buckets";
import { lastDays, lastMonths, monthWindows, weekWindows, type Interval } from "./periods";
import { campaignRollupsIn, campaignsSentIn, rollupsIn, sentBySenderIn, spendByCampaign, type RollupRow } from "./queries";

export const RANGES = [7, 30, 90] as const;
const MONTHS_OF_SPEND = 6;
const TOP_CAMPAIGNS = 10;
/** The line of the senders' chart for messages of numbers removed since (src/messages/detach.ts). */
export const REMOVED_NUMBERS = "Removed numbers";
const RECENT_CAMPAIGNS = 5;
const NOT_SENT = new Set(["skipped", "expired", "cancelled"]);
const WENT_OUT = new Set(["sent", "delivered", "unknown"]);
/** From the epoch to the latest instant a Date holds: every message, whatever its clock said. */
const ALL_TIME: Interval = { start: 0, end: 8.64e15 };

/** One decimal of a percentage; null when there is nothing to divide by. */
export const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : null);

type Counted = Pick<RollupRow, "status" | "n" | "sent" | "segments" | "spendMicros" | "mms" | "mmsSent" | "mmsSpendMicros">;

/** What went out, was delivered, the segments the providers accepted (an MMS is one) and cost, of SMS or of MMS. */
export type KindFigures = { sent: number; delivered: number; segments: number; spendMicros: number };

/**
 * Messages of an interval by outcome, with segments and spend, and the same figures of its SMS and its MMS apart
 * (an MMS: a message with a picture or file, one message at its account's price per MMS; SMS: the rest).
 */
function outcomes(rows: Counted[]) {
  const f = { sent: 0, delivered: 0, failed: 0, undelivered: 0, unknown: 0, notSent: 0, replies: 0, segments: 0, spendMicros: 0 };
  const mms: KindFigures = { sent: 0, delivered: 0, segments: 0, spendMicros: 0 };
  for (const r of rows) {
    if (r.status === "received") {
      f.replies += r.n;
      continue;
    }
    mms.sent += WENT_OUT.has(r.status) ? r.mms : r.status === "failed" ? r.mmsSent : 0;
    if (r.status === "delivered") mms.delivered += r.mms;
    // The outbox store records an MMS the provider accepted as one segment.
    mms.segments += r.mmsSent;
    mms.spendMicros += r.mmsSpendMicros;
    // Went out: sent or delivered, failed after the provider accepted it (a sent time), or an unknown outcome (a
    // crash mid-call: it may have gone). A failure at the call never left.
    f.sent += WENT_OUT.has(r.status) ? r.n : r.status === "failed" ? r.sent : 0;
    if (r.status === "delivered") f.delivered += r.n;
    if (r.status === "failed") {
      f.failed += r.n - r.sent;
      f.undelivered += r.sent;
    }
    if (r.status === "unknown") f.unknown += r.n;
    if (NOT_SENT.has(r.status)) f.notSent += r.n;
    f.segments += r.segments;
    f.spendMicros += r.spendMicros;
  }
  const sms: KindFigures = { sent: f.sent - mms.sent, delivered: f.delivered - mms.delivered, segments: f.segments - mms.segments, spendMicros: f.spendMicros - mms.spendMicros };
  return { ...f, sms, mms };
}

export type Figures = ReturnType<typeof outcomes> & {
  /** Refused at the call and failed after it: business.md's "Bounced". */
  bounced: number;
  optOuts: number;
  newContacts: number;
  campaigns: number;
  deliveryRate: number | null;
  responseRate: number | null;
  optOutRate: number | null;
};

function figures(rows: Counted[], optOuts: number, newContacts: number, campaigns: number): Figures {
  const f = outcomes(rows);
  return {
    ...f,
    bounced: f.failed + f.undelivered,
    optOuts,
    newContacts,
    campaigns,
    deliveryRate: percent(f.delivered, f.sent),
    responseRate: percent(f.replies, f.sent),
    optOutRate: percent(optOuts, f.sent),
  };
}

/** Percent change from the previous period; null (a dash) when the previous had none. */
const change = (current: number, previous: number) => (previous > 0 ? Math.round(((current - previous) / previous) * 1000) / 10 : null);
const COMPARED = ["sent", "delivered", "bounced", "deliveryRate", "replies", "responseRate", "optOuts", "newContacts", "campaigns", "spendMicros"] as const;

function comparison(current: Figures, previous: Figures) {
  const changes = Object.fromEntries(
    COMPARED.map((k) => {
      const [c, p] = [current[k], previous[k]];
      // A rate's change is its difference in points; nothing to compare when either period has no rate.
      if (k === "deliveryRate" || k === "responseRate") return [k, c === null || p === null ? null : Math.round((c - p) * 10) / 10];
      return [k, change(c as number, p as number)];
    }),
  ) as Record<(typeof COMPARED)[number], number | null>;
  return { current, previous, change: changes };
}

/**
 * Each interval's figures, read in one pass of each source; `people` adds opt-outs and new contacts, `campaigns`
 * how many campaigns sent (else zero: spend per month and all-time totals do not need them). `total` adds one
 * more, over all the intervals, summed from theirs when they do not overlap (the days of a chart).
 */
async function figuresIn(
  ctx: AppContext,
  userId: string,
  intervals: Interval[],
  opts: { people?: boolean; campaigns?: boolean; total?: Interval } = {},
): Promise<Figures[]> {
  const rows = await rollupsIn(ctx, userId, intervals);
  const optOuts = opts.people ? await optOutsIn(ctx, userId, intervals) : new Map<number, number>();
  const added = opts.people ? await contactsAddedIn(ctx, userId, intervals) : new Map<number, number>();
  const campaigns = new Map(opts.campaigns ? (await campaignsSentIn(ctx, userId, intervals)).map((r) => [r.i, r.campaigns]) : []);
  const byInterval = intervals.map((): Counted[] => []);
  for (const r of rows) byInterval[r.i]!.push(r);
  const each = intervals.map((_, i) => figures(byInterval[i]!, optOuts.get(i) ?? 0, added.get(i) ?? 0, campaigns.get(i) ?? 0));
  if (!opts.total) return each;
  const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  // A campaign may send on several days: the distinct count over the whole is its own read.
  const sentCampaigns = (await campaignsSentIn(ctx, userId, [opts.total]))[0]?.campaigns ?? 0;
  return [...each, figures(rows, sum(optOuts), sum(added), sentCampaigns)];
}

/** Campaign rows with their segments and spend over their whole lives. */
async function withSpend<C extends { id: string }>(ctx: AppContext, userId: string, list: C[]) {
  const spend = new Map((await spendByCampaign(ctx, userId, list.map((c) => c.id))).map((r) => [r.campaignId, { segments: r.segments, spendMicros: r.spendMicros }]));
  return list.map((c) => ({ ...c, ...(spend.get(c.id) ?? { segments: 0, spendMicros: 0 }) }));
}

/** Every message of the account so far, by outcome (the simple home's totals): read from its day rows. */
export async function allTimeFigures(ctx: AppContext, user: { id: string; timezone: string }): Promise<Figures> {
  await ensureBuckets(ctx, user);
  return (await figuresIn(ctx, user.id, [ALL_TIME]))[0]!;
}

/** The homes' and the dashboard's cards: the week and the month against the ones before, all-time totals, spend. */
export async function overview(ctx: AppContext, user: User) {
  await ensureBuckets(ctx, user);
  const now = ctx.now();
  const zone = user.timezone;
  const week = weekWindows(now);
  const month = monthWindows(zone, now);
  const months = lastMonths(zone, now, MONTHS_OF_SPEND);
  const [weekNow, weekBefore, monthNow, monthBefore] = await figuresIn(ctx, user.id, [week.current, week.previous, month.current, month.previous], {
    people: true,
    campaigns: true,
  });
  const perMonth = await figuresIn(ctx, user.id, [...months, ALL_TIME]);
  const total = perMonth.pop()!;
  const recent = (await listCampaigns(ctx, user.id, { page: 1, pageSize: RECENT_CAMPAIGNS, archived: false })).data.map((c) => ({
    id: c.id,
    name: c.name,
    type: c.type,
    status: c.status,
    createdAt: c.createdAt,
    sentAt: c.sentAt,
    recipients: c.counts.recipients,
    sent: c.totalSent,
    delivered: c.totalDelivered,
    bounced: c.totalBounced,
    deliveryRate: c.successRate,
  }));
  return {
    timezone: zone,
    generatedAt: new Date(now).toISOString(),
    totalContacts: await countContacts(ctx, user.id),
    activeCampaigns: await countActiveCampaigns(ctx, user.id),
    allTime: total,
    week: comparison(weekNow!, weekBefore!),
    month: comparison(monthNow!, monthBefore!),
    months: months.map((m, i) => {
      const f = perMonth[i]!;
      return { month: m.month, sent: f.sent, segments: f.segments, spendMicros: f.spendMicros, mmsSent: f.mms.sent, mmsSpendMicros: f.mms.spendMicros };
    }),
    recentCampaigns: await withSpend(ctx, user.id, recent),
  };
}

/** The charts of the last `days` local days: outcomes, rates, replies and opt-outs per day, senders, campaigns. */
export async function series(ctx: AppContext, user: User, days: (typeof RANGES)[number]) {
  await ensureBuckets(ctx, user);
  const now = ctx.now();
  const list = lastDays(user.timezone, now, days);
  const range = { start: list[0]!.start, end: list[list.length - 1]!.end };
  const perDay = await figuresIn(ctx, user.id, list, { people: true, total: range });
  const totals = perDay.pop()!;

  const sentBy = new Map<string, number[]>();
  for (const r of await sentBySenderIn(ctx, user.id, list)) {
    const counts = sentBy.get(r.phoneNumberId) ?? Array<number>(days).fill(0);
    counts[r.i] = r.sent;
    sentBy.set(r.phoneNumberId, counts);
  }
  const numbers = (await listNumbers(ctx, user.id, 1, 100)).data;
  // Messages of numbers removed since are one line of their own, last, so the lines add up to what was sent.
  const removed = sentBy.get("") ?? Array<number>(days).fill(0);
  const senders = [
    ...numbers
      .map((n) => ({ id: n.id as string | null, phoneNumber: n.phoneNumber as string | null, displayName: n.displayName, sent: sentBy.get(n.id) ?? Array<number>(days).fill(0) }))
      .map((s) => ({ ...s, total: s.sent.reduce((a, b) => a + b, 0) }))
      .filter((s) => s.total > 0)
      .sort((a, b) => b.total - a.total),
    { id: null, phoneNumber: null, displayName: REMOVED_NUMBERS, sent: removed, total: removed.reduce((a, b) => a + b, 0) },
  ].filter((s) => s.total > 0);

  const byCampaign = new Map<string, Counted[]>();
  for (const r of await campaignRollupsIn(ctx, user.id, range)) byCampaign.set(r.campaignId, [...(byCampaign.get(r.campaignId) ?? []), r]);
  const top = [...byCampaign]
    .map(([id, rows]) => {
      const f = outcomes(rows);
      return { id, sent: f.sent, delivered: f.delivered, bounced: f.failed + f.undelivered, deliveryRate: percent(f.delivered, f.sent), segments: f.segments, spendMicros: f.spendMicros };
    })
    .sort((a, b) => b.sent - a.sent || b.spendMicros - a.spendMicros)
    .slice(0, TOP_CAMPAIGNS);
  const labels = await campaignLabels(ctx, user.id, top.map((c) => c.id));
  // A campaign deleted since these rows were read has no label left: it leaves the list.
  const campaigns = top.flatMap((c) => {
    const label = labels.get(c.id);
    return label ? [{ ...c, ...label }] : [];
  });

  return {
    timezone: user.timezone,
    days: list.map((d, i) => {
      const f = perDay[i]!;
      return { date: d.date, sent: f.sent, delivered: f.delivered, failed: f.failed, undelivered: f.undelivered, unknown: f.unknown, replies: f.replies, optOuts: f.optOuts, newContacts: f.newContacts, deliveryRate: f.deliveryRate, spendMicros: f.spendMicros };
    }),
    totals,
    /** People's clicks of short links in the period (issue 32), and the share of its texts with a link that were clicked. */
    clicks: await accountClicks(ctx, user.id, range.start, range.end),
    senders,
    campaigns,
  };
}
