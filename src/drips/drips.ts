import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { preparedPerDb } from "../../db/prepared";
import { ready } from "../../db/transaction";
import { dripCampaigns, dripEnrolments, dripStepLog } from "../../db/schema";
import { contactIdsWhere, findContactById } from "../contacts/contacts";
import type { AppContext } from "../context";
import { badRequest, conflict, notFound } from "../http/errors";
import { cancelJobs, enqueueJob, rescheduleJob } from "../jobs/jobs";
import { compileConditions } from "../segments/conditions";
import { assertHoldable, heldMedia, holdMedia, mediaView, releaseMedia, type MediaHolder, type MediaRow } from "../media/media";
import { chooseSender } from "../phone-numbers/numbers";
import { cannotSendMms } from "../../shared/providers/mms";
import type { ProviderKind } from "../providers/types";
import { findSegment } from "../segments/segments";
import { zoneForRecipient } from "../sending/quiet-hours";
import { wallToInstant, zoneOffset } from "../time/zones";
import { findUserById } from "../users/queries";
import { nextTurn } from "../time/next-turn";

/**
 * Drip campaigns: an ordered list of steps, each a delay after the previous one (the first after enrolment), an
 * optional hour of the contact's day to send at, and the content. Each enrolment keeps its own copy of the steps,
 * so an edit reaches contacts already waiting only when the user says so. Steps run as jobs (runner.ts).
 */

export const UNITS = ["minutes", "hours", "days"] as const;
export type Unit = (typeof UNITS)[number];
/**
 * `shortenLinks: false`: the step's links go out as written; by default they go out as short links (issue 32).
 * `mediaIds`: the step's pictures and files (issue 33), held by the drip ('drip:<id>') and linked to each message
 * the step sends, which goes as one MMS.
 */
export type Step = { delay: number; unit: Unit; sendAtHour: number | null; content: string; shortenLinks?: false; mediaIds?: string[] };
export const TRIGGERS = ["opt_in", "keyword_received", "purchase", "birthday", "inactive", "manual"] as const;
export type LatePolicy = "skip" | "send";

const UNIT_MS: Record<Unit, number> = { minutes: 60_000, hours: 3600_000, days: 86_400_000 };
const DAY = 86_400_000;
export const MAX_STEPS = 20;
/** Enrolments made from one segment in one call. */
export const MAX_SEGMENT_ENROL = 10_000;
export const JOB_KIND = "drip_step";

/** The spec's samples, offered as starting points (nothing is stored until the user saves one). */
export const DRIP_SAMPLES = [
  {
    id: "welcome-series",
    name: "Welcome Series",
    trigger: "opt_in",
    steps: [
      { delay: 0, unit: "days", sendAtHour: null, content: "Welcome to {business}, {firstName|there}! Thanks for joining. Reply STOP to opt out." },
      { delay: 1, unit: "days", sendAtHour: 10, content: "Hi {firstName|there}, here is what {business} can do for you. Questions? Just reply." },
      { delay: 2, unit: "days", sendAtHour: 10, content: "{firstName|Hi}, a small thank-you from {business}: show this text for 10% off your next visit." },
      { delay: 4, unit: "days", sendAtHour: 10, content: "One week with {business}! We would love to hear how it is going, {firstName|there}." },
    ],
  },
  {
    id: "win-back",
    name: "Win-Back Campaign",
    trigger: "inactive",
    steps: [
      { delay: 0, unit: "days", sendAtHour: 11, content: "We miss you at {business}, {firstName|there}! Come back this week for 15% off." },
      { delay: 2, unit: "days", sendAtHour: 11, content: "{firstName|Hi}, your 15% off at {business} ends soon." },
      { delay: 5, unit: "days", sendAtHour: 11, content: "Last call, {firstName|there}: your {business} offer ends today." },
    ],
  },
] as const satisfies readonly { id: string; name: string; trigger: string; steps: readonly Step[] }[];

export type DripRow = typeof dripCampaigns.$inferSelect;
export type EnrolmentRow = typeof dripEnrolments.$inferSelect;

export const stepKey = (enrolmentId: string, step: number) => `drip:${enrolmentId}:${step}`;
export const stepsOf = (json: string): Step[] => JSON.parse(json) as Step[];

/** Who holds a drip's attachments (src/media): every step's, and those of steps contacts still wait on. */
const dripMedia = (id: string): MediaHolder => `drip:${id}`;
/** Every attachment the steps name, in order, once each. */
const mediaOfSteps = (steps: Step[]) => [...new Set(steps.flatMap((s) => s.mediaIds ?? []))];

/** The drip as the screens and the API show it: each step with its attachments (`media`, from what the drip holds). */
export function dripView(d: DripRow, counts?: { active: number; completed: number; exited: number }, held?: MediaRow[]) {
  const byId = new Map((held ?? []).map((m) => [m.id, m]));
  return {
    id: d.id,
    name: d.name,
    trigger: d.trigger,
    isActive: d.isActive,
    steps: stepsOf(d.steps).map((s) => ({ ...s, media: (s.mediaIds ?? []).flatMap((id) => (byId.has(id) ? [mediaView(byId.get(id)!)] : [])) })),
    exitOnReply: d.exitOnReply,
    goalTag: d.goalTag,
    segmentId: d.segmentId,
    reentryDays: d.reentryDays,
    latePolicy: d.latePolicy as LatePolicy,
    lateAfterMinutes: d.lateAfterMinutes,
    enrolments: counts ?? { active: 0, completed: 0, exited: 0 },
    createdAt: new Date(d.createdAt).toISOString(),
    updatedAt: new Date(d.updatedAt).toISOString(),
  };
}

// Prepared once: each pass of drip steps reads its drips (10,000 steps may fall due in the same minute).
const dripById = preparedPerDb((db) => db.select().from(dripCampaigns).where(eq(dripCampaigns.id, sql.placeholder("id"))).prepare());

export async function findDrip(ctx: AppContext, id: string): Promise<DripRow | undefined> {
  await ready(ctx.db);
  return dripById(ctx.db).get({ id });
}

function getDrip(ctx: AppContext, userId: string, id: string): DripRow {
  const d = ctx.db.select().from(dripCampaigns).where(and(eq(dripCampaigns.userId, userId), eq(dripCampaigns.id, id))).get();
  if (!d) throw notFound("Drip campaign not found");
  return d;
}

function countsByDrip(ctx: AppContext, ids: string[]) {
  const rows = ids.length
    ? ctx.db.select({ id: dripEnrolments.dripId, state: dripEnrolments.state, n: sql<number>`count(*)` }).from(dripEnrolments).where(inArray(dripEnrolments.dripId, ids)).groupBy(dripEnrolments.dripId, dripEnrolments.state).all()
    : [];
  const out = new Map<string, { active: number; completed: number; exited: number }>();
  for (const r of rows) {
    const c = out.get(r.id) ?? { active: 0, completed: 0, exited: 0 };
    c[r.state as "active" | "completed" | "exited"] = r.n;
    out.set(r.id, c);
  }
  return out;
}

export async function listDrips(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  const rows = ctx.db.select().from(dripCampaigns).where(eq(dripCampaigns.userId, userId)).orderBy(desc(dripCampaigns.createdAt)).all();
  const counts = countsByDrip(ctx, rows.map((r) => r.id));
  const media = await heldMedia(ctx, rows.map((r) => dripMedia(r.id)));
  return rows.map((r) => dripView(r, counts.get(r.id), media.get(dripMedia(r.id))));
}

/** One drip as shown, with its counts and attachments. */
async function viewOf(ctx: AppContext, userId: string, id: string) {
  const drip = getDrip(ctx, userId, id);
  const counts = countsByDrip(ctx, [id]).get(id);
  return dripView(drip, counts, (await heldMedia(ctx, [dripMedia(id)])).get(dripMedia(id)));
}

export type DripInput = {
  name?: string;
  trigger?: string;
  steps?: { delay: number; unit: string; sendAtHour?: number | null; content: string; shortenLinks?: boolean; mediaIds?: string[] }[];
  isActive?: boolean;
  exitOnReply?: boolean;
  goalTag?: string | null;
  segmentId?: string | null;
  reentryDays?: number | null;
  latePolicy?: string;
  lateAfterMinutes?: number;
};

/**
 * Checks an input and answers the columns it sets; `creating` requires name and steps. A step's attachments must be
 * the account's uploads, free or this drip's (`id`), each in one step only, and the account's default number (the
 * one drips send from) on a provider that sends MMS: else 400 before anything is saved.
 */
async function values(ctx: AppContext, userId: string, input: DripInput, creating: boolean, id: string | null) {
  const out: Partial<typeof dripCampaigns.$inferInsert> = {};
  if (input.name !== undefined || creating) {
    const name = (input.name ?? "").trim();
    if (!name) throw badRequest("A drip campaign needs a name");
    out.name = name;
  }
  if (input.trigger !== undefined || creating) {
    const trigger = input.trigger ?? "manual";
    if (!(TRIGGERS as readonly string[]).includes(trigger)) throw badRequest(`Unknown trigger "${trigger}"; use one of ${TRIGGERS.join(", ")}`);
    out.trigger = trigger;
  }
  if (input.steps !== undefined || creating) {
    const steps = input.steps ?? [];
    if (!steps.length) throw badRequest("A drip campaign needs at least one step");
    if (steps.length > MAX_STEPS) throw badRequest(`A drip campaign has at most ${MAX_STEPS} steps`);
    const checked: Step[] = [];
    for (const [i, s] of steps.entries()) {
      if (!(UNITS as readonly string[]).includes(s.unit)) throw badRequest(`Step ${i + 1}: the delay is in minutes, hours or days`);
      const content = s.content.trim();
      const mediaIds = s.mediaIds ?? [];
      if (!content && !mediaIds.length) throw badRequest(`Step ${i + 1} has no message`);
      if (mediaIds.length) await assertHoldable(ctx, userId, id ? dripMedia(id) : null, mediaIds);
      checked.push({
        delay: s.delay,
        unit: s.unit as Unit,
        sendAtHour: s.sendAtHour ?? null,
        content,
        ...(s.shortenLinks === false ? { shortenLinks: false as const } : {}),
        ...(mediaIds.length ? { mediaIds } : {}),
      });
    }
    out.steps = JSON.stringify(checked);
    const all = steps.flatMap((s) => s.mediaIds ?? []);
    if (new Set(all).size !== all.length) throw badRequest("The same attachment is in two steps: upload it again for the second");
    if (all.length) {
      const sender = await chooseSender(ctx, userId, null);
      const refusal = sender ? cannotSendMms(sender.provider as ProviderKind) : null;
      if (refusal) throw badRequest(`Drips send from your default number: ${refusal}`, { mmsUnsupported: true });
    }
  }
  if (input.isActive !== undefined) out.isActive = input.isActive;
  if (input.exitOnReply !== undefined) out.exitOnReply = input.exitOnReply;
  if (input.goalTag !== undefined) out.goalTag = input.goalTag?.trim() || null;
  if (input.segmentId !== undefined) {
    if (input.segmentId && !(await findSegment(ctx, userId, input.segmentId))) throw badRequest("That segment does not exist");
    out.segmentId = input.segmentId || null;
  }
  if (input.reentryDays !== undefined) out.reentryDays = input.reentryDays;
  if (input.latePolicy !== undefined) {
    if (input.latePolicy !== "skip" && input.latePolicy !== "send") throw badRequest('Late steps are either "skip" or "send"');
    out.latePolicy = input.latePolicy;
  }
  if (input.lateAfterMinutes !== undefined) out.lateAfterMinutes = input.lateAfterMinutes;
  return out;
}

/** The input's checks (its attachments free to hold, its sender, its segment) run in the transaction that writes. */
export async function createDrip(ctx: AppContext, userId: string, input: DripInput) {
  return ctx.withTransaction(async () => {
    const now = ctx.now();
    const row = { id: Bun.randomUUIDv7(), userId, createdAt: now, updatedAt: now, ...(await values(ctx, userId, input, true, null)) } as typeof dripCampaigns.$inferInsert;
    ctx.db.insert(dripCampaigns).values(row).run();
    const media = mediaOfSteps(stepsOf(row.steps));
    if (media.length) await holdMedia(ctx, userId, dripMedia(row.id), media);
    return viewOf(ctx, userId, row.id);
  });
}

function waitingCount(ctx: AppContext, dripId: string): number {
  return ctx.db.select({ n: sql<number>`count(*)` }).from(dripEnrolments).where(and(eq(dripEnrolments.dripId, dripId), eq(dripEnrolments.state, "active"))).get()!.n;
}

/**
 * Edits a drip. A change of steps with contacts waiting needs the user's answer (`applyToWaiting`), else 409 with
 * how many wait: true gives the waiting enrolments the new steps and moves their next step's job; false leaves
 * them on the steps they enrolled with.
 */
export async function updateDrip(ctx: AppContext, userId: string, id: string, input: DripInput & { applyToWaiting?: boolean }) {
  // The drip, the steps it had and the contacts waiting are read in the transaction that writes: an edit or an
  // enrolment committed meanwhile is what the change is compared with.
  return ctx.withTransaction(async () => {
    const current = getDrip(ctx, userId, id);
    const set = await values(ctx, userId, input, false, id);
    const stepsChanged = set.steps !== undefined && set.steps !== current.steps;
    if (stepsChanged) {
      const waiting = waitingCount(ctx, id);
      if (waiting && input.applyToWaiting === undefined) {
        throw conflict(`${waiting} contact(s) are waiting in this drip: say whether the change applies to them`, { waiting });
      }
      if (waiting && input.applyToWaiting) await applyStepsToWaiting(ctx, current, stepsOf(set.steps!));
      // The drip holds the new steps' attachments and those of the steps contacts still wait on (kept when the change
      // does not apply to them); the rest are let go to the media sweep.
      const stillWaiting = waiting && !input.applyToWaiting ? waitingSteps(ctx, id) : [];
      await holdMedia(ctx, userId, dripMedia(id), mediaOfSteps([...stepsOf(set.steps!), ...stillWaiting]));
    }
    ctx.db.update(dripCampaigns).set({ ...set, updatedAt: ctx.now() }).where(eq(dripCampaigns.id, id)).run();
    return viewOf(ctx, userId, id);
  });
}

/** The steps of the drip's active enrolments (each its own copy, which may be older than the drip's). */
function waitingSteps(ctx: AppContext, dripId: string): Step[] {
  const rows = ctx.db.select({ steps: dripEnrolments.steps }).from(dripEnrolments).where(and(eq(dripEnrolments.dripId, dripId), eq(dripEnrolments.state, "active"))).all();
  return [...new Set(rows.map((r) => r.steps))].flatMap(stepsOf);
}

/** Waiting enrolments take the new steps; each one's next step is due again from its last step's time. */
async function applyStepsToWaiting(ctx: AppContext, drip: DripRow, steps: Step[]) {
  const user = await findUserById(ctx, drip.userId);
  const active = ctx.db.select().from(dripEnrolments).where(and(eq(dripEnrolments.dripId, drip.id), eq(dripEnrolments.state, "active"))).all();
  for (const e of active) {
    const json = JSON.stringify(steps);
    if (e.nextStep >= steps.length) {
      await cancelJobs(ctx, { key: stepKey(e.id, e.nextStep) });
      ctx.db.update(dripEnrolments).set({ steps: json, state: "completed", nextAt: null, endedAt: ctx.now() }).where(eq(dripEnrolments.id, e.id)).run();
      continue;
    }
    const contact = await findContactById(ctx, drip.userId, e.contactId);
    const zone = zoneForRecipient(contact?.phone ?? "", user?.timezone ?? "UTC");
    const at = stepDueAt(steps[e.nextStep]!, e.lastAt, zone);
    await rescheduleJob(ctx, { kind: JOB_KIND, key: stepKey(e.id, e.nextStep), runAt: at, userId: drip.userId, refId: drip.id, payload: { enrolmentId: e.id, step: e.nextStep } });
    ctx.db.update(dripEnrolments).set({ steps: json, nextAt: at }).where(eq(dripEnrolments.id, e.id)).run();
  }
}

/** Deletes a drip with its enrolments and history; their pending step jobs are cancelled. */
export async function deleteDrip(ctx: AppContext, userId: string, id: string): Promise<void> {
  await ctx.withTransaction(async () => {
    getDrip(ctx, userId, id);
    await cancelJobs(ctx, { refId: id });
    ctx.db.delete(dripCampaigns).where(eq(dripCampaigns.id, id)).run();
    // Its attachments are let go: the media sweep removes them once no message carries them.
    await releaseMedia(ctx, [dripMedia(id)]);
  });
}

/**
 * Switches a drip on or off: an inactive drip takes no new contacts; those already in it finish their steps. The
 * database turns the value it holds (NOT is_active), so two switches at once turn it twice, never the same way.
 */
export async function toggleDrip(ctx: AppContext, userId: string, id: string) {
  return ctx.withTransaction(async () => {
    getDrip(ctx, userId, id);
    ctx.db.update(dripCampaigns).set({ isActive: sql`NOT ${dripCampaigns.isActive}`, updatedAt: ctx.now() }).where(eq(dripCampaigns.id, id)).run();
    return viewOf(ctx, userId, id);
  });
}

/**
 * When a step is due: `delay` after `base`. With a send-at hour on the contact's clock, a delay in days counts
 * calendar days ("day 1 at 09:00" is tomorrow at nine, whatever the time now); a delay in minutes or hours is
 * followed by the next time the clock reads that hour. Never before `base`.
 */
export function stepDueAt(step: Step, base: number, zone: string): number {
  if (step.sendAtHour === null) return base + step.delay * UNIT_MS[step.unit];
  const days = step.unit === "days";
  const from = days ? base : base + step.delay * UNIT_MS[step.unit];
  const local = from + zoneOffset(zone, from);
  let wall = local - (((local % DAY) + DAY) % DAY) + (days ? step.delay * DAY : 0) + step.sendAtHour * 3600_000;
  if (wall < local) wall += DAY;
  return wallToInstant(zone, wall);
}

export type EnrolOutcome = { enrolled: number; skipped: { contactId: string; reason: string }[] };

// Prepared once per connection: an enrolment of 10,000 contacts at once runs these 10,000 times.
const enrolmentsOfContact = preparedPerDb((db) => db.select().from(dripEnrolments).where(eq(dripEnrolments.contactId, sql.placeholder("contactId"))).prepare());
const insertEnrolment = preparedPerDb((db) =>
  db
    .insert(dripEnrolments)
    .values({
      id: sql.placeholder("id"),
      userId: sql.placeholder("userId"),
      dripId: sql.placeholder("dripId"),
      contactId: sql.placeholder("contactId"),
      state: "active",
      steps: sql.placeholder("steps"),
      nextStep: 0,
      nextAt: sql.placeholder("nextAt"),
      lastAt: sql.placeholder("now"),
      enrolledAt: sql.placeholder("now"),
    })
    .prepare(),
);

/**
 * Enrols one contact (in the caller's transaction): subscribed, with a phone, not already in the drip, and
 * allowed back by the re-entry rule. The first step's job is queued with the enrolment. Answers why not, or null.
 */
export async function enrolContact(ctx: AppContext, drip: DripRow, contactId: string): Promise<string | null> {
  const contact = await findContactById(ctx, drip.userId, contactId);
  if (!contact) return "Contact not found";
  if (!contact.phone) return "The contact has no phone number";
  if (contact.status === "opted_out") return "The contact has opted out";
  // Through the contact's index (a contact has a few enrolments; a drip may have 10,000).
  const last = enrolmentsOfContact(ctx.db)
    .all({ contactId })
    .filter((e) => e.dripId === drip.id)
    .reduce<EnrolmentRow | undefined>((a, e) => (!a || e.enrolledAt > a.enrolledAt ? e : a), undefined);
  const now = ctx.now();
  if (last?.state === "active") return "Already in this drip";
  if (last && drip.reentryDays === null) return "Already went through this drip (re-entry is off)";
  if (last && now - last.enrolledAt < drip.reentryDays! * DAY) return `Enrolled less than ${drip.reentryDays} day(s) ago`;
  const user = await findUserById(ctx, drip.userId);
  const steps = stepsOf(drip.steps);
  const at = stepDueAt(steps[0]!, now, zoneForRecipient(contact.phone, user?.timezone ?? "UTC"));
  const id = Bun.randomUUIDv7();
  insertEnrolment(ctx.db).run({ id, userId: drip.userId, dripId: drip.id, contactId, steps: drip.steps, nextAt: at, now });
  await enqueueJob(ctx, { kind: JOB_KIND, key: stepKey(id, 0), runAt: at, userId: drip.userId, refId: drip.id, payload: { enrolmentId: id, step: 0 } });
  return null;
}

/** Enrolments made per transaction, at most, and the time one may take; the event loop gets a turn between them. */
export const ENROL_CHUNK = 500;
export const ENROL_BUDGET_MS = 10;

/**
 * Enrols the given contacts, or a segment's contacts as they are now, at most ENROL_CHUNK or ENROL_BUDGET_MS per
 * transaction with a turn of the event loop between, so 10,000 at once never hold up requests and sending for long. Each enrolment commits with its
 * first step's job; a repeat after an interruption skips those already in. A drip switched off or deleted meanwhile
 * takes no more.
 */
export async function enrol(ctx: AppContext, userId: string, id: string, input: { contactIds?: string[]; segmentId?: string }): Promise<EnrolOutcome> {
  await ready(ctx.db);
  const drip = getDrip(ctx, userId, id);
  if (!drip.isActive) throw conflict("This drip campaign is inactive: switch it on to enrol contacts");
  let ids = input.contactIds ?? [];
  if (input.segmentId) {
    const segment = await findSegment(ctx, userId, input.segmentId);
    if (!segment) throw notFound("Segment not found");
    ids = await contactIdsWhere(ctx, userId, compileConditions(segment.conditions, ctx.now(), userId, ctx.records.$engine), MAX_SEGMENT_ENROL);
  }
  if (!ids.length) throw badRequest("Choose the contacts or a segment to enrol");
  const out: EnrolOutcome = { enrolled: 0, skipped: [] };
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; ) {
    if (i) await nextTurn();
    // Each chunk awaits records only. The drip is read again in it (switched off or deleted meanwhile), and a
    // contact already in it is found there (one active enrolment per contact and drip is also the unique key
    // drip_enrolments_active_idx).
    await ctx.withTransaction(async () => {
      const started = performance.now();
      const current = await findDrip(ctx, id);
      // The first always goes in, so a slow moment never stalls the loop.
      for (const from = i, end = Math.min(unique.length, i + ENROL_CHUNK); i < end && (i === from || performance.now() - started < ENROL_BUDGET_MS); i++) {
        const contactId = unique[i]!;
        const reason = !current ? "The drip campaign was deleted" : !current.isActive ? "The drip campaign was switched off" : await enrolContact(ctx, current, contactId);
        if (reason) out.skipped.push({ contactId, reason });
        else out.enrolled++;
      }
    });
  }
  return out;
}

/** Ends an active enrolment (in the caller's transaction): exited with the reason, its waiting step cancelled. */
export async function exitEnrolment(ctx: AppContext, e: EnrolmentRow, reason: string) {
  await cancelJobs(ctx, { key: stepKey(e.id, e.nextStep) });
  ctx.db.update(dripEnrolments).set({ state: "exited", exitReason: reason, nextAt: null, endedAt: ctx.now() }).where(and(eq(dripEnrolments.id, e.id), eq(dripEnrolments.state, "active"))).run();
}

/** Removes a contact from a drip by hand: the enrolment read, checked still active and ended in one transaction. */
export async function removeEnrolment(ctx: AppContext, userId: string, dripId: string, enrolmentId: string): Promise<void> {
  await ctx.withTransaction(async () => {
    getDrip(ctx, userId, dripId);
    const e = ctx.db.select().from(dripEnrolments).where(and(eq(dripEnrolments.dripId, dripId), eq(dripEnrolments.id, enrolmentId))).get();
    if (!e) throw notFound("Enrolment not found");
    if (e.state !== "active") throw conflict(`This enrolment has already ${e.state === "completed" ? "completed" : "exited"}`);
    await exitEnrolment(ctx, e, "Removed by the user");
  });
}

/** Ends the contact's active enrolment in a drip, if any (an automation rule's action); answers whether it had one. */
export async function exitContact(ctx: AppContext, dripId: string, contactId: string, reason: string): Promise<boolean> {
  await ready(ctx.db);
  const e = ctx.db.select().from(dripEnrolments).where(and(eq(dripEnrolments.dripId, dripId), eq(dripEnrolments.contactId, contactId), eq(dripEnrolments.state, "active"))).get();
  if (e) await exitEnrolment(ctx, e, reason);
  return !!e;
}

/** A drip's enrolments, newest first, each with its contact and the history of its steps. */
export async function listEnrolments(ctx: AppContext, userId: string, dripId: string, limit: number) {
  await ready(ctx.db);
  getDrip(ctx, userId, dripId);
  const rows = ctx.db.select().from(dripEnrolments).where(eq(dripEnrolments.dripId, dripId)).orderBy(desc(dripEnrolments.enrolledAt)).limit(limit).all();
  const logs = rows.length ? ctx.db.select().from(dripStepLog).where(inArray(dripStepLog.enrolmentId, rows.map((r) => r.id))).orderBy(dripStepLog.id).all() : [];
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  const contactOf = new Map<string, Awaited<ReturnType<typeof findContactById>>>();
  for (const e of rows) if (!contactOf.has(e.contactId)) contactOf.set(e.contactId, await findContactById(ctx, userId, e.contactId));
  return rows.map((e) => {
    const contact = contactOf.get(e.contactId);
    return {
      id: e.id,
      contactId: e.contactId,
      contactName: contact ? [contact.firstName, contact.lastName].filter(Boolean).join(" ") || contact.phone : null,
      phone: contact?.phone ?? null,
      state: e.state,
      exitReason: e.exitReason,
      nextStep: e.state === "active" ? e.nextStep : null,
      nextAt: e.state === "active" ? iso(e.nextAt) : null,
      enrolledAt: iso(e.enrolledAt),
      endedAt: iso(e.endedAt),
      history: logs.filter((l) => l.enrolmentId === e.id).map((l) => ({ step: l.step, outcome: l.outcome, reason: l.reason, messageId: l.messageId, at: iso(l.at) })),
    };
  });
}
