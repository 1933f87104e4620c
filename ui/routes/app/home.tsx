import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "@tanstack/react-router";
import { useEffect, useState, type ReactNode } from "react";
import { Icon, type IconName } from "../../components/icons";
import { Card, Spinner } from "../../components/ui";
import { auth } from "../../lib/auth";
import { formatNumber, timeAgo } from "../../lib/format";
import { useRecentActivity, useSummary, type Activity } from "../../api/analytics";
import { useOverview } from "../../api/results";
import { useTemplates } from "../../api/templates";
import { Change } from "./dashboard/figures";
import { useOpenInWizard } from "./templates/templates-page";


const ACTIVITY_ICON: Record<Activity["type"], IconName> = {
  campaign_sent: "megaphone",
  new_replies: "chat",
  new_contacts: "users",
};

const QUICK_ACTIONS = [
  { to: "/simple-campaign-wizard", title: "Send a Quick Message", text: "Text your customers in a few steps" },
  { to: "/contact-lists", title: "Add New Customers", text: "Add or import your contact list" },
  { to: "/sms-campaigns", title: "Create Campaign", text: "Plan a promotion or a reminder" },
  { to: "/analytics", title: "View Results", text: "See what was delivered and who replied" },
];

function Stat({ label, value, children }: { label: string; value: string | null; children?: ReactNode }) {
  return (
    <Card className="p-5">
      <p className="text-sm text-slate-500">{label}</p>
      <p className="mt-1 text-3xl font-bold" data-testid={`stat-${label}`}>
        {value ?? <Spinner className="h-6 w-6 text-slate-300" />}
      </p>
      {children}
    </Card>
  );
}

export function HomePage() {
  useSignals();
  const user = auth.value.user!;
  const summary = useSummary();
  const activity = useRecentActivity();
  // This week against the week before, under the cards it applies to (a dash with nothing to compare).
  const week = useOverview().data?.week;
  const s = summary.data;
  const n = (v: number | undefined) => (v === undefined ? null : formatNumber(v, user.locale));
  // "Welcome back" only to someone who has been here before (in this browser); the first visit is a welcome.
  const seenKey = `smsdesk.home-seen.${user.id}`;
  const [returning] = useState(() => localStorage.getItem(seenKey) === "1");
  useEffect(() => localStorage.setItem(seenKey, "1"), [seenKey]);

  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-2xl font-bold">
          {returning ? "Welcome back" : "Welcome"}
          {user.firstName ? `, ${user.firstName}` : ""}!
        </h1>
        <p className="text-slate-600">Here is how your text marketing is doing.</p>
      </div>

      {!user.onboarding && (
        <Card className="flex flex-col items-start justify-between gap-3 border-brand-100 bg-brand-50 p-5 sm:flex-row sm:items-center">
          <div>
            <p className="font-semibold text-brand-700">Finish setting up your account</p>
            <p className="text-sm text-slate-600">Tell us about your business so we can suggest the right messages.</p>
          </div>
          <Link to="/welcome" className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
            Start setup
          </Link>
        </Card>
      )}

      {summary.error && <p className="text-sm text-red-600">Could not load your figures: {summary.error.message}</p>}
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
        <Stat label="Total Customers" value={n(s?.totalContacts)} />
        <Stat label="Messages Sent" value={n(s?.totalMessagesSent)}>
          {week && (
            <p className="text-xs text-slate-500" data-testid="week-sent">
              {formatNumber(week.current.sent, user.locale)} this week · <Change value={week.change.sent} against="last week" />
            </p>
          )}
        </Stat>
        <Stat label="Response Rate" value={s ? (s.responseRate === null ? "-" : `${s.responseRate}%`) : null}>
          {week && (
            <p className="text-xs text-slate-500">
              {week.current.responseRate === null ? "—" : `${week.current.responseRate}%`} this week ·{" "}
              <Change value={week.change.responseRate} against="last week" points />
            </p>
          )}
        </Stat>
        <Stat label="Active Campaigns" value={n(s?.activeCampaigns)} />
      </div>

      <section>
        <h2 className="mb-3 text-lg font-semibold">Quick Actions</h2>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {QUICK_ACTIONS.map((a) => (
            <a
              key={a.to}
              href={a.to}
              className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm hover:border-brand-500"
            >
              <p className="font-medium">{a.title}</p>
              <p className="mt-1 text-sm text-slate-500">{a.text}</p>
            </a>
          ))}
        </div>
      </section>

      <ReadyMadeTemplates />

      <div className="grid gap-4 lg:grid-cols-3">
        <Card className="p-5 lg:col-span-2">
          <h2 className="mb-3 text-lg font-semibold">Recent Activity</h2>
          {activity.loading && <Spinner className="text-slate-400" />}
          {activity.data?.length === 0 && (
            <p className="text-sm text-slate-500">
              No activity yet. Add your customers and send your first message to see it here.
            </p>
          )}
          <ul className="divide-y divide-slate-100">
            {activity.data?.map((item, i) => (
              <li key={i} className="flex items-center gap-3 py-3">
                <Icon name={ACTIVITY_ICON[item.type]} className="h-5 w-5 text-brand-600" />
                <span className="flex-1 text-sm">{item.message}</span>
                <span className="text-xs text-slate-500">{timeAgo(item.timestamp)}</span>
              </li>
            ))}
          </ul>
        </Card>
        <Card className="p-5">
          <h2 className="text-lg font-semibold">Today's Tip</h2>
          <p className="mt-2 text-sm text-slate-600">
            The best time to send is Tuesday to Thursday, 10 AM to 2 PM, when customers read texts and act on them.
          </p>
          <Link to="/sms-tips" className="mt-3 inline-block text-sm font-medium text-brand-700 hover:underline">
            View More Tips →
          </Link>
        </Card>
      </div>
    </div>
  );
}

/** The simple home's four ready-made templates (business.md), each opening the wizard on its text. */
const READY_MADE = ["builtin-weekend-special", "builtin-appointment-reminder", "builtin-new-customer-welcome", "builtin-customer-survey"];

function ReadyMadeTemplates() {
  const list = useTemplates();
  const openInWizard = useOpenInWizard();
  const shown = READY_MADE.map((id) => list.data?.data.find((t) => t.id === id)).filter((t) => t !== undefined);
  if (!shown.length) return null;
  return (
    <section>
      <div className="mb-3 flex items-center justify-between">
        <h2 className="text-lg font-semibold">Ready-made Templates</h2>
        <Link to="/templates" className="text-sm font-medium text-brand-700 hover:underline">
          All templates →
        </Link>
      </div>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {shown.map((t) => (
          <Card key={t.id} className="flex flex-col p-5">
            <p className="font-medium">{t.name}</p>
            <p className="mt-1 flex-1 text-sm text-slate-500">{t.content}</p>
            <button
              type="button"
              className="mt-3 self-start text-sm font-medium text-brand-700 hover:underline"
              onClick={() => void openInWizard(t)}
            >
              Use This Template
            </button>
          </Card>
        ))}
      </div>
    </section>
  );
}
