/** Drip campaigns: list (with the samples), create, edit, delete, toggle, enrol, enrolments: /api/drip-campaigns/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Drips = Routes["api"]["drip-campaigns"];

export type DripList = Ok<Drips["get"]>;
export type Drip = DripList["data"][number];
export type DripStep = Drip["steps"][number];
/** A step as saved: its pictures and files by id (uploads of POST /api/media; the drip holds them). */
export type DripStepInput = Omit<DripStep, "media">;
export type DripSample = DripList["samples"][number];
export type Enrolment = {
  id: string;
  contactId: string;
  contactName: string | null;
  phone: string | null;
  state: "active" | "completed" | "exited";
  exitReason: string | null;
  nextStep: number | null;
  nextAt: string | null;
  enrolledAt: string;
  endedAt: string | null;
  history: { step: number; outcome: "sent" | "skipped" | "deferred"; reason: string | null; messageId: string | null; at: string }[];
};

export type DripInput = {
  name: string;
  trigger: string;
  steps: DripStepInput[];
  exitOnReply: boolean;
  goalTag: string | null;
  reentryDays: number | null;
  latePolicy: "skip" | "send";
  lateAfterMinutes: number;
};

const DRIPS = "/api/drip-campaigns";

export const useDrips = () => useApi<DripList>(DRIPS);

export const useEnrolments = (id: string | null) => useApi<{ data: Enrolment[] }>(id ? `${DRIPS}/${id}/enrolments` : null, { refreshMs: 5000 });

export const createDrip = (body: DripInput) => api<Drip>(DRIPS, { body });

/** A change of steps with contacts waiting answers 409 with `waiting` unless `applyToWaiting` is given. */
export const saveDrip = (id: string, body: Partial<DripInput> & { applyToWaiting?: boolean }) => api<Drip>(`${DRIPS}/${id}`, { method: "PUT", body });

export const deleteDrip = (id: string) => api(`${DRIPS}/${id}`, { method: "DELETE" });

export const toggleDrip = (id: string) => api<Drip>(`${DRIPS}/${id}/toggle`, { method: "POST" });

export type EnrolResult = { enrolled: number; skipped: { contactId: string; reason: string }[] };

export const enrolInDrip = (id: string, body: { contactIds?: string[]; segmentId?: string }) => api<EnrolResult>(`${DRIPS}/${id}/enrol`, { body });

export const removeEnrolment = (id: string, enrolmentId: string) => api(`${DRIPS}/${id}/enrolments/${enrolmentId}`, { method: "DELETE" });
