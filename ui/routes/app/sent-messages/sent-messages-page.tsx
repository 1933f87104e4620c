import { useSignals } from "@preact/signals-react/runtime";
import { Link, useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { Pagination } from "../../../components/pagination";
import { Button, Card, Field, Input, Select, Spinner } from "../../../components/ui";
import {
  fetchSentMessagesCsv,
  useSentCampaignCount,
  useSentCampaigns,
  useStats,
  type HistoryFilter,
  type HistoryRange,
  type HistorySort,
} from "../../../api/campaigns";
import { useProviders } from "../../../api/providers";
import { useMutation } from "../../../lib/use-mutation";
import { auth } from "../../../lib/auth";
import { formatNumber } from "../../../lib/format";
import { useLiveRefresh } from "../../../lib/live";
import { saveBlob } from "../contacts/model";
import { StatusBadge } from "../campaigns/dialog";
import { isWaitingOnly, QuietWaitNote } from "../campaigns/delivery-preview";
import { DetailsDialog } from "../campaigns/details-dialog";
import {
  CAMPAIGN_REFRESH_MS,
  formatDateTime,
  formatRate,
  formatRecipients,
  isLive,
  statusBadge,
  type Campaign,
} from "../campaigns/model";
import { deliveryRate } from "./history";

const PAGE_SIZE = 20;
/** Typing in the search asks the server once the user pauses, not at every key. */
const SEARCH_DELAY_MS = 300;

/** When a campaign started sending. */
const campaignTime = (c: Campaign) => c.sentAt ?? c.createdAt;

function StatCard({ label, value }: { label: string; value: string | null }) {
  return (
    <Card className="p-4 sm:p-5">
      <p className="text-sm text-slate-500">{label}</p>
      <p className="mt-1 text-2xl font-bold sm:text-3xl" data-testid={`stat-${label}`}>
        {value ?? <Spinner className="h-6 w-6 text-slate-300" />}
      </p>
    </Card>
  );
}

/** /sent-messages and /analytics: what went out, how it was delivered, and a CSV of it. */
export function SentMessagesPage() {
  useSignals();
  const user = auth.value.user!;
  const navigate = useNavigate();
  const [polling, setPolling] = useState(false);
  // Live progress from the socket; polling only while it is down and a campaign is on its way.
  const pollMs = useLiveRefresh(
    ["campaign_progress"],
    () => {
      void campaigns.reload();
      void sentCount.reload();
      void stats.reload();
    },
    { pollMs: polling ? CAMPAIGN_REFRESH_MS : undefined },
  );
  const [filter, setFilter] = useState<HistoryFilter>({ q: "", range: "all", from: "", to: "", sort: "newest" });
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(1);
  const [details, setDetails] = useState<Campaign | null>(null);
  const campaigns = useSentCampaigns(filter, { page, pageSize: PAGE_SIZE }, pollMs);
  const sentCount = useSentCampaignCount(undefined, pollMs);
  const stats = useStats(pollMs);
  const providers = useProviders();
  const noProvider = providers.data !== null && (providers.data?.data ?? []).length === 0;
  // Did any campaign fail? Asked only when there is no provider, the case the banner is about.
  const failedCount = useSentCampaignCount(noProvider ? "failed" : undefined);

  const set = (patch: Partial<HistoryFilter>) => {
    setFilter((f) => ({ ...f, ...patch }));
    setPage(1);
  };
  useEffect(() => {
    if (search === filter.q) return;
    const timer = setTimeout(() => set({ q: search }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search, filter.q]);

  const rows = campaigns.data?.data ?? [];
  const total = campaigns.data?.total ?? 0;
  const anyActive = rows.some((c) => isLive(c));
  useEffect(() => setPolling(anyActive), [anyActive]);

  const n = (v: number) => formatNumber(v, user.locale);
  const s = stats.data;
  const campaignsSent = sentCount.data?.total ?? null;
  const showBanner = noProvider && (failedCount.data?.total ?? 0) > 0;
  const filtered = filter.q !== "" || filter.range !== "all";

  const exporting = useMutation(
    async () => {
      const { blob, fileName } = await fetchSentMessagesCsv(filter);
      saveBlob(blob, fileName);
    },
    { fallback: "Could not export the history" },
  );

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Sent Messages</h1>
          <p className="text-slate-600">Every campaign you sent and how it was delivered.</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" disabled={total === 0 || exporting.busy} onClick={() => void exporting.run()}>
            {exporting.busy ? "Exporting…" : "Export CSV"}
          </Button>
          <Link
            to="/simple-campaign-wizard"
            className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            New Message
          </Link>
        </div>
      </div>

      {showBanner && (
        <div
          role="alert"
          className="flex flex-col gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 sm:flex-row sm:items-center"
        >
          <div className="flex-1">
            <p className="font-semibold text-amber-900">SMS Provider Not Configured</p>
            <p className="text-sm text-amber-900">
              Campaigns failed because no SMS provider is set up. Add your provider's credentials and a phone number to start
              sending.
            </p>
          </div>
          <Button variant="secondary" onClick={() => void navigate({ to: "/settings/phone" })}>
            Open Phone Settings
          </Button>
        </div>
      )}

      {stats.error && <p className="text-sm text-red-600">Could not load the statistics: {stats.error.message}</p>}
      <div className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        <StatCard label="Total Sent" value={s ? n(s.totalSent) : null} />
        <StatCard label="Delivered" value={s ? n(s.totalDelivered) : null} />
        <StatCard label="Delivery Rate" value={s ? `${deliveryRate(s.totalSent, s.totalDelivered)}%` : null} />
        <StatCard label="Campaigns" value={campaignsSent === null ? null : n(campaignsSent)} />
      </div>

      <Card>
        <div className="grid gap-3 border-b border-slate-200 p-4 sm:grid-cols-2 lg:grid-cols-[2fr_1fr_1fr]">
          <Field label="Search" htmlFor="sent-search">
            <Input
              id="sent-search"
              type="search"
              placeholder="Campaign name, message or phone number"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
            />
          </Field>
          <Field label="Date" htmlFor="sent-range">
            <Select id="sent-range" value={filter.range} onChange={(e) => set({ range: e.target.value as HistoryRange })}>
              <option value="all">All time</option>
              <option value="today">Today</option>
              <option value="7d">Last 7 days</option>
              <option value="30d">Last 30 days</option>
              <option value="custom">Custom range</option>
            </Select>
          </Field>
          <Field label="Sort by" htmlFor="sent-sort">
            <Select id="sent-sort" value={filter.sort} onChange={(e) => set({ sort: e.target.value as HistorySort })}>
              <option value="newest">Newest first</option>
              <option value="oldest">Oldest first</option>
              <option value="recipients">Most recipients</option>
              <option value="name">Name</option>
            </Select>
          </Field>
          {filter.range === "custom" && (
            <div className="grid grid-cols-2 gap-3 sm:col-span-2 lg:col-span-3 lg:max-w-md">
              <Field label="From" htmlFor="sent-from">
                <Input
                  id="sent-from"
                  type="date"
                  value={filter.from}
                  max={filter.to || undefined}
                  onChange={(e) => set({ from: e.target.value })}
                />
              </Field>
              <Field label="To (inclusive)" htmlFor="sent-to">
                <Input
                  id="sent-to"
                  type="date"
                  value={filter.to}
                  min={filter.from || undefined}
                  onChange={(e) => set({ to: e.target.value })}
                />
              </Field>
            </div>
          )}
        </div>

        {campaigns.error && <p className="p-4 text-sm text-red-600">Could not load your campaigns: {campaigns.error.message}</p>}
        {exporting.error && <p className="p-4 text-sm text-red-600">{exporting.error}</p>}
        {campaigns.loading && !campaigns.data && (
          <div className="flex justify-center p-10">
            <Spinner className="h-6 w-6 text-slate-300" />
          </div>
        )}

        {rows.length > 0 && (
          <ul className="divide-y divide-slate-100" aria-label="Campaign history">
            {rows.map((c) => (
              <li key={c.id} className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center" data-testid="history-row">
                <div className="min-w-0 flex-1">
                  <div className="flex flex-wrap items-center gap-2">
                    <p className="min-w-0 font-medium break-words">{c.name}</p>
                    <StatusBadge {...statusBadge(isWaitingOnly(c) ? "waiting" : c.status)} />
                  </div>
                  <QuietWaitNote
                    wait={c.status === "sending" ? c.quietWait : null}
                    locale={user.locale}
                    className="text-xs text-amber-800"
                  />
                  <p className="text-xs text-slate-500">
                    {c.status === "completed" ? "Sent " : "Started "}
                    {formatDateTime(new Date(campaignTime(c)).toISOString(), user.locale, user.timezone)}
                  </p>
                  <p className="mt-1 line-clamp-1 text-sm break-all text-slate-600">{c.content}</p>
                </div>
                <dl className="grid shrink-0 grid-cols-4 gap-3 text-sm sm:w-80">
                  <div>
                    <dt className="text-xs text-slate-500">Recipients</dt>
                    <dd className="font-semibold">{formatRecipients(c, user.locale)}</dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">Delivered</dt>
                    <dd className="font-semibold">{n(c.counts.delivered)}</dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">Failed</dt>
                    <dd className="font-semibold">{n(c.counts.failed)}</dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">Success</dt>
                    <dd className="font-semibold">{formatRate(c.successRate)}</dd>
                  </div>
                </dl>
                <Button
                  variant="secondary"
                  className="shrink-0"
                  aria-label={`View details of ${c.name}`}
                  onClick={() => setDetails(c)}
                >
                  View Details
                </Button>
              </li>
            ))}
          </ul>
        )}

        {campaigns.data && total === 0 && !filtered && (
          <div className="p-10 text-center">
            <p className="font-medium">No messages sent yet</p>
            <p className="mt-1 text-sm text-slate-600">Campaigns you send show up here with their delivery results.</p>
            <Link
              to="/simple-campaign-wizard"
              className="mt-4 inline-block rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
            >
              Send your first message
            </Link>
          </div>
        )}
        {campaigns.data && total === 0 && filtered && (
          <p className="p-10 text-center text-slate-600">No campaigns match these filters.</p>
        )}

        {total > PAGE_SIZE && (
          <Pagination page={page} pageSize={PAGE_SIZE} total={total} onPage={setPage} locale={user.locale} />
        )}
      </Card>

      {details && (
        <DetailsDialog
          campaign={details}
          user={user}
          onClose={() => setDetails(null)}
          onEdit={() => void navigate({ to: "/sms-campaigns" })}
        />
      )}
    </div>
  );
}
