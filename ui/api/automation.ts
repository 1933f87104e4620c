/** Automation rules: list, create, edit, delete, toggle and each rule's runs: /api/automation-rules/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Rules = Routes["api"]["automation-rules"];

export type Rule = Ok<Rules["get"]>["data"][number];
export type RuleRun = { id: string; contactId: string | null; trigger: string; eventId: number | null; outcome: "done" | "skipped" | "failed"; detail: string[]; createdAt: string };

export type RuleInput = {
  name: string;
  trigger: string;
  triggerConfig: { keyword?: string; words?: string[]; tag?: string; field?: string; hour?: number; days?: number; campaignId?: string };
  conditions: Record<string, Record<string, string | number>>;
  segmentId: string | null;
  actions: { sendMessage?: string; shortenLinks?: boolean; addTags?: string[]; removeTags?: string[]; emailOwner?: string; optOut?: boolean; enrolDripId?: string; removeDripId?: string };
};

const RULES = "/api/automation-rules";

export const useRules = () => useApi<Ok<Rules["get"]>>(RULES);

/** A rule's runs, newest first, read again every few seconds while shown (rules fire as texts arrive). */
export const useRuleRuns = (id: string | null) => useApi<{ data: RuleRun[] }>(id ? `${RULES}/${id}/runs` : null, { refreshMs: 3000 });

export const createRule = (body: RuleInput) => api<Rule>(RULES, { body });

export const saveRule = (id: string, body: RuleInput) => api<Rule>(`${RULES}/${id}`, { method: "PUT", body });

export const deleteRule = (id: string) => api(`${RULES}/${id}`, { method: "DELETE" });

export const toggleRule = (id: string, isActive: boolean) => api<Rule>(`${RULES}/${id}/toggle`, { body: { isActive } });

/** What the dialog offers to pick: the account's segments and drip campaigns (names and ids). */
export const useSegmentChoices = () => useApi<{ data: { id: string; name: string }[] }>("/api/segments");
export const useDripChoices = () => useApi<{ data: { id: string; name: string }[] }>("/api/drip-campaigns");
