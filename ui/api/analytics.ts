/** The home screen's figures and recent activity: /api/analytics/*. */
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Analytics = Routes["api"]["analytics"];

export type Summary = Ok<Analytics["summary"]["get"]>;
export type Activity = Ok<Analytics["recent-activity"]["get"]>[number];

export const useSummary = () => useApi<Summary>("/api/analytics/summary");

export const useRecentActivity = () => useApi<Activity[]>("/api/analytics/recent-activity");
