import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { clockMinutes, type Clock } from "../sending/quiet-hours";
import { BUILT_IN_STATE_RULES, clock12, mergeStateRules, US_STATES, type StateRule } from "../sending/state-rules";

/**
 * The administrator's lines of the state rule table (issue 34 item 2), one row per state in state_rule_overrides: each
 * replaces the built-in line of its state or adds a state (src/sending/state-rules.ts holds the built-in table).
 */

type Row = {
  state: string;
  allowed_from: string | null;
  allowed_until: string | null;
  cap_per_24h: number | null;
  source: string;
  checked: string;
};

const ruleOf = (r: Row): StateRule => ({
  state: r.state,
  name: US_STATES[r.state] ?? r.state,
  window: r.allowed_from && r.allowed_until ? { from: r.allowed_from as Clock, until: r.allowed_until as Clock } : null,
  capPer24h: r.cap_per_24h,
  source: r.source,
  checked: r.checked,
});

/** The administrator's lines. */
function stateRuleOverrides(ctx: AppContext): StateRule[] {
  return (ctx.db.$client.query(`SELECT * FROM state_rule_overrides ORDER BY state`).all() as Row[]).map(ruleOf);
}

/** The table in force, by state: read afresh by the sending engine for each batch, so a change holds the next one. */
export async function stateRulesInForce(ctx: AppContext): Promise<Map<string, StateRule>> {
  await ready(ctx.db);
  return new Map(mergeStateRules(stateRuleOverrides(ctx)).map((r) => [r.state, r]));
}

/**
 * GET /api/state-rules: the table in force, each line with its hours as held messages write them ("8 AM–8 PM") and
 * whether an administrator set it.
 */
export async function stateRuleTable(ctx: AppContext) {
  await ready(ctx.db);
  return tableInForce(ctx);
}

function tableInForce(ctx: AppContext) {
  const overridden = new Set(stateRuleOverrides(ctx).map((r) => r.state));
  const builtIn = new Set(BUILT_IN_STATE_RULES.map((r) => r.state));
  return {
    rules: mergeStateRules(stateRuleOverrides(ctx)).map((r) => ({
      ...r,
      hours: r.window ? `${clock12(r.window.from)}–${clock12(r.window.until)}` : null,
      origin: overridden.has(r.state) ? (builtIn.has(r.state) ? "changed" : "added") : "built-in",
    })),
  };
}

export type StateRuleInput = {
  allowedFrom: string | null;
  allowedUntil: string | null;
  capPer24h: number | null;
  source: string;
  checked: string;
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Sets an administrator's line for `state` (a USPS code), replacing the built-in one. */
export async function setStateRule(ctx: AppContext, stateCode: string, input: StateRuleInput) {
  const state = stateCode.toUpperCase();
  if (!(state in US_STATES)) throw badRequest(`Unknown state: ${stateCode}. Use a two-letter code such as FL`);
  if ((input.allowedFrom === null) !== (input.allowedUntil === null)) throw badRequest("Give both allowed hours, or neither");
  if (input.allowedFrom !== null && input.allowedUntil !== null) {
    const from = clockMinutes(input.allowedFrom);
    const until = clockMinutes(input.allowedUntil);
    if (from === null || until === null) throw badRequest("Allowed hours are times of day as HH:MM, such as 08:00 and 20:00");
    if (from >= until) throw badRequest("The allowed hours must start before they end, on the same day");
  }
  const source = input.source.trim();
  if (!source) throw badRequest("Give the legal source of the rule");
  if (!DATE.test(input.checked) || Number.isNaN(Date.parse(input.checked)))
    throw badRequest("The date checked is a date as YYYY-MM-DD");
  await ready(ctx.db);
  ctx.db.$client
    .query(
      `INSERT INTO state_rule_overrides (state, allowed_from, allowed_until, cap_per_24h, source, checked, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (state) DO UPDATE SET allowed_from = excluded.allowed_from, allowed_until = excluded.allowed_until,
         cap_per_24h = excluded.cap_per_24h, source = excluded.source, checked = excluded.checked, updated_at = excluded.updated_at`,
    )
    .run(state, input.allowedFrom, input.allowedUntil, input.capPer24h, source, input.checked, ctx.now());
  return tableInForce(ctx);
}

/** Removes the administrator's line for `state`: the built-in line, if there is one, is in force again. */
export async function removeStateRule(ctx: AppContext, stateCode: string) {
  await ready(ctx.db);
  const changes = ctx.db.$client.query(`DELETE FROM state_rule_overrides WHERE state = ?`).run(stateCode.toUpperCase()).changes;
  if (!changes) throw notFound("No administrator's rule for this state");
  return tableInForce(ctx);
}
