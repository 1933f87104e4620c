/**
 * /advanced and /home: the advanced home of business.md. This month against last month, the recent campaigns with
 * edit and view, Quick Actions, and the "This Week" card against the week before, all from the account's data.
 */
import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { Badge } from "../../../components/badge";
import { Button, Card } from "../../../components/ui";
import { useOverview, type Comparison } from "../../../api/results";
import { auth } from "../../../lib/auth";
import { countOf, formatNumber } from "../../../lib/format";
import { CampaignActionDialogs, StatusBadge, type CampaignAction } from "../dashboard/campaign-actions";
import { Change, dollars, rate, StatCard, StatSkeleton } from "../dashboard/figures";

const EDITABLE = new Set(["draft", "scheduled"]);

export function AdvancedHomePage() {
  useSignals();
  const user = auth.value.user!;
  const locale = user.locale;
  const overview = useOverview();
  const [action, setAction] = useState<CampaignAction>(null);
  const o = overview.data;
  const n = (v: number) => formatNumber(v, locale);

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold text-slate-900">Dashboard</h1>
          <p className="text-sm text-slate-600">Manage your SMS campaigns and follow their results.</p>
        </div>
        <Button onClick={() => setAction({ kind: "new" })}>New Campaign</Button>
      </div>

      {overview.error && <p className="text-sm text-red-600">Could not load your figures: {overview.error.message}</p>}
      <section aria-labelledby="month-title">
        <h2 id="month-title" className="mb-3 text-sm font-medium uppercase tracking-wide text-slate-500">
          This month so far
        </h2>
        <div className="grid grid-cols-2 gap-4 md:grid-cols-4">
          {!o ? Array.from({ length: 8 }, (_, i) => <StatSkeleton key={i} />) : <MonthCards month={o.month} locale={locale} />}
        </div>
      </section>

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
        <Card className="min-w-0 p-5 lg:col-span-2">
          <div className="mb-3 flex items-start justify-between gap-3">
            <div>
              <h2 className="text-lg font-semibold">Recent Campaigns</h2>
              {o && (
                <p className="text-xs text-slate-500" data-testid="active-campaigns">
                  {n(o.activeCampaigns)} active (sending, paused or scheduled)
                </p>
              )}
            </div>
            <Link to="/sms-campaigns" className="shrink-0 whitespace-nowrap text-sm font-medium text-brand-700 hover:underline">
              All campaigns →
            </Link>
          </div>
          {o?.recentCampaigns.length === 0 && <p className="text-sm text-slate-500">No campaigns yet. Create your first campaign to get started.</p>}
          <ul className="divide-y divide-slate-100">
            {o?.recentCampaigns.map((c) => (
              <li key={c.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-3" data-testid="recent-campaign">
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium text-slate-900">{c.name}</p>
                  <p className="text-xs text-slate-500">
                    {n(c.sent)} sent · {rate(c.deliveryRate)} delivered · {dollars(c.spendMicros, locale)}
                  </p>
                </div>
                <StatusBadge status={c.status} />
                <div className="flex gap-1">
                  {EDITABLE.has(c.status) && (
                    <Button variant="ghost" className="!px-2 !py-1" onClick={() => setAction({ kind: "edit", id: c.id })}>
                      Edit
                    </Button>
                  )}
                  <Button variant="ghost" className="!px-2 !py-1" onClick={() => setAction({ kind: "view", id: c.id })}>
                    View
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        </Card>

        <div className="space-y-4">
          <Card className="p-5">
            <h2 className="mb-3 text-lg font-semibold">Quick Actions</h2>
            <div className="space-y-2">
              <Link
                to="/email-campaigns"
                className="flex items-center justify-between rounded-lg border border-slate-200 px-3 py-2 text-sm hover:border-brand-500"
              >
                Create Email Campaign <Badge tone="slate">Soon</Badge>
              </Link>
              <Link to="/simple-campaign-wizard" className="block rounded-lg border border-slate-200 px-3 py-2 text-sm hover:border-brand-500">
                Create SMS Campaign
              </Link>
              <Link to="/contact-lists" className="block rounded-lg border border-slate-200 px-3 py-2 text-sm hover:border-brand-500">
                Import Contacts
              </Link>
            </div>
          </Card>
          <Card className="p-5" >
            <div className="mb-3 flex items-center justify-between">
              <h2 className="text-lg font-semibold">This Week</h2>
              <Link to="/dashboard" className="text-sm font-medium text-brand-700 hover:underline">
                Results →
              </Link>
            </div>
            {o ? <ThisWeek week={o.week} locale={locale} /> : <StatSkeleton />}
          </Card>
        </div>
      </div>

      <CampaignActionDialogs action={action} user={user} onClose={() => setAction(null)} onChanged={() => void overview.reload()} />
    </div>
  );
}

/** This month so far against last month to the same day: what went out, how it did, what came back, what it cost. */
function MonthCards({ month, locale }: { month: Comparison; locale: string }) {
  const { current: c, change } = month;
  const n = (v: number) => formatNumber(v, locale);
  const against = "last month";
  return (
    <>
      <StatCard label="Messages Sent" value={n(c.sent)} hint={`${n(c.sms.sent)} SMS (${countOf(c.sms.segments, "segment", "segments", locale)}), ${n(c.mms.sent)} MMS`}>
        <Change value={change.sent} against={against} />
      </StatCard>
      <StatCard label="Delivered" value={n(c.delivered)}>
        <Change value={change.delivered} against={against} />
      </StatCard>
      <StatCard label="Failed" value={n(c.bounced)} hint={`${n(c.failed)} refused, ${n(c.undelivered)} undelivered`}>
        <Change value={change.bounced} against={against} upIsBad />
      </StatCard>
      <StatCard label="Delivery Rate" value={rate(c.deliveryRate)}>
        <Change value={change.deliveryRate} against={against} points />
      </StatCard>
      <StatCard label="Replies" value={n(c.replies)} hint={`${rate(c.responseRate)} response rate`}>
        <Change value={change.replies} against={against} />
      </StatCard>
      <StatCard label="Opt-outs" value={n(c.optOuts)} hint={`${rate(c.optOutRate)} opt-out rate`}>
        <Change value={change.optOuts} against={against} upIsBad />
      </StatCard>
      <StatCard label="New Contacts" value={n(c.newContacts)}>
        <Change value={change.newContacts} against={against} />
      </StatCard>
      <StatCard label="Spend" value={dollars(c.spendMicros, locale)} hint={`At each text's price when sent; MMS ${dollars(c.mms.spendMicros, locale)}`}>
        <Change value={change.spendMicros} against={against} upIsBad />
      </StatCard>
    </>
  );
}

/** business.md's "This Week" card: campaigns sent, messages, open rate (a dash for texts) and delivery rate. */
function ThisWeek({ week, locale }: { week: Comparison; locale: string }) {
  const { current: c, change } = week;
  const rows = [
    { label: "Campaigns sent", value: formatNumber(c.campaigns, locale), change: <Change value={change.campaigns} against="last week" /> },
    { label: "Messages sent", value: formatNumber(c.sent, locale), change: <Change value={change.sent} against="last week" /> },
    { label: "Average open rate", value: "—", change: <span className="text-xs text-slate-500">not tracked for texts</span> },
    { label: "Average delivery rate", value: rate(c.deliveryRate), change: <Change value={change.deliveryRate} against="last week" points /> },
  ];
  return (
    <dl className="space-y-3" data-testid="this-week">
      {rows.map((r) => (
        <div key={r.label} className="flex items-start justify-between gap-3">
          <dt className="text-sm text-slate-600">{r.label}</dt>
          <dd className="text-right">
            <span className="block font-semibold tabular-nums text-slate-900">{r.value}</span>
            {r.change}
          </dd>
        </div>
      ))}
    </dl>
  );
}
