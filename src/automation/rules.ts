import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { findDrip } from "../drips/drips";
import { badRequest, notFound } from "../http/errors";
import { checkConditions, compileConditions, type Conditions } from "../segments/conditions";
import { findSegment } from "../segments/segments";

/**
 * Automation rules (issue 15): a trigger, conditions (as segments have them, or a segment's membership) and
 * actions. Rules are stored here; src/automation/runner.ts runs them.
 */

export const TRIGGERS = ["opt_in", "keyword_received", "reply", "contact_created", "tag_added", "birthday", "inactive", "purchase", "manual", "link_clicked"] as const;
export type Trigger = (typeof TRIGGERS)[number];

export type TriggerConfig = {
  /** opt_in through this keyword only; keyword_received of this keyword only (any keyword when absent). */
  keyword?: string;
  /** reply: the message contains one of these words. */
  words?: string[];
  /** tag_added: this tag only (any tag when absent). */
  tag?: string;
  /** birthday: the date custom field, and the hour (0-23) in the contact's zone. */
  field?: string;
  hour?: number;
  /** inactive: days without a message. */
  days?: number;
  /** link_clicked: a person's click of this campaign's links only (any short link when absent). */
  campaignId?: string;
};

export type Actions = {
  sendMessage?: string;
  /** `false`: the message's links go out as written; by default they go out as short links (issue 32). */
  shortenLinks?: boolean;
  addTags?: string[];
  removeTags?: string[];
  /** The text of an email to the account's owner. */
  emailOwner?: string;
  optOut?: boolean;
  /** Enrol in this drip campaign / end the contact's enrolment in this one. */
  enrolDripId?: string;
  removeDripId?: string;
};

export type RuleInput = {
  name?: string;
  trigger?: string;
  triggerConfig?: TriggerConfig;
  conditions?: unknown;
  segmentId?: string | null;
  actions?: Actions;
  isActive?: boolean;
};

type RuleRow = {
  id: string;
  user_id: string;
  name: string;
  trigger: Trigger;
  trigger_config: string;
  conditions: string;
  segment_id: string | null;
  actions: string;
  is_active: number;
  trigger_count: number;
  created_at: number;
  updated_at: number | null;
};

export type Rule = {
  id: string;
  userId: string;
  name: string;
  trigger: Trigger;
  triggerConfig: TriggerConfig;
  conditions: Conditions;
  segmentId: string | null;
  actions: Actions;
  isActive: boolean;
  triggerCount: number;
  createdAt: number;
};

const toRule = (r: RuleRow): Rule => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  trigger: r.trigger,
  triggerConfig: JSON.parse(r.trigger_config),
  conditions: JSON.parse(r.conditions),
  segmentId: r.segment_id,
  actions: JSON.parse(r.actions),
  isActive: !!r.is_active,
  triggerCount: r.trigger_count,
  createdAt: r.created_at,
});

export const ruleView = (r: Rule) => ({
  id: r.id,
  name: r.name,
  trigger: r.trigger,
  triggerConfig: r.triggerConfig,
  conditions: r.conditions,
  segmentId: r.segmentId,
  actions: r.actions,
  isActive: r.isActive,
  triggerCount: r.triggerCount,
  createdAt: new Date(r.createdAt).toISOString(),
});

/** The account's rule, read in the caller's turn on the connection (after its `ready`). */
function ruleNow(ctx: AppContext, userId: string, id: string): Rule | null {
  const row = ctx.db.$client.query(`SELECT * FROM automation_rules WHERE user_id = ? AND id = ?`).get(userId, id) as RuleRow | null;
  return row && toRule(row);
}

/** As ruleNow, a 404 when it is not the account's. */
function ruleOrNotFound(ctx: AppContext, userId: string, id: string): Rule {
  const rule = ruleNow(ctx, userId, id);
  if (!rule) throw notFound("Automation rule not found");
  return rule;
}

export async function findRule(ctx: AppContext, userId: string, id: string): Promise<Rule | null> {
  await ready(ctx.db);
  return ruleNow(ctx, userId, id);
}

export async function getRule(ctx: AppContext, userId: string, id: string): Promise<Rule> {
  await ready(ctx.db);
  return ruleOrNotFound(ctx, userId, id);
}

export async function listRules(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  const rows = ctx.db.$client.query(`SELECT * FROM automation_rules WHERE user_id = ? ORDER BY created_at, id`).all(userId) as RuleRow[];
  return rows.map((r) => ruleView(toRule(r)));
}

/** The triggers of the installation's active rules (the runner reads only the events some rule waits for). */
export async function activeTriggers(ctx: AppContext): Promise<Set<Trigger>> {
  await ready(ctx.db);
  const rows = ctx.db.$client.query(`SELECT DISTINCT trigger FROM automation_rules WHERE is_active = 1`).all() as { trigger: Trigger }[];
  return new Set(rows.map((r) => r.trigger));
}

/** The account's active rules of some triggers (the runner's look-up per account and event type). */
export async function activeRules(ctx: AppContext, userId: string | null, triggers: readonly Trigger[]): Promise<Rule[]> {
  await ready(ctx.db);
  const rows = ctx.db.$client
    .query(
      `SELECT * FROM automation_rules WHERE is_active = 1 AND (?1 IS NULL OR user_id = ?1) AND trigger IN (SELECT value FROM json_each(?2)) ORDER BY created_at, id`,
    )
    .all(userId, JSON.stringify(triggers)) as RuleRow[];
  return rows.map(toRule);
}

const cleanList = (list: string[] | undefined) => [...new Set((list ?? []).map((s) => s.trim()).filter(Boolean))];

async function checked(ctx: AppContext, userId: string, input: RuleInput) {
  const name = (input.name ?? "").trim();
  if (!name) throw badRequest("Rule name is required");
  const trigger = input.trigger as Trigger;
  if (!(TRIGGERS as readonly string[]).includes(trigger)) throw badRequest(`Unknown trigger ${input.trigger}. Use ${TRIGGERS.join(", ")}`);
  const c = input.triggerConfig ?? {};
  const config: TriggerConfig = {};
  if ((trigger === "opt_in" || trigger === "keyword_received") && c.keyword?.trim()) config.keyword = c.keyword.trim();
  if (trigger === "reply") {
    config.words = cleanList(c.words);
    if (!config.words.length) throw badRequest("A reply trigger needs at least one word to look for");
  }
  if (trigger === "tag_added" && c.tag?.trim()) config.tag = c.tag.trim();
  if (trigger === "link_clicked" && c.campaignId?.trim()) config.campaignId = c.campaignId.trim();
  if (trigger === "birthday") {
    if (!c.field?.trim()) throw badRequest("A birthday trigger needs the custom field holding the date");
    config.field = c.field.trim();
    config.hour = c.hour ?? 9;
  }
  if (trigger === "inactive") {
    if (!c.days) throw badRequest("An inactive trigger needs the number of days");
    config.days = c.days;
  }
  const conditions = checkConditions(input.conditions ?? {});
  compileConditions(conditions, ctx.now(), userId, ctx.records.$engine); // checks fields and operators
  const segmentId = input.segmentId?.trim() || null;
  if (segmentId && !(await findSegment(ctx, userId, segmentId))) throw badRequest("Segment not found");
  const a = input.actions ?? {};
  const actions: Actions = {};
  if (a.sendMessage?.trim()) actions.sendMessage = a.sendMessage.trim();
  // Kept only when off and with a message to send: on is the default.
  if (actions.sendMessage && a.shortenLinks === false) actions.shortenLinks = false;
  const addTags = cleanList(a.addTags);
  if (addTags.length) actions.addTags = addTags;
  const removeTags = cleanList(a.removeTags);
  if (removeTags.length) actions.removeTags = removeTags;
  if (a.emailOwner?.trim()) actions.emailOwner = a.emailOwner.trim();
  if (a.optOut) actions.optOut = true;
  for (const key of ["enrolDripId", "removeDripId"] as const) {
    const dripId = a[key]?.trim();
    if (!dripId) continue;
    if ((await findDrip(ctx, dripId))?.userId !== userId) throw badRequest("Drip campaign not found");
    actions[key] = dripId;
  }
  if (!Object.keys(actions).length) throw badRequest("A rule needs at least one action: a message, tags, a drip, an email or an opt-out");
  return { name, trigger, config, conditions, segmentId, actions };
}

/** A new rule: active unless the caller says otherwise (the spec's default). */
export async function createRule(ctx: AppContext, userId: string, input: RuleInput) {
  await ready(ctx.db);
  const c = await checked(ctx, userId, input);
  // The checks awaited a record: the rule is written in a turn of its own on the connection.
  await ready(ctx.db);
  const id = Bun.randomUUIDv7();
  ctx.db.$client
    .query(
      `INSERT INTO automation_rules (id, user_id, name, trigger, trigger_config, conditions, segment_id, actions, is_active, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, userId, c.name, c.trigger, JSON.stringify(c.config), JSON.stringify(c.conditions), c.segmentId, JSON.stringify(c.actions), input.isActive === false ? 0 : 1, ctx.now());
  return ruleView(ruleOrNotFound(ctx, userId, id));
}

/** Replaces the rule's settings; its count and history stay. */
export async function updateRule(ctx: AppContext, userId: string, id: string, input: RuleInput) {
  await ready(ctx.db);
  const rule = ruleOrNotFound(ctx, userId, id);
  const c = await checked(ctx, userId, input);
  // The checks awaited a record: the rule is written in a turn of its own on the connection.
  await ready(ctx.db);
  ctx.db.$client
    .query(
      `UPDATE automation_rules SET name = ?, trigger = ?, trigger_config = ?, conditions = ?, segment_id = ?, actions = ?, is_active = ?, updated_at = ?
       WHERE user_id = ? AND id = ?`,
    )
    .run(c.name, c.trigger, JSON.stringify(c.config), JSON.stringify(c.conditions), c.segmentId, JSON.stringify(c.actions), (input.isActive ?? rule.isActive) ? 1 : 0, ctx.now(), userId, id);
  return ruleView(ruleOrNotFound(ctx, userId, id));
}

export async function deleteRule(ctx: AppContext, userId: string, id: string) {
  await ready(ctx.db);
  ruleOrNotFound(ctx, userId, id);
  ctx.db.$client.query(`DELETE FROM automation_rules WHERE user_id = ? AND id = ?`).run(userId, id);
}

/** Sets the rule's state, or flips it when the body does not say. */
export async function toggleRule(ctx: AppContext, userId: string, id: string, isActive?: boolean) {
  await ready(ctx.db);
  const rule = ruleOrNotFound(ctx, userId, id);
  ctx.db.$client.query(`UPDATE automation_rules SET is_active = ?, updated_at = ? WHERE id = ?`).run((isActive ?? !rule.isActive) ? 1 : 0, ctx.now(), id);
  return ruleView(ruleOrNotFound(ctx, userId, id));
}

type RunRow = { id: string; contact_id: string | null; trigger_key: string; event_id: number | null; outcome: string; detail: string; created_at: number };

/** The rule's runs, newest first. */
export async function listRuns(ctx: AppContext, userId: string, id: string, limit: number) {
  await ready(ctx.db);
  ruleOrNotFound(ctx, userId, id);
  const rows = ctx.db.$client
    .query(`SELECT * FROM automation_runs WHERE rule_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`)
    .all(id, limit) as RunRow[];
  return rows.map((r) => ({
    id: r.id,
    contactId: r.contact_id,
    trigger: r.trigger_key,
    eventId: r.event_id,
    outcome: r.outcome,
    detail: JSON.parse(r.detail) as string[],
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/**
 * Claims a run of the rule for a trigger: false when that (rule, trigger key) already ran, so nothing fires twice.
 * Call it in the transaction that does the run's actions.
 */
export async function claimRun(ctx: AppContext, rule: Rule, key: string, contactId: string | null, eventId: number | null): Promise<string | null> {
  await ready(ctx.db);
  const id = Bun.randomUUIDv7();
  const res = ctx.db.$client
    .query(
      `INSERT INTO automation_runs (id, user_id, rule_id, contact_id, trigger_key, event_id, outcome, detail, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'skipped', '[]', ?) ON CONFLICT (rule_id, trigger_key) DO NOTHING`,
    )
    .run(id, rule.userId, rule.id, contactId, key, eventId, ctx.now());
  return res.changes ? id : null;
}

/** Records how a claimed run ended; a run that did its actions counts on the rule. */
export async function finishRun(ctx: AppContext, runId: string, ruleId: string, outcome: "done" | "skipped" | "failed", detail: string[]) {
  await ready(ctx.db);
  ctx.db.$client.query(`UPDATE automation_runs SET outcome = ?, detail = ? WHERE id = ?`).run(outcome, JSON.stringify(detail), runId);
  if (outcome === "done") ctx.db.$client.query(`UPDATE automation_rules SET trigger_count = trigger_count + 1 WHERE id = ?`).run(ruleId);
}
