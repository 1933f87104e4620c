import { and, eq } from "drizzle-orm";
import { dripCampaigns, dripEnrolments, dripStepLog } from "../../db/schema";
import { contactMatches, findContactById } from "../contacts/contacts";
import type { AppContext } from "../context";
import { advanceCursor, hasCursor, lastEventId, readCursor, readEvents } from "../events/events";
import { HttpError } from "../http/errors";
import { enqueueJob, registerJobHandler, type Job } from "../jobs/jobs";
import { assertWithinLimit } from "../licenses/limits";
import { enqueue } from "../messages/outbox";
import { segmentCount } from "../messages/segments";
import { render } from "../personalisation/render";
import { chooseSender } from "../phone-numbers/numbers";
import { compileConditions } from "../segments/conditions";
import { findSegment } from "../segments/segments";
import { quietUntil, zoneForRecipient } from "../sending/quiet-hours";
import { businessNameOf, findUserById } from "../users/queries";
import { enrolContact, exitEnrolment, findDrip, JOB_KIND, stepDueAt, stepKey, stepsOf, type EnrolmentRow } from "./drips";

/**
 * Runs drips. Each step is a transactional job (key drip:<enrolment>:<step>): the checks, the message put in the
 * outbox, the step's log row, the enrolment's move to the next step and that step's job all commit with the job's
 * completion, so a crash before the commit runs the step again from scratch and a crash after it never repeats it.
 * Exits on a reply or an opt-out come from the event log, read with a durable cursor advanced in the transaction
 * that records the exits.
 */

const EXITS = "drips.exits";
/** How often the event log is read for exits and opt-in enrolments while no step runs. */
export const EXITS_EVERY_MS = 5_000;
/** A drip message not sent within this time after its step ran is not sent stale. */
const MESSAGE_TTL_MS = 24 * 3600_000;

function log(ctx: AppContext, e: EnrolmentRow, outcome: "sent" | "skipped" | "deferred", reason: string | null, messageId: string | null = null) {
  ctx.db.insert(dripStepLog).values({ enrolmentId: e.id, step: e.nextStep, outcome, reason, messageId, at: ctx.now() }).run();
}

/** Moves an enrolment past its current step: the next step's job is queued, or the enrolment completes. */
function advance(ctx: AppContext, e: EnrolmentRow, base: number, zone: string) {
  const steps = stepsOf(e.steps);
  const next = e.nextStep + 1;
  if (next >= steps.length) {
    ctx.db.update(dripEnrolments).set({ state: "completed", nextStep: next, nextAt: null, lastAt: base, endedAt: ctx.now() }).where(eq(dripEnrolments.id, e.id)).run();
    return;
  }
  const at = stepDueAt(steps[next]!, base, zone);
  ctx.db.update(dripEnrolments).set({ nextStep: next, nextAt: at, lastAt: base }).where(eq(dripEnrolments.id, e.id)).run();
  enqueueJob(ctx, { kind: JOB_KIND, key: stepKey(e.id, next), runAt: at, userId: e.userId, refId: e.dripId, payload: { enrolmentId: e.id, step: next } });
}

/** Why the enrolment must end before this step, or null: checked again at the moment each step runs. */
function exitReason(ctx: AppContext, e: EnrolmentRow, drip: NonNullable<ReturnType<typeof findDrip>>) {
  const contact = findContactById(ctx, e.userId, e.contactId);
  if (!contact?.phone) return { reason: "The contact was deleted", contact: null };
  if (contact.status === "opted_out") return { reason: "Opted out", contact };
  if (drip.goalTag && (contact.tags ?? []).includes(drip.goalTag)) return { reason: `Reached the goal (tag "${drip.goalTag}")`, contact };
  if (drip.segmentId) {
    const segment = findSegment(ctx, e.userId, drip.segmentId);
    if (segment && !contactMatches(ctx, e.userId, contact.id, compileConditions(segment.conditions, ctx.now()))) {
      return { reason: `Left the segment "${segment.name}"`, contact };
    }
  }
  return { reason: null, contact };
}

/** One step of one enrolment; runs inside the job's transaction (see above). */
function runStep(ctx: AppContext, job: Job) {
  const { enrolmentId, step } = job.payload as { enrolmentId: string; step: number };
  // Exits recorded in the log before this moment apply to this step.
  processEvents(ctx);
  const e = ctx.db.select().from(dripEnrolments).where(eq(dripEnrolments.id, enrolmentId)).get();
  if (!e || e.state !== "active" || e.nextStep !== step) return { result: "not waiting" };
  const drip = findDrip(ctx, e.dripId);
  const user = findUserById(ctx, e.userId);
  if (!drip || !user) return { result: "gone" };
  const { reason, contact } = exitReason(ctx, e, drip);
  if (reason || !contact) {
    exitEnrolment(ctx, e, reason!);
    return { result: "exited" };
  }
  if (user.disabled) {
    exitEnrolment(ctx, e, "Account disabled by an administrator");
    return { result: "exited" };
  }
  const zone = zoneForRecipient(contact.phone!, user.timezone);
  const now = ctx.now();
  const late = now - job.runAt;
  if (late > drip.lateAfterMinutes * 60_000 && drip.latePolicy === "skip") {
    log(ctx, e, "skipped", `Skipped: due ${Math.round(late / 60_000)} minute(s) earlier, while the server was not running`);
    advance(ctx, e, job.runAt, zone);
    return { result: "skipped late" };
  }
  if (user.quietHoursEnabled) {
    const until = quietUntil(now, zone, { enabled: true, start: user.quietHoursStart as `${number}:${number}`, end: user.quietHoursEnd as `${number}:${number}` });
    if (until !== null) {
      // Deferred, never dropped: the job runs again when the quiet hours end (and counts its lateness from then).
      log(ctx, e, "deferred", `Quiet hours: deferred to ${new Date(until).toISOString()}`);
      ctx.db.update(dripEnrolments).set({ nextAt: until }).where(eq(dripEnrolments.id, e.id)).run();
      return { runAgainAt: until };
    }
  }
  const sender = chooseSender(ctx, e.userId, null);
  if (!sender) {
    log(ctx, e, "skipped", "Skipped: no active sender number");
    advance(ctx, e, job.runAt, zone);
    return { result: "no sender" };
  }
  try {
    assertWithinLimit(ctx, e.userId, "messages", 1);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    log(ctx, e, "skipped", `Skipped: ${err.message}`);
    advance(ctx, e, job.runAt, zone);
    return { result: "limit" };
  }
  const content = render(stepsOf(e.steps)[step]!.content, {
    firstName: contact.firstName,
    lastName: contact.lastName,
    phone: contact.phone!,
    email: contact.email,
    business: businessNameOf(user),
    customFields: contact.customFields,
  });
  const [messageId] = enqueue(ctx, [
    {
      userId: e.userId,
      campaignId: null,
      contactId: contact.id,
      phone: contact.phone!,
      content,
      segments: segmentCount(content),
      kind: "single",
      sender: { numberId: sender.n.id, providerId: sender.n.providerId, phoneNumber: sender.n.phoneNumber },
      dueAt: 0,
      expiresAt: now + MESSAGE_TTL_MS,
    },
  ]);
  log(ctx, e, "sent", null, messageId ?? null);
  advance(ctx, e, job.runAt, zone);
  return { result: { messageId } };
}

const EXIT_TYPES = ["message.received", "contact.opted_out", "contact.opted_in"] as const;
const EVENT_BATCH = 500;

/**
 * Reads the event log after the drips' cursor: a reply ends the contact's enrolments in drips that exit on reply,
 * an opt-out ends all of them, an opt-in enrols the contact in the account's active opt_in drips. The cursor
 * moves in the same transaction, so a restart neither loses nor repeats one.
 */
export function processEvents(ctx: AppContext) {
  let more = true;
  while (more) {
    ctx.db.$client.transaction(() => {
      // Read and cursor in one immediate transaction (the write lock taken first): no event lands between them,
      // so when the read finds the rest, the cursor moves past the events of other types too (a step's own
      // message.queued), and the next read starts near the end of the log instead of rescanning them.
      const events = readEvents(ctx, { afterId: readCursor(ctx, EXITS), types: EXIT_TYPES, limit: EVENT_BATCH });
      for (const ev of events) {
        if (!ev.userId) continue;
        if (ev.type === "contact.opted_in") {
          const drips = ctx.db.select().from(dripCampaigns).where(and(eq(dripCampaigns.userId, ev.userId), eq(dripCampaigns.trigger, "opt_in"), eq(dripCampaigns.isActive, true))).all();
          for (const d of drips) enrolContact(ctx, d, ev.subject.id);
          continue;
        }
        const contactId = ev.type === "contact.opted_out" ? ev.subject.id : (ev.payload.contactId as string | null);
        if (!contactId) continue;
        const active = ctx.db.select().from(dripEnrolments).where(and(eq(dripEnrolments.contactId, contactId), eq(dripEnrolments.state, "active"))).all();
        // A STOP is a reply too, logged just before its opt-out: the opt-out is the reason that counts.
        const optedOut = ev.type === "contact.opted_out" || (active.length > 0 && findContactById(ctx, ev.userId, contactId)?.status === "opted_out");
        for (const e of active) {
          if (optedOut) exitEnrolment(ctx, e, "Opted out");
          else if (findDrip(ctx, e.dripId)?.exitOnReply) exitEnrolment(ctx, e, "Replied");
        }
      }
      more = events.length === EVENT_BATCH;
      advanceCursor(ctx, EXITS, more ? events[events.length - 1]!.id : lastEventId(ctx));
    }).immediate();
  }
}

/** Registers the step handler and the event reader (a recurring job); a new installation reads from now on. */
export function registerDrips(ctx: AppContext) {
  registerJobHandler(ctx, JOB_KIND, runStep, { transactional: true, firstDelayMs: 10_000, maxAttempts: 8 });
  registerJobHandler(
    ctx,
    EXITS,
    () => {
      processEvents(ctx);
      return { runAgainAt: ctx.now() + EXITS_EVERY_MS };
    },
    { transactional: true, maxAttempts: Infinity, firstDelayMs: EXITS_EVERY_MS },
  );
  // Only the very first start reads from now on: a cursor left at 0 by a start on an empty log must not jump past
  // the replies and opt-outs that arrived before a restart.
  if (!hasCursor(ctx, EXITS)) advanceCursor(ctx, EXITS, lastEventId(ctx));
  enqueueJob(ctx, { kind: EXITS, key: EXITS, runAt: ctx.now() });
}
