import { useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { Pagination } from "../../../components/pagination";
import { Button, Select, Spinner } from "../../../components/ui";
import type { User } from "../../../lib/auth";
import { formatNumber } from "../../../lib/format";
import { useLiveRefresh } from "../../../lib/live";
import { useCampaign, useCampaignLogs } from "../../../api/campaigns";
import { useProviders } from "../../../api/providers";
import { formatPhone } from "../contacts/model";
import { isWaitingOnly, QuietWaitNote } from "./delivery-preview";
import { ClickFigures } from "./click-figures";
import { AbTestReport } from "./ab-test-report";
import { LargeDialog, StatusBadge } from "./dialog";
import {
  CAMPAIGN_REFRESH_MS,
  describeAudience,
  formatDateTime,
  formatRate,
  formatRecipients,
  logBadge,
  statusBadge,
  type Campaign,
  type LogStatus,
} from "./model";

const LOG_PAGE = 20;
const UNSETTLED: LogStatus[] = ["pending", "sending", "sent"];
const FILTERS: { value: "" | LogStatus; label: string }[] = [
  { value: "", label: "All recipients" },
  { value: "delivered", label: "Delivered" },
  { value: "sent", label: "Sent" },
  { value: "pending", label: "Pending" },
  { value: "failed", label: "Failed" },
  { value: "unknown", label: "Unknown" },
  { value: "skipped", label: "Skipped" },
  { value: "expired", label: "Expired" },
  { value: "cancelled", label: "Cancelled" },
];

function Count({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-lg bg-slate-50 px-3 py-2">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="text-lg font-semibold" data-testid={`details-${label}`}>
        {value}
      </dd>
    </div>
  );
}

/** Read-only view of one campaign with its recipients' delivery; follows a campaign that is still sending. */
export function DetailsDialog({
  campaign: initial,
  user,
  onClose,
  onEdit,
}: {
  campaign: Campaign;
  user: User;
  onClose: () => void;
  onEdit: (c: Campaign) => void;
}) {
  const navigate = useNavigate();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<"" | LogStatus>("");
  const [live, setLive] = useState(initial.status === "sending");
  // This campaign's progress from the socket; polling only while it is down and messages are on their way.
  const pollMs = useLiveRefresh(
    ["campaign_progress"],
    () => {
      void fresh.reload();
      void logs.reload();
    },
    { pollMs: live ? CAMPAIGN_REFRESH_MS : undefined, when: (f) => f.campaign.id === initial.id },
  );
  const fresh = useCampaign(initial.id, pollMs);
  const c = fresh.data ?? initial;
  const logs = useCampaignLogs({ campaignId: c.id, page, pageSize: LOG_PAGE, status }, pollMs);
  // A failed campaign's help names the cause: no provider at all, or errors per recipient from the one there is.
  const providers = useProviders();
  const providerCount = providers.data ? providers.data.data.length : null;

  // Keep following while messages are on their way: the campaign sends, or shown recipients await a delivery report.
  const unsettled = c.status === "sending" || (logs.data?.data ?? []).some((l) => UNSETTLED.includes(l.status));
  useEffect(() => setLive(unsettled && c.status !== "draft" && c.status !== "scheduled"), [unsettled, c.status]);

  const n = (v: number) => formatNumber(v, user.locale);
  const { optedOut, invalid, duplicate } = c.skipped ?? { optedOut: 0, invalid: 0, duplicate: 0 };
  const skippedReasons = [
    optedOut && `${n(optedOut)} opted out`,
    invalid && `${n(invalid)} invalid`,
    duplicate && `${n(duplicate)} duplicate`,
  ].filter(Boolean);
  const when =
    c.status === "scheduled" && c.scheduledAt
      ? `Scheduled for ${formatDateTime(c.scheduledAt, user.locale, user.timezone)}`
      : c.sentAt
        ? formatDateTime(c.sentAt, user.locale, user.timezone)
        : "Not sent yet";

  return (
    <LargeDialog
      open
      onClose={onClose}
      title={c.name}
      width="max-w-3xl"
      subtitle={
        <span className="flex flex-wrap items-center gap-2">
          <StatusBadge {...statusBadge(isWaitingOnly(c) ? "waiting" : c.status)} />
          <span>{c.type === "email" ? "Email" : "SMS"} campaign</span>
        </span>
      }
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
          <Button
            variant="secondary"
            onClick={() => {
              onClose();
              void navigate({ to: "/simple-campaign-wizard", search: { message: c.content } as never });
            }}
          >
            Send Similar Message
          </Button>
          {c.status === "draft" && <Button onClick={() => onEdit(c)}>Edit Campaign</Button>}
        </>
      }
    >
      <div className="space-y-5">
        <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm">
          <div>
            <dt className="text-slate-500">Status</dt>
            <dd className="font-medium">{statusBadge(isWaitingOnly(c) ? "waiting" : c.status).label}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Type</dt>
            <dd className="font-medium">{c.type === "email" ? "Email" : "SMS"}</dd>
          </div>
          <div>
            <dt className="text-slate-500">{c.status === "completed" ? "Sent" : c.sentAt ? "Started" : "Sent"}</dt>
            <dd className="font-medium">{when}</dd>
          </div>
          <div>
            <dt className="text-slate-500">From</dt>
            <dd className="font-medium">{c.fromNumber ? formatPhone(c.fromNumber) || c.fromNumber : "—"}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Audience</dt>
            <dd className="font-medium">{describeAudience(c.audience, c.recipients.length)}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Created</dt>
            <dd className="font-medium">{formatDateTime(c.createdAt, user.locale, user.timezone)}</dd>
          </div>
        </dl>

        {c.status === "paused" && (
          <p className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            Paused{c.pauseReason ? `: ${c.pauseReason}` : ""}. Resume it from the campaign's menu.
          </p>
        )}

        <div>
          <p className="text-sm font-medium text-slate-700">Message</p>
          <p className="mt-1 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 text-sm break-words whitespace-pre-wrap">
            {c.content}
          </p>
          {c.appendOptOut && <p className="mt-1 text-xs text-slate-500">Sent with the opt-out line “Reply STOP to opt out”.</p>}
        </div>

        <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4">
          <Count label="Recipients" value={formatRecipients(c, user.locale)} />
          <Count label="Sent" value={n(c.totalSent)} />
          <Count label="Delivered" value={n(c.counts.delivered)} />
          <Count label="Success rate" value={formatRate(c.successRate)} />
          <Count label="Failed" value={n(c.counts.failed)} />
          <Count label="Unknown" value={n(c.counts.unknown)} />
          <Count label="Pending" value={n(c.counts.pending + c.counts.sending)} />
          <Count label="Skipped" value={n(c.counts.skipped)} />
        </dl>
        {c.type === "sms" && c.status !== "draft" && <ClickFigures campaignId={c.id} locale={user.locale} live={c.status === "sending"} />}
        {c.abTest && c.status !== "draft" && c.status !== "scheduled" && (
          <AbTestReport
            campaignId={c.id}
            status={c.status}
            locale={user.locale}
            timeZone={user.timezone}
            live={c.status === "sending"}
            onPicked={() => {
              void fresh.reload();
              void logs.reload();
            }}
          />
        )}
        {c.status === "sending" && (
          <QuietWaitNote
            wait={c.quietWait}
            locale={user.locale}
            className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
          />
        )}
        {c.counts.refused > 0 && (
          <p className="text-xs text-slate-500">
            {n(c.counts.refused)} of the failed {c.counts.refused === 1 ? "was" : "were"} refused by the provider and never sent,
            so "Sent" does not count {c.counts.refused === 1 ? "it" : "them"}.
          </p>
        )}
        {skippedReasons.length > 0 && <p className="text-sm text-slate-600">Skipped: {skippedReasons.join(", ")}.</p>}
        {c.counts.unknown > 0 && (
          <p className="text-xs text-slate-500">
            Unknown: the server stopped while these were being handed to the provider. They were not sent again, so nobody gets a
            message twice.
          </p>
        )}

        {c.status === "failed" && providerCount !== null && providerCount > 0 && (
          <div className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900" role="note" data-testid="failed-help">
            <p className="font-semibold">This campaign could not be sent</p>
            <p className="mt-1">
              Your provider refused or failed every message. Each recipient below shows the error it gave, such as a
              number that cannot receive texts or a sender number your provider has not approved.
            </p>
            <Button
              variant="secondary"
              className="mt-3"
              onClick={() => {
                setStatus("failed");
                setPage(1);
              }}
            >
              Show the failed recipients
            </Button>
          </div>
        )}
        {c.status === "failed" && providerCount === 0 && (
          <div className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900" role="note" data-testid="failed-help">
            <p className="font-semibold">This campaign could not be sent</p>
            <p className="mt-1">No SMS provider is configured yet. To fix that:</p>
            <ol className="mt-2 list-decimal space-y-0.5 pl-5">
              <li>Go to Phone Settings.</li>
              <li>Add your SMS provider's API credentials.</li>
              <li>Add at least one phone number.</li>
            </ol>
            <Button
              variant="secondary"
              className="mt-3"
              onClick={() => {
                onClose();
                void navigate({ to: "/settings/phone" });
              }}
            >
              Open Phone Settings
            </Button>
          </div>
        )}

        <section aria-label="Recipients" className="space-y-2">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h3 className="font-medium">Recipients</h3>
            <div className="flex items-center gap-2">
              {logs.loading && <Spinner className="text-slate-400" />}
              <Select
                aria-label="Filter recipients"
                className="!w-44"
                value={status}
                onChange={(e) => {
                  setStatus(e.target.value as "" | LogStatus);
                  setPage(1);
                }}
              >
                {FILTERS.map((f) => (
                  <option key={f.value} value={f.value}>
                    {f.label}
                  </option>
                ))}
              </Select>
            </div>
          </div>
          {logs.error && <p className="text-sm text-red-600">Could not load the recipients: {logs.error.message}</p>}
          <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200" data-testid="recipient-list">
            {(logs.data?.data ?? []).map((l) => {
              const badge = logBadge(l.status);
              return (
                <li key={l.id} className="flex flex-wrap items-start gap-x-3 gap-y-1 px-3 py-2 text-sm">
                  <div className="min-w-0 flex-1">
                    <p className="font-medium">{l.contactName || formatPhone(l.recipientPhone) || l.recipientPhone}</p>
                    {l.contactName && (
                      <p className="text-xs text-slate-500">{formatPhone(l.recipientPhone) || l.recipientPhone}</p>
                    )}
                    {l.heldReason && (
                      <p className="text-xs text-amber-800" data-testid="held-reason">
                        {l.heldReason}
                        {l.heldUntil && ` · goes ${formatDateTime(l.heldUntil, user.locale, user.timezone)}`}
                      </p>
                    )}
                    {l.errorMessage && (
                      <p className="text-xs text-red-700">
                        {l.errorMessage}
                        {l.errorCode && ` (code ${l.errorCode})`}
                      </p>
                    )}
                    {l.errorExplanation && (
                      <p className="text-xs text-slate-600" data-testid="error-explanation">
                        {l.errorExplanation.meaning} {l.errorExplanation.fix}
                      </p>
                    )}
                  </div>
                  <div className="text-right">
                    <StatusBadge {...badge} />
                    {(l.deliveredAt || l.sentAt) && (
                      <p className="mt-0.5 text-xs text-slate-500">
                        {formatDateTime(l.deliveredAt ?? l.sentAt, user.locale, user.timezone)}
                      </p>
                    )}
                  </div>
                </li>
              );
            })}
            {!logs.loading && (logs.data?.data.length ?? 0) === 0 && (
              <li className="px-3 py-4 text-center text-sm text-slate-500">
                {status
                  ? "No recipients with this status."
                  : c.status === "draft" || c.status === "scheduled"
                    ? "Recipients are listed once the campaign is sent."
                    : "No recipients."}
              </li>
            )}
          </ul>
          {(logs.data?.total ?? 0) > LOG_PAGE && (
            <Pagination page={page} pageSize={LOG_PAGE} total={logs.data!.total} onPage={setPage} locale={user.locale} />
          )}
        </section>
      </div>
    </LargeDialog>
  );
}
