/** The state rule table (issue 34 item 2): GET /api/state-rules for everyone, an administrator's lines under /api/admin/state-rules. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

export type StateRuleTable = Ok<Routes["api"]["state-rules"]["get"]>;
export type StateRuleLine = StateRuleTable["rules"][number];
export type StateRuleInput = {
  allowedFrom: string | null;
  allowedUntil: string | null;
  capPer24h: number | null;
  source: string;
  checked: string;
};

export const useStateRules = () => useApi<StateRuleTable>("/api/state-rules");

export const saveStateRule = (state: string, body: StateRuleInput) =>
  api<StateRuleTable>(`/api/admin/state-rules/${encodeURIComponent(state)}`, { method: "PUT", body });

export const removeStateRule = (state: string) =>
  api<StateRuleTable>(`/api/admin/state-rules/${encodeURIComponent(state)}`, { method: "DELETE" });
