/**
 * /dashboard, Results & Stats: the range's cards (Total Sent, Delivered, Opened, Bounced of business.md, then
 * replies, opt-outs, new contacts and spend), four charts over 7, 30 or 90 days of the account's zone, the recent
 * campaigns, spend per campaign and per month, SMS and MMS apart, and the prices (per segment, per MMS) they are
 * computed at.
 */
import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "@tanstack/react-router";
import { useMemo, useState, type ReactNode } from "react";
import { ScrollBox } from "../../../components/scroll-box";
import { Tabs } from "../../../components/tabs";
import { Button, Card } from "../../../components/ui";
import { RANGES, useOverview, useSeries, type Range, type Series } from "../../../api/results";
import { auth } from "../../../lib/auth";
import { countOf, formatNumber } from "../../../lib/format";
import { CampaignActionDialogs, StatusBadge, type CampaignAction } from "./campaign-actions";
import { ChartCard, type ChartSeries } from "./charts";
import { dollars, rate, SegmentPrices, SmsAndMms, SpendByMonth, StatCard, StatSkeleton } from "./figures";

const COLORS = { delivered: "#16a34a", awaiting: "#94a3b8", failed: "#dc2626", unknown: "#d97706", rate: "#4f46e5", replies: "#0891b2", optOuts: "#e11d48" };
const SENDER_COLORS = ["#4f46e5", "#0891b2", "#16a34a", "#d97706", "#db2777", "#7c3aed", "#0d9488", "#ea580c"];

export function DashboardPage() {
  useSignals();
  const user = auth.value.user!;
  const locale = user.locale;
  const [days, setDays] = useState<Range>(30);
  const series = useSeries(days);
  const overview = useOverview();
  const [action, setAction] = useState<CampaignAction>(null);
  const s = series.data;
  const n = (v: number) => formatNumber(v, locale);

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold text-slate-900">Results & Stats</h1>
          <p className="text-sm text-slate-600">What your texts did, by day in your time zone ({series.data?.timezone ?? user.timezone}).</p>
        </div>
        <Tabs
          idPrefix="range"
          variant="pill"
          label="Period"
          tabs={RANGES.map((d) => ({ value: String(d) as `${Range}`, label: `${d} days` }))}
          value={String(days) as `${Range}`}
          onChange={(v) => setDays(Number(v) as Range)}
        />
      </div>

      {series.error && <p className="text-sm text-red-600">Could not load your results: {series.error.message}</p>}
      <div id={`range-panel-${days}`} role="tabpanel" aria-labelledby={`range-tab-${days}`} className="space-y-6">
        <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
          {!s ? (
            Array.from({ length: 9 }, (_, i) => <StatSkeleton key={i} />)
          ) : (
            <>
              <StatCard label="Total Sent" value={n(s.totals.sent)} hint={`${countOf(s.totals.segments, "segment", "segments", locale)}, ${countOf(s.totals.campaigns, "campaign", "campaigns", locale)}`} />
              <StatCard label="Delivered" value={n(s.totals.delivered)} hint={`${rate(s.totals.deliveryRate)} delivery rate`} />
              <StatCard label="Opened" value="—" hint="Texts carry no open tracking" />
              <StatCard
                label="Human clicks"
                value={n(s.clicks.humanClicks)}
                hint={`${rate(s.clicks.clickRate)} of ${countOf(s.clicks.textsWithLinks, "text", "texts", locale)} with a link clicked; previews and scanners left out`}
              />
              <StatCard label="Bounced" value={n(s.totals.bounced)} hint={`${n(s.totals.failed)} refused, ${n(s.totals.undelivered)} undelivered`} />
              <StatCard label="Replies" value={n(s.totals.replies)} hint={`${rate(s.totals.responseRate)} response rate`} />
              <StatCard label="Opt-outs" value={n(s.totals.optOuts)} hint={`${rate(s.totals.optOutRate)} opt-out rate`} />
              <StatCard label="New Contacts" value={n(s.totals.newContacts)} hint="Added to your lists" />
              <StatCard label="Spend" value={dollars(s.totals.spendMicros, locale)} hint="At each text's price when sent" />
            </>
          )}
        </div>
        {s && (
          <Card className="p-5">
            <h2 className="mb-1 text-lg font-semibold">SMS and MMS</h2>
            <p className="mb-3 text-xs text-slate-500">
              An MMS carries a picture or file and costs its provider account's price per MMS; SMS are the texts alone, priced per segment.
            </p>
            <SmsAndMms figures={s.totals} locale={locale} />
          </Card>
        )}
        {s && <Charts s={s} locale={locale} />}
        {s && <CampaignSpend s={s} locale={locale} onView={(id) => setAction({ kind: "view", id })} />}
      </div>

      <Card className="p-5">
        <div className="mb-3 flex items-center justify-between gap-3">
          <h2 className="text-lg font-semibold">Recent Campaigns</h2>
          <Link to="/sent-messages" className="text-sm font-medium text-brand-700 hover:underline">
            View All
          </Link>
        </div>
        {overview.data?.recentCampaigns.length === 0 ? (
          <p className="text-sm text-slate-500">No campaigns found. Create your first campaign to get started.</p>
        ) : (
          <CampaignTable
            label="Recent campaigns"
            head={[["Campaign"], ["Type", WIDE], ["Status", WIDE], ["Sent", NUM], ["Rate", `${NUM} ${WIDE}`], ["Spend", NUM], ["Actions"]]}
            rows={(overview.data?.recentCampaigns ?? []).map((c) => ({
              id: c.id,
              testId: "recent-campaign",
              cells: [
                <span className="font-medium">{c.name}</span>,
                <span className="uppercase text-slate-600">{c.type}</span>,
                <StatusBadge status={c.status} />,
                n(c.sent),
                rate(c.deliveryRate),
                dollars(c.spendMicros, locale),
                <Button variant="ghost" className="!px-2 !py-1" onClick={() => setAction({ kind: "view", id: c.id })}>
                  View
                </Button>,
              ],
            }))}
          />
        )}
      </Card>

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card className="min-w-0 p-5">
          <h2 className="mb-1 text-lg font-semibold">Spend per month</h2>
          <p className="mb-3 text-xs text-slate-500">Segments the providers accepted (an MMS is one) and how many of the texts were MMS, each at its price (per segment, per MMS) when it was sent; this month so far.</p>
          {overview.data ? <SpendByMonth months={overview.data.months} locale={locale} /> : <StatSkeleton />}
        </Card>
        <Card className="min-w-0 p-5">
          <h2 className="mb-1 text-lg font-semibold">Price per segment</h2>
          <p className="mb-3 text-xs text-slate-500">
            No provider reports its price to us: enter yours for the estimates before sending and the spend of what you send from then on. Texts
            already sent keep the price they went at.
          </p>
          <SegmentPrices
            locale={locale}
            onSaved={() => {
              void series.reload();
              void overview.reload();
            }}
          />
        </Card>
        <Card className="min-w-0 p-5">
          <h2 className="mb-1 text-lg font-semibold">Price per MMS</h2>
          <p className="mb-3 text-xs text-slate-500">
            A text with a picture or file is one MMS at its account's price, whatever its length. Estimates and the spend of what you send from then
            on use it; MMS already sent keep the price they went at.
          </p>
          <SegmentPrices kind="mms" locale={locale} onSaved={() => void overview.reload()} />
        </Card>
      </div>

      <CampaignActionDialogs action={action} user={user} onClose={() => setAction(null)} onChanged={() => void overview.reload()} />
    </div>
  );
}

function Charts({ s, locale }: { s: Series; locale: string }) {
  const dates = useMemo(() => s.days.map((d) => d.date), [s]);
  const outcomes: ChartSeries[] = [
    { label: "Delivered", color: COLORS.delivered, values: s.days.map((d) => d.delivered) },
    { label: "Awaiting report", color: COLORS.awaiting, values: s.days.map((d) => Math.max(0, d.sent - d.delivered - d.undelivered - d.unknown)) },
    { label: "Failed", color: COLORS.failed, values: s.days.map((d) => d.failed + d.undelivered) },
    { label: "Unknown", color: COLORS.unknown, values: s.days.map((d) => d.unknown) },
  ];
  const nothing = s.totals.sent + s.totals.failed === 0;
  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <ChartCard
        testId="chart-outcomes"
        title="Messages per day"
        description="By outcome; failed counts refused and undelivered texts."
        dates={dates}
        series={outcomes}
        kind="stacked"
        locale={locale}
        empty={nothing ? "No messages in this period yet." : null}
      />
      <ChartCard
        testId="chart-delivery-rate"
        title="Delivery rate"
        description="Delivered out of sent, per day; no point on days without sends."
        dates={dates}
        series={[{ label: "Delivery rate", color: COLORS.rate, values: s.days.map((d) => d.deliveryRate) }]}
        kind="lines"
        percent
        locale={locale}
        empty={s.totals.sent === 0 ? "No messages sent in this period yet." : null}
      />
      <ChartCard
        testId="chart-replies"
        title="Replies and opt-outs"
        description="Texts received, and contacts who opted out, per day."
        dates={dates}
        series={[
          { label: "Replies", color: COLORS.replies, values: s.days.map((d) => d.replies) },
          { label: "Opt-outs", color: COLORS.optOuts, values: s.days.map((d) => d.optOuts) },
        ]}
        kind="lines"
        locale={locale}
        empty={s.totals.replies + s.totals.optOuts === 0 ? "No replies or opt-outs in this period yet." : null}
      />
      <ChartCard
        testId="chart-senders"
        title="Per sender number"
        description="Messages each of your numbers sent, per day."
        dates={dates}
        series={s.senders.slice(0, SENDER_COLORS.length).map((n, i) => ({
          // The last line, without a number, is the messages of numbers removed since (named by the server).
          label: n.phoneNumber === null ? (n.displayName ?? "") : n.displayName ? `${n.displayName} (${n.phoneNumber})` : n.phoneNumber,
          color: SENDER_COLORS[i]!,
          values: n.sent,
        }))}
        kind="lines"
        locale={locale}
        empty={s.senders.length === 0 ? "None of your numbers sent in this period." : null}
      />
    </div>
  );
}

function CampaignSpend({ s, locale, onView }: { s: Series; locale: string; onView: (id: string) => void }) {
  if (!s.campaigns.length) return null;
  return (
    <Card className="p-5">
      <h2 className="mb-1 text-lg font-semibold">Campaigns in this period</h2>
      <p className="mb-3 text-xs text-slate-500">The ten that sent most in these days, with what their messages here cost.</p>
      <CampaignTable
        label="Spend per campaign"
        head={[["Campaign"], ["Status", WIDE], ["Sent", NUM], ["Delivery rate", `${NUM} ${WIDE}`], ["Segments", `${NUM} ${WIDE}`], ["Spend", NUM], ["Actions"]]}
        rows={s.campaigns.map((c) => ({
          id: c.id,
          testId: "campaign-spend",
          cells: [
            <span className="font-medium">{c.name}</span>,
            <StatusBadge status={c.status} />,
            formatNumber(c.sent, locale),
            rate(c.deliveryRate),
            formatNumber(c.segments, locale),
            <span className="font-medium">{dollars(c.spendMicros, locale)}</span>,
            <Button variant="ghost" className="!px-2 !py-1" onClick={() => onView(c.id)}>
              View
            </Button>,
          ],
        }))}
      />
    </Card>
  );
}

/** Column classes: numbers align right; "wide" columns are left out on a phone, where the table must fit in 390 pixels. */
const NUM = "text-right tabular-nums";
const WIDE = "hidden sm:table-cell";

function CampaignTable({ label, head, rows }: { label: string; head: [string, string?][]; rows: { id: string; testId: string; cells: ReactNode[] }[] }) {
  return (
    <ScrollBox label={label}>
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="border-b border-slate-200 text-xs uppercase text-slate-500">
          <tr>
            {head.map(([h, cls]) => (
              <th key={h} scope="col" className={`px-1.5 py-2 font-medium sm:px-2 ${cls ?? ""}`}>
                {h === "Actions" ? <span className="sr-only">Actions</span> : h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={r.id} data-testid={r.testId}>
              {r.cells.map((cell, i) => (
                <td key={i} className={`px-1.5 py-2 sm:px-2 ${head[i]?.[1] ?? ""}`}>
                  {/* A long name is cut, not the row: a table cell's own max-width does not hold in an auto layout. */}
                  {i === 0 ? <span className="block max-w-32 truncate sm:max-w-48">{cell}</span> : cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
