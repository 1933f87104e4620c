import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useRef, useState } from "react";
import { bulkArchiveCampaigns, bulkDeleteCampaigns, useCampaigns, type CampaignView } from "../../../api/campaigns";
import { Badge } from "../../../components/badge";
import { ConnectionDot } from "../../../components/chat-connection";
import { useConfirm } from "../../../components/confirm-dialog";
import { NotFound } from "../../../components/not-found";
import { Pagination } from "../../../components/pagination";
import { Table } from "../../../components/table";
import { TabPanel, Tabs } from "../../../components/tabs";
import { Button, Card } from "../../../components/ui";
import { auth } from "../../../lib/auth";
import { formatNumber } from "../../../lib/format";
import { liveConnected } from "../../../components/chat-live";
import { useLiveRefresh } from "../../../lib/live";
import { useMutation } from "../../../lib/use-mutation";
import { StatusBadge } from "../campaigns/dialog";
import { formatDateTime, formatRecipients, statusBadge } from "../campaigns/model";

const PAGE_SIZE = 25;
/** Only while the socket is down: the page then reads the counts itself, as the campaign screens do. */
const FALLBACK_POLL_MS = 3000;

type View = "active" | "archived";

/**
 * /real-time-demo (administrators): the account's campaigns with delivery badges that move as the socket reports
 * progress, bulk archive and delete, and the connection indicator.
 */
export function RealTimeDemoPage() {
  useSignals();
  const user = auth.value.user!;
  if (user.role !== "admin") return <NotFound signedIn />;
  return <Demo locale={user.locale} timeZone={user.timezone} />;
}

function Demo({ locale, timeZone }: { locale: string; timeZone: string }) {
  const connected = liveConnected.value;
  const [view, setView] = useState<View>("active");
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const { ask, dialog } = useConfirm();
  // Progress frames re-read the page (at most once a second); polling only while the socket is down.
  const reload = useRef<() => unknown>(() => {});
  const pollMs = useLiveRefresh(["campaign_progress"], () => reload.current(), { pollMs: FALLBACK_POLL_MS });
  const list = useCampaigns({ page, pageSize: PAGE_SIZE, archived: view === "archived" }, pollMs);
  reload.current = list.reload;
  // A reconnect may have missed progress: read the counts once it is back.
  useEffect(() => {
    if (connected) void list.reload();
  }, [connected]); // eslint-disable-line react-hooks/exhaustive-deps

  const rows = list.data?.data ?? [];
  const n = (v: number) => formatNumber(v, locale);
  const chosen = rows.filter((c) => selected.has(c.id));
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const change = useMutation((action: () => Promise<{ message: string }>) => action(), {
    onSuccess: () => {
      setSelected(new Set());
      return list.reload();
    },
    success: (answer) => answer.message,
    fallback: "Failed to update campaigns",
    failureToast: "Error",
  });
  const busy = change.busy;

  const archive = () => void change.run(() => bulkArchiveCampaigns([...selected], view === "active"));
  const remove = async () => {
    const deletable = chosen.filter((c) => ["draft", "completed", "failed", "cancelled"].includes(c.status)).length;
    const ok = await ask({
      title: "Delete campaigns",
      message:
        deletable === chosen.length
          ? `Delete ${n(chosen.length)} campaign${chosen.length === 1 ? "" : "s"} and their delivery records? This cannot be undone.`
          : `Delete ${n(deletable)} of the ${n(chosen.length)} selected campaigns? Scheduled, sending and paused campaigns are kept (cancel them first). This cannot be undone.`,
      confirmLabel: "Delete",
    });
    if (ok) await change.run(() => bulkDeleteCampaigns([...selected]));
  };

  return (
    <div className="space-y-6">
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold">Real-Time Demo</h1>
          <p className="text-sm text-slate-600">Campaign delivery as it happens, pushed over the live connection.</p>
        </div>
        <ConnectionDot withLabel />
      </header>

      <Tabs
        idPrefix="demo"
        label="Campaigns"
        value={view}
        onChange={(v) => {
          setView(v);
          setPage(1);
          setSelected(new Set());
        }}
        tabs={[
          { value: "active", label: "Campaigns" },
          { value: "archived", label: "Archived" },
        ]}
      />
      <TabPanel idPrefix="demo" value={view}>
        <Card>
          <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 p-3 text-sm">
            <span className="text-slate-600" aria-live="polite">
              {selected.size ? `${n(selected.size)} selected` : "Select campaigns for bulk actions"}
            </span>
            <div className="ml-auto flex gap-2">
              <Button variant="secondary" disabled={!selected.size || busy} onClick={archive}>
                {view === "active" ? "Archive" : "Restore"}
              </Button>
              <Button variant="danger" disabled={!selected.size || busy} onClick={() => void remove()}>
                Delete
              </Button>
            </div>
          </div>
          {list.error && <p className="p-4 text-sm text-red-600">Could not load campaigns: {list.error.message}</p>}
          {!list.loading && !list.error && rows.length === 0 && (
            <p className="p-6 text-center text-sm text-slate-500">
              {view === "active" ? "No campaigns yet." : "No archived campaigns."}
            </p>
          )}
          {rows.length > 0 && (
            <Table head={["", "Campaign", "Status", "Recipients", "Delivery", "Created"]} label="Campaigns">
              {rows.map((c) => (
                <tr key={c.id} data-testid="demo-campaign">
                  <td className="px-2 py-2">
                    <input
                      type="checkbox"
                      aria-label={`Select ${c.name}`}
                      checked={selected.has(c.id)}
                      onChange={() => toggle(c.id)}
                    />
                  </td>
                  <td className="px-2 py-2 font-medium">{c.name}</td>
                  <td className="px-2 py-2">
                    <StatusBadge {...statusBadge(c.status)} />
                  </td>
                  <td className="px-2 py-2">{formatRecipients(c, locale)}</td>
                  <td className="px-2 py-2">
                    <DeliveryBadges campaign={c} n={n} />
                  </td>
                  <td className="whitespace-nowrap px-2 py-2 text-slate-600">{formatDateTime(c.createdAt, locale, timeZone)}</td>
                </tr>
              ))}
            </Table>
          )}
          {rows.length > 0 && (
            <label className="flex items-center gap-2 border-t border-slate-200 px-4 py-2 text-sm text-slate-600">
              <input
                type="checkbox"
                checked={rows.length > 0 && rows.every((c) => selected.has(c.id))}
                onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((c) => c.id)) : new Set())}
              />
              Select all on this page
            </label>
          )}
          {(list.data?.total ?? 0) > PAGE_SIZE && (
            <Pagination page={page} pageSize={PAGE_SIZE} total={list.data!.total} onPage={setPage} locale={locale} />
          )}
        </Card>
      </TabPanel>
      {dialog}
    </div>
  );
}

/** Pending, sent, delivered and failed counts of one campaign; a zero count is left out. */
function DeliveryBadges({ campaign: c, n }: { campaign: CampaignView; n: (v: number) => string }) {
  const k = c.counts;
  const parts = [
    { tone: "slate", label: "Pending", value: k.pending + k.sending },
    { tone: "blue", label: "Sent", value: k.sent },
    { tone: "green", label: "Delivered", value: k.delivered },
    { tone: "red", label: "Failed", value: k.failed + k.unknown },
  ] as const;
  const shown = parts.filter((p) => p.value > 0);
  if (!shown.length) return <span className="text-slate-400">—</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {shown.map((p) => (
        <Badge key={p.label} tone={p.tone}>
          {p.label} {n(p.value)}
        </Badge>
      ))}
    </span>
  );
}
