/** Campaigns: the list, the sent-messages history and its CSV, one campaign, create, save, send, pause, resume, cancel, duplicate, delete, A/B test reports and winners, the delivery preview, preset audiences, message logs and totals: /api/campaigns/*, /api/campaign-logs, /api/stats. */
import { ApiError, api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";
import { qs } from "./types";

type Campaigns = Routes["api"]["campaigns"];

export type CampaignPage = Ok<Campaigns["get"]>;
/** A campaign as the list answers it (GET /api/campaigns/:id answers the same view). */
export type CampaignView = CampaignPage["data"][number];
export type LogStatus = "pending" | "sending" | "sent" | "delivered" | "failed" | "unknown" | "skipped" | "expired" | "cancelled";
/** Written out: campaignLogs (src/campaigns) reads its rows with a raw query, so their fields are typed loosely there. */
export type CampaignLog = {
  /** What a carrier error code such as 30034 means and what to do; null for other codes. */
  errorExplanation?: { meaning: string; fix: string } | null;
  id: string;
  campaignId: string;
  campaignName: string;
  recipientPhone: string;
  contactName: string | null;
  status: LogStatus;
  errorCode: string | null;
  errorMessage: string | null;
  timestamp: string;
  sentAt: string | null;
  deliveredAt: string | null;
  /** The rule that holds a pending message ("Held: Florida law allows texts 8 AM–8 PM (...)"), and when it may go. */
  heldReason: string | null;
  heldUntil: string | null;
};
export type CampaignLogPage = { data: CampaignLog[]; total: number; page: number; pageSize: number };
export type AudienceCounts = Ok<Campaigns["audiences"]["get"]>;
export type Stats = Ok<Routes["api"]["stats"]["get"]>;
export type DeliveryPreview = Ok<Campaigns["preview-delivery"]["post"]>;
export type SendResult = Ok<Campaigns[":id"]["send"]["post"]>;

const CAMPAIGNS = "/api/campaigns";

/** The SMS campaigns, newest first; `q` searches their names. */
export const campaignsUrl = (q: { page: number; pageSize: number; q?: string; archived?: boolean }) =>
  `${CAMPAIGNS}${qs({ type: "sms", ...q })}`;

export const useCampaigns = (q: { page: number; pageSize: number; q?: string; archived?: boolean }, refreshMs?: number) =>
  useApi<CampaignPage>(campaignsUrl(q), { refreshMs });

export type HistoryRange = "all" | "today" | "7d" | "30d" | "custom";
export type HistorySort = "newest" | "oldest" | "recipients" | "name";
/** The Sent Messages filters, applied by the server: custom `from`/`to` are days (YYYY-MM-DD) in the account's zone, `to` included. */
export type HistoryFilter = { q: string; range: HistoryRange; from: string; to: string; sort: HistorySort };

const historyQuery = (f: HistoryFilter) => ({
  type: "sms",
  sent: true,
  q: f.q.trim(),
  range: f.range === "all" ? undefined : f.range,
  from: f.range === "custom" ? f.from : undefined,
  to: f.range === "custom" ? f.to : undefined,
  sort: f.sort,
});

/** One page of the SMS campaigns that started sending, filtered and ordered by the server. */
export const useSentCampaigns = (f: HistoryFilter, page: { page: number; pageSize: number }, refreshMs?: number) =>
  useApi<CampaignPage>(`${CAMPAIGNS}${qs({ ...historyQuery(f), ...page })}`, { refreshMs });

/** How many SMS campaigns started sending (of one status when given): the list's total, one row fetched. */
export const useSentCampaignCount = (status?: "failed", refreshMs?: number) =>
  useApi<CampaignPage>(`${CAMPAIGNS}${qs({ type: "sms", sent: true, status, page: 1, pageSize: 1 })}`, { refreshMs });

/** The filtered history as the server writes it (every page), with the file name it gives (dated in the account's zone). */
export async function fetchSentMessagesCsv(f: HistoryFilter): Promise<{ blob: Blob; fileName: string }> {
  const response = await fetch(`${CAMPAIGNS}/export.csv${qs(historyQuery(f))}`, { credentials: "same-origin" });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    throw new ApiError(response.status, typeof body.message === "string" ? body.message : `${response.status}: ${response.statusText}`, body);
  }
  const fileName = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? "sent-messages.csv";
  return { blob: await response.blob(), fileName };
}

export const useCampaign = (id: string, refreshMs?: number) => useApi<CampaignView>(`${CAMPAIGNS}/${id}`, { refreshMs });

/** A campaign's click figures (issue 32): people's clicks and click rate, per link and per day, and every hit by kind. */
export type CampaignClicks = Ok<Campaigns[":id"]["clicks"]["get"]>;
export const useCampaignClicks = (id: string, refreshMs?: number) => useApi<CampaignClicks>(`${CAMPAIGNS}/${id}/clicks`, { refreshMs });

/** A campaign's A/B test report (issue 32 item 3): each variant's figures, the confidence of the difference, the winner. */
export type AbTestReport = Ok<Campaigns[":id"]["ab-test"]["get"]>;
export const useAbTestReport = (id: string, refreshMs?: number) => useApi<AbTestReport>(`${CAMPAIGNS}/${id}/ab-test`, { refreshMs });
/** Picks the winner (`variant`, a letter), or sends the leader now (none): the rest of the audience gets it. */
export const pickAbWinner = (id: string, variant?: string) =>
  api<Ok<Campaigns[":id"]["ab-test"]["winner"]["post"]>>(`${CAMPAIGNS}/${id}/ab-test/winner`, { body: variant ? { variant } : {} });

/** One campaign's messages, a page at a time, optionally of one status. */
export const useCampaignLogs = (
  q: { campaignId: string; page: number; pageSize: number; status?: LogStatus | "" },
  refreshMs?: number,
) => useApi<CampaignLogPage>(`/api/campaign-logs${qs(q)}`, { refreshMs });

/** Answers the new campaign (older servers wrapped it in `data`). */
export const createCampaign = (body: unknown) => api<Partial<CampaignView> & { data?: { id?: string } }>(CAMPAIGNS, { body });

export const saveCampaign = (id: string, body: unknown) => api(`${CAMPAIGNS}/${id}`, { method: "PUT", body });

/** Sends now, or at `scheduledAt` (ISO) when given. */
/** `acknowledgeRegistration`: the user saw the warning that carriers block the sender (the server refuses otherwise). */
export const sendCampaign = (id: string, scheduledAt?: string | null, acknowledgeRegistration = false) =>
  api<SendResult>(`${CAMPAIGNS}/${id}/send`, {
    body: { ...(scheduledAt ? { scheduledAt } : {}), ...(acknowledgeRegistration ? { acknowledgeRegistration } : {}) },
  });

export type SendHeldResult = Ok<Campaigns[":id"]["send-held"]["post"]>;

/** Sends a campaign's messages held for quiet hours now; quiet hours hold none of its messages from then on. */
export const sendHeldMessages = (id: string) => api<SendHeldResult>(`${CAMPAIGNS}/${id}/send-held`, { method: "POST" });

export const campaignAction = (id: string, action: "pause" | "resume" | "cancel") =>
  api(`${CAMPAIGNS}/${id}/${action}`, { method: "POST" });

export const duplicateCampaign = (id: string) => api<CampaignView>(`${CAMPAIGNS}/${id}/duplicate`, { method: "POST" });

export const deleteCampaign = (id: string) => api(`${CAMPAIGNS}/${id}`, { method: "DELETE" });

/** Deletes the drafts and finished campaigns among `campaignIds` (scheduled, sending and paused ones stay). */
export const bulkDeleteCampaigns = (campaignIds: string[]) =>
  api<{ deleted: number; message: string }>(`${CAMPAIGNS}/bulk-delete`, { body: { campaignIds } });

/** Archives the campaigns, or with `archive` false brings them back. */
export const bulkArchiveCampaigns = (campaignIds: string[], archive = true) =>
  api<{ changed: number; message: string }>(`${CAMPAIGNS}/bulk-archive`, { body: { campaignIds, archive } });

export const previewDelivery = (question: unknown, signal?: AbortSignal) =>
  api<DeliveryPreview>(`${CAMPAIGNS}/preview-delivery`, { body: question, signal });

export const useAudienceCounts = () => useApi<AudienceCounts>(`${CAMPAIGNS}/audiences`);

export const useStats = (refreshMs?: number) => useApi<Stats>("/api/stats", { refreshMs });

/** What registration reviewers reject, checked against the account's templates, HELP reply and keywords (issue 34). */
export type RegistrationChecklist = Ok<Campaigns["registration-checklist"]["get"]>;
export const useRegistrationChecklist = () => useApi<RegistrationChecklist>(`${CAMPAIGNS}/registration-checklist`);
