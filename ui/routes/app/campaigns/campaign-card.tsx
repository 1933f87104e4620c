import { Menu } from "../../../components/menu";
import { Button, Card } from "../../../components/ui";
import { formatNumber } from "../../../lib/format";
import { isWaitingOnly, QuietWaitNote } from "./delivery-preview";
import { StatusBadge } from "./dialog";
import {
  canCancel,
  canEdit,
  canPause,
  canResume,
  canSendHeld,
  formatDateTime,
  formatRate,
  formatRecipients,
  statusBadge,
  type Campaign,
} from "./model";

export type CardAction = "edit" | "view" | "duplicate" | "delete" | "pause" | "resume" | "cancel" | "sendHeld";

function CardMenu({ campaign, onAction }: { campaign: Campaign; onAction: (a: CardAction) => void }) {
  const items: { action: CardAction; label: string; danger?: boolean }[] = [
    canEdit(campaign) ? { action: "edit", label: "Edit" } : { action: "view", label: "View" },
    { action: "duplicate", label: "Duplicate" },
    ...(canSendHeld(campaign) ? [{ action: "sendHeld" as const, label: "Send held messages now" }] : []),
    ...(canPause(campaign) ? [{ action: "pause" as const, label: "Pause" }] : []),
    ...(canResume(campaign) ? [{ action: "resume" as const, label: "Resume" }] : []),
    ...(canCancel(campaign) ? [{ action: "cancel" as const, label: "Cancel sending", danger: true }] : []),
    ...(campaign.status === "draft" ? [{ action: "delete" as const, label: "Delete", danger: true }] : []),
  ];
  return (
    <Menu
      label={`Actions for ${campaign.name}`}
      className="shrink-0"
      width="w-44"
      items={items.map((i) => ({ label: i.label, danger: i.danger, onSelect: () => onAction(i.action) }))}
    />
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div className="min-w-0">
      <dt className="truncate text-xs text-slate-500">{label}</dt>
      <dd className="font-semibold">{value}</dd>
    </div>
  );
}

export function CampaignCard({
  campaign: c,
  locale,
  timeZone,
  onAction,
  onDetails,
}: {
  campaign: Campaign;
  locale: string;
  timeZone: string;
  onAction: (a: CardAction) => void;
  onDetails: () => void;
}) {
  const n = (v: number) => formatNumber(v, locale);
  const done =
    c.counts.sent +
    c.counts.delivered +
    c.counts.failed +
    c.counts.unknown +
    c.counts.skipped +
    c.counts.expired +
    c.counts.cancelled;
  const progress = c.counts.recipients > 0 ? Math.min(100, Math.round((done / c.counts.recipients) * 100)) : 0;
  return (
    <Card className="flex h-full flex-col p-4">
      <div className="flex items-start gap-2">
        <h3 className="line-clamp-2 min-w-0 flex-1 font-semibold break-words" title={c.name}>
          {c.name}
        </h3>
        <CardMenu campaign={c} onAction={onAction} />
      </div>
      <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1">
        <StatusBadge {...statusBadge(isWaitingOnly(c) ? "waiting" : c.status)} />
        <span className="text-xs text-slate-500">Created {formatDateTime(c.createdAt, locale, timeZone)}</span>
      </div>

      <p className="mt-3 line-clamp-2 min-h-10 text-sm break-words text-slate-700">
        {c.content || <span className="text-slate-400">No message yet</span>}
      </p>

      {c.status === "scheduled" && c.scheduledAt && (
        <p className="mt-2 text-xs text-slate-600">Scheduled for {formatDateTime(c.scheduledAt, locale, timeZone)}</p>
      )}
      {c.status === "paused" && (
        <p className="mt-2 rounded-md bg-amber-50 px-2 py-1 text-xs text-amber-900">
          Paused{c.pauseReason ? `: ${c.pauseReason}` : ""}
        </p>
      )}
      {c.status === "sending" && (
        <QuietWaitNote
          wait={c.quietWait}
          locale={locale}
          className="mt-2 rounded-md bg-amber-50 px-2 py-1 text-xs text-amber-900"
        />
      )}
      {canSendHeld(c) && (
        <Button variant="secondary" className="mt-2 !py-1 text-xs" onClick={() => onAction("sendHeld")}>
          Send held messages now
        </Button>
      )}
      {c.status === "sending" && (
        <div
          className="mt-2"
          aria-label={`Sending progress ${progress}%`}
          role="progressbar"
          aria-valuenow={progress}
          aria-valuemin={0}
          aria-valuemax={100}
        >
          <div className="h-1.5 overflow-hidden rounded-full bg-blue-100">
            <div className="h-full bg-blue-500 transition-all" style={{ width: `${progress}%` }} />
          </div>
        </div>
      )}

      <dl className="mt-3 grid grid-cols-4 gap-2 border-t border-slate-100 pt-3 text-sm">
        <Figure label="Recipients" value={formatRecipients(c, locale)} />
        <Figure label="Sent" value={n(c.totalSent)} />
        <Figure label="Delivered" value={n(c.counts.delivered)} />
        <Figure label="Success" value={formatRate(c.successRate)} />
      </dl>

      {c.counts.failed > 0 && (
        <p className="mt-2 text-xs font-medium text-red-700">
          {n(c.counts.failed)} message{c.counts.failed === 1 ? "" : "s"} failed
        </p>
      )}
      {c.status === "failed" && (
        <p role="note" className="mt-3 rounded-md bg-red-50 px-2 py-1 text-xs text-red-800">
          Campaign failed - Check SMS provider settings
        </p>
      )}

      <div className="mt-auto flex flex-wrap gap-2 pt-3">
        <Button variant="secondary" className="flex-1 whitespace-nowrap" onClick={onDetails}>
          View Details
        </Button>
        {c.status === "draft" && (
          <Button className="flex-1 whitespace-nowrap" onClick={() => onAction("edit")}>
            Continue Editing
          </Button>
        )}
      </div>
    </Card>
  );
}
