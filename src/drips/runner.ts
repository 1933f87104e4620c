import { and, asc, eq, gt, isNotNull, sql } from "drizzle-orm";
import { preparedPerDb } from "../../db/prepared";
import { ready } from "../../db/transaction";
import { dripCampaigns, dripEnrolments, dripStepLog } from "../../db/schema";
import { contactIdsWhere, contactMatches, contactStateField, findContactById } from "../contacts/contacts";
import type { AppContext } from "../context";
import { advanceCursor, hasCursor, lastEventId, onEventsCommitted, readCursor, readEvents, type AppEvent } from "../events/events";
import { HttpError } from "../http/errors";
import { atPassEnd, enqueueJob, registerJobHandler, rescheduleJob, unwrittenAtPassEnd, type Job, type JobPass } from "../jobs/jobs";
import { assertWithinLimit, usageFor } from "../licenses/limits";
import type { NewOutbound } from "../messages/outbox";
import { segmentCount } from "../messages/segments";
import { outboundText, sendTexts } from "../outbound/send-text";
import { render } from "../../shared/personalisation/render";
import { chooseSender } from "../phone-numbers/numbers";
import { cannotSendMms } from "../../shared/providers/mms";
import type { ProviderKind } from "../providers/types";
import { compileConditions } from "../segments/conditions";
import { findSegment } from "../segments/segments";
import { zoneForRecipient } from "../sending/quiet-hours";
import { accountReason, holdFor, stateFromField, stateOfNumber } from "../sending/state-rules";
import { stateRulesInForce } from "../state-rules/overrides";
import { businessNameOf, findUserById } from "../users/queries";
import { enrolContact, exitEnrolment, findDrip, JOB_KIND, stepDueAt, stepKey, stepsOf, type EnrolmentRow } from "./drips";
import { nextTurn } from "../time/next-turn";
import { clockLabel } from "../time/clock";
import { DEFAULT_EXPIRY_DAYS, expiryAt, linkDomainOf, shortenText } from "../links/links";
import { withShortLinkLengths } from "../../shared/links/text";

/**
 * Runs drips. Each step is a transactional job (key drip:<enrolment>:<step>): the checks, the message put in the
 * outbox, the step's log row, the enrolment's move to the next step and that step's job all commit with the job's
 * completion, so a crash before the commit runs the step again from scratch and a crash after it never repeats it.
 * Exits (a reply, an opt-out, the goal tag) come from the event log, read soon after the events commit with a
 * durable cursor advanced in the transaction that records them; each step checks them again itself, and a check
 * every minute ends the enrolments of those who left a drip's segment without an event.
 */

const EXITS = "drips.exits";
/** How often the event log is read for exits and opt-in enrolments while no step runs. */
export const EXITS_EVERY_MS = 5_000;
/** How soon after a transaction that appended events the reader runs (one read per burst of transactions). */
const SOON_MS = 50;
/** The key under which a pass's steps leave their messages to its end (atPassEnd). */
const OUTBOX = "drips.outbox";

// Prepared once per connection: every step reads its enrolment, logs and moves on, and drizzle building and SQLite
// compiling these statements anew was most of a step's time (10,000 steps may fall due in the same minute).
const p = (name: string) => sql.placeholder(name);
const enrolmentById = preparedPerDb((db) => db.select().from(dripEnrolments).where(eq(dripEnrolments.id, p("id"))).prepare());
const insertLog = preparedPerDb((db) =>
  db.insert(dripStepLog).values({ enrolmentId: p("enrolmentId"), step: p("step"), outcome: p("outcome"), reason: p("reason"), messageId: p("messageId"), at: p("at") }).prepare(),
);
// The exit reader's look for every message received, opt-out and tag: one per inbound text.
const activeOfContact = preparedPerDb((db) =>
  db.select().from(dripEnrolments).where(and(eq(dripEnrolments.contactId, p("contactId")), eq(dripEnrolments.state, "active"))).prepare(),
);
const moveOn = preparedPerDb((db) =>
  db
    .update(dripEnrolments)
    .set({ nextStep: sql`${p("nextStep")}`, nextAt: sql`${p("nextAt")}`, lastAt: sql`${p("lastAt")}` })
    .where(eq(dripEnrolments.id, p("id")))
    .prepare(),
);

function log(ctx: AppContext, e: EnrolmentRow, outcome: "sent" | "skipped" | "deferred", reason: string | null, messageId: string | null = null) {
  insertLog(ctx.db).run({ enrolmentId: e.id, step: e.nextStep, outcome, reason, messageId, at: ctx.now() });
}

/** Moves an enrolment past its current step: the next step's job is queued, or the enrolment completes. */
async function advance(ctx: AppContext, e: EnrolmentRow, base: number, zone: string) {
  const steps = stepsOf(e.steps);
  const next = e.nextStep + 1;
  if (next >= steps.length) {
    ctx.db.update(dripEnrolments).set({ state: "completed", nextStep: next, nextAt: null, lastAt: base, endedAt: ctx.now() }).where(eq(dripEnrolments.id, e.id)).run();
    return;
  }
  const at = stepDueAt(steps[next]!, base, zone);
  moveOn(ctx.db).run({ nextStep: next, nextAt: at, lastAt: base, id: e.id });
  await enqueueJob(ctx, { kind: JOB_KIND, key: stepKey(e.id, next), runAt: at, userId: e.userId, refId: e.dripId, payload: { enrolmentId: e.id, step: next } });
}

type Drip = NonNullable<Awaited<ReturnType<typeof findDrip>>>;
type Contact = NonNullable<Awaited<ReturnType<typeof findContactById>>>;

/** Why a drip no longer wants the contact (its goal reached, its segment left), or null. */
async function goalOrSegment(ctx: AppContext, drip: Drip, contact: Contact): Promise<string | null> {
  if (drip.goalTag && (contact.tags ?? []).includes(drip.goalTag)) return `Reached the goal (tag "${drip.goalTag}")`;
  if (drip.segmentId) {
    const segment = await findSegment(ctx, drip.userId, drip.segmentId);
    if (segment && !(await contactMatches(ctx, drip.userId, contact.id, compileConditions(segment.conditions, ctx.now(), drip.userId, ctx.records.$engine)))) return `Left the segment "${segment.name}"`;
  }
  return null;
}

/**
 * Why the enrolment must end before this step, or null: checked again at the moment each step runs, so an exit
 * the event reader has not reached yet still applies. A reply is a text after the enrolment (the contact's last
 * inbound time, which every inbound message sets); one in the same millisecond is left to the event reader.
 */
async function exitReason(ctx: AppContext, e: EnrolmentRow, drip: Drip) {
  const contact = await findContactById(ctx, e.userId, e.contactId);
  if (!contact?.phone) return { reason: "The contact was deleted", contact: null };
  if (contact.status === "opted_out") return { reason: "Opted out", contact };
  if (drip.exitOnReply && (contact.lastEngagedAt?.getTime() ?? 0) > e.enrolledAt) return { reason: "Replied", contact };
  return { reason: await goalOrSegment(ctx, drip, contact), contact };
}

/** How long an account's count of the month's SMS serves the steps that follow it. */
const ROOM_FRESH_MS = 1000;
const rooms = new WeakMap<AppContext, Map<string, { room: number; countedAt: number }>>();

/**
 * Takes a step's SMS from the account's room this month. The month's SMS are counted at most once a second per
 * account (a count scans the month's messages; 10,000 steps due together must not each pay for it) and this
 * runner's own steps are taken off that count as they go; so another sender's SMS of the last second may be missed,
 * never this runner's. When the room runs out (or there is no license) the plan's own check answers, counting
 * afresh, with its message; the messages of this pass's steps are not written yet (atPassEnd), so they are added.
 */
async function takeMessage(ctx: AppContext, pass: JobPass, userId: string, segments: number) {
  let byUser = rooms.get(ctx);
  if (!byUser) rooms.set(ctx, (byUser = new Map()));
  let entry = byUser.get(userId);
  if (!entry || performance.now() - entry.countedAt > ROOM_FRESH_MS) {
    const usage = await usageFor(ctx, userId);
    entry = { room: usage.messages.unlimited ? Infinity : usage.license ? usage.messages.limit - usage.messages.used : 0, countedAt: performance.now() };
    byUser.set(userId, entry);
  }
  if (entry.room < segments) {
    const unwritten = unwrittenAtPassEnd<NewOutbound>(pass, OUTBOX).reduce((n, m) => (m.userId === userId ? n + m.segments : n), 0);
    await assertWithinLimit(ctx, userId, "messages", segments + unwritten);
    // It fits after all (a license redeemed since the count): count again next time.
    byUser.delete(userId);
    return;
  }
  entry.room -= segments;
}

/** What many steps of one pass would each read again (a drip, an account, its sender), read once per pass (a record's answer: its Promise). */
function once<T>(pass: JobPass, key: string, read: () => T): T {
  if (!pass.has(key)) pass.set(key, read());
  return pass.get(key) as T;
}

/** One step of one enrolment; runs inside the job's transaction (see above). */
async function runStep(ctx: AppContext, job: Job, pass: JobPass) {
  const { enrolmentId, step } = job.payload as { enrolmentId: string; step: number };
  const e = enrolmentById(ctx.db).get({ id: enrolmentId });
  if (!e || e.state !== "active" || e.nextStep !== step) return { result: "not waiting" };
  const drip = await once(pass, `drips.drip:${e.dripId}`, () => findDrip(ctx, e.dripId));
  const user = await once(pass, `drips.user:${e.userId}`, () => findUserById(ctx, e.userId));
  if (!drip || !user) return { result: "gone" };
  const { reason, contact } = await exitReason(ctx, e, drip);
  if (reason || !contact) {
    await exitEnrolment(ctx, e, reason!);
    return { result: "exited" };
  }
  if (user.disabled) {
    await exitEnrolment(ctx, e, "Account disabled by an administrator");
    return { result: "exited" };
  }
  const zone = zoneForRecipient(contact.phone!, user.timezone);
  const now = ctx.now();
  const late = now - job.runAt;
  if (late > drip.lateAfterMinutes * 60_000 && drip.latePolicy === "skip") {
    log(ctx, e, "skipped", `Skipped: due ${Math.round(late / 60_000)} minute(s) earlier, while the server was not running`);
    await advance(ctx, e, job.runAt, zone);
    return { result: "skipped late" };
  }
  // The account's quiet hours and the hours of the recipient's state's law (src/sending/state-rules.ts), the stricter
  // winning; a state's daily cap counts campaign messages, which a drip step is not.
  const state = stateFromField(await contactStateField(ctx, e.userId, contact.phone!)) ?? stateOfNumber(contact.phone!);
  const rule = state ? ((await once(pass, "drips.state-rules", () => stateRulesInForce(ctx))).get(state) ?? null) : null;
  const quiet = user.quietHoursEnabled
    ? { enabled: true, start: user.quietHoursStart as `${number}:${number}`, end: user.quietHoursEnd as `${number}:${number}` }
    : null;
  const hold = holdFor(now, zone, quiet, rule, []);
  if (hold) {
    // Deferred, never dropped: the job runs again when the quiet hours end (and counts its lateness from then).
    // Said as people read it: the end of quiet hours in the recipient's own time (the enrolment's next time shows
    // the moment in the account's zone), or the state's rule that holds it. It once logged a raw ISO time.
    const byLaw = !quiet || hold.reason !== accountReason(quiet);
    log(ctx, e, "deferred", byLaw ? hold.reason : `Quiet hours: held until ${clockLabel(user.quietHoursEnd, user.locale)} (the recipient's time)`);
    ctx.db.update(dripEnrolments).set({ nextAt: hold.until }).where(eq(dripEnrolments.id, e.id)).run();
    return { runAgainAt: hold.until };
  }
  const sender = await once(pass, `drips.sender:${e.userId}`, () => chooseSender(ctx, e.userId, null));
  if (!sender) {
    log(ctx, e, "skipped", "Skipped: no active sender number");
    await advance(ctx, e, job.runAt, zone);
    return { result: "no sender" };
  }
  const theStep = stepsOf(e.steps)[step]!;
  // A step with pictures or files goes as one MMS, from a number whose provider sends MMS (issue 33).
  const mediaIds = theStep.mediaIds ?? [];
  const refusal = mediaIds.length ? cannotSendMms(sender.provider as ProviderKind) : null;
  if (refusal) {
    log(ctx, e, "skipped", `Skipped: ${refusal}`);
    await advance(ctx, e, job.runAt, zone);
    return { result: "no mms" };
  }
  const written = render(theStep.content, {
    firstName: contact.firstName,
    lastName: contact.lastName,
    phone: contact.phone!,
    email: contact.email,
    business: businessNameOf(user),
    customFields: contact.customFields,
  });
  // Links go out as short links unless the step says not (issue 32): counted at that length against the plan.
  const domain = linkDomainOf(ctx, user);
  const shorten = theStep.shortenLinks !== false;
  const segments = mediaIds.length ? 1 : segmentCount(shorten ? withShortLinkLengths(written, domain) : written);
  try {
    await takeMessage(ctx, pass, e.userId, segments);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    log(ctx, e, "skipped", `Skipped: ${err.message}`);
    await advance(ctx, e, job.runAt, zone);
    return { result: "limit" };
  }
  // Named now for the step's log; the pass writes its steps' messages together before it commits (atPassEnd), so
  // the message commits with this step's job or, should the step fail after this, not at all.
  const messageId = Bun.randomUUIDv7();
  const content = shorten
    ? await shortenText(ctx, domain, written, { userId: e.userId, campaignId: null, source: `drip:${e.dripId}`, messageId, utm: null, expiresAt: expiryAt(ctx.now(), DEFAULT_EXPIRY_DAYS) })
    : written;
  const message = (await outboundText(ctx, {
    id: messageId,
    userId: e.userId,
    phone: contact.phone!,
    contactId: contact.id,
    content,
    kind: "single",
    from: { chosen: sender },
    ...(mediaIds.length ? { sharedMediaIds: mediaIds } : {}),
  }))!;
  await atPassEnd(pass, OUTBOX, message, async (messages) => {
    await sendTexts(ctx, messages);
  });
  log(ctx, e, "sent", null, messageId);
  await advance(ctx, e, job.runAt, zone);
  return { result: { messageId } };
}

const EXIT_TYPES = ["message.received", "contact.opted_out", "contact.opted_in", "contact.tagged"] as const;
/** Events read per transaction, at most, and the time one chunk may take before the reader yields. */
export const READ_CHUNK = 200;
export const READ_BUDGET_MS = 10;
const SEGMENTS = "drips.segments";
/** How often every active enrolment of a drip bound to a segment is checked against it (changes that log no event). */
export const SEGMENTS_EVERY_MS = 60_000;
const SEGMENT_CHUNK = 200;

/** One event of the log, in the reader's transaction. */
async function handleEvent(ctx: AppContext, ev: AppEvent) {
  if (!ev.userId) return;
  if (ev.type === "contact.opted_in") {
    const drips = ctx.db.select().from(dripCampaigns).where(and(eq(dripCampaigns.userId, ev.userId), eq(dripCampaigns.trigger, "opt_in"), eq(dripCampaigns.isActive, true))).all();
    for (const d of drips) await enrolContact(ctx, d, ev.subject.id);
    return;
  }
  const contactId = ev.type === "message.received" ? (ev.payload.contactId as string | null) : ev.subject.id;
  if (!contactId) return;
  const active = activeOfContact(ctx.db).all({ contactId });
  if (!active.length) return;
  const contact = await findContactById(ctx, ev.userId, contactId);
  for (const e of active) {
    const drip = await findDrip(ctx, e.dripId);
    if (!drip) continue;
    // A STOP is a reply too, logged just before its opt-out: the opt-out is the reason that counts. A text is a
    // reply only after the enrolment: the keyword that enrolled the contact (through a rule) is not one.
    const reason =
      ev.type === "contact.opted_out" || contact?.status === "opted_out"
        ? "Opted out"
        : !contact?.phone
          ? "The contact was deleted"
          : ev.type === "message.received" && drip.exitOnReply && ev.createdAt > e.enrolledAt
            ? "Replied"
            : await goalOrSegment(ctx, drip, contact);
    if (reason) await exitEnrolment(ctx, e, reason);
  }
}

/**
 * Reads one chunk of the event log after the drips' cursor (at most READ_CHUNK events, stopping after
 * READ_BUDGET_MS): a reply ends the contact's enrolments in drips that exit on reply, an opt-out ends all of them,
 * a tag reaching a drip's goal or taking the contact out of its segment ends that one, an opt-in enrols the
 * contact in the account's active opt_in drips. The cursor moves in the same transaction, so a restart neither
 * loses nor repeats one. Answers whether events may be left.
 */
export async function readExitsChunk(ctx: AppContext): Promise<boolean> {
  return ctx.withTransaction(async () => {
    const started = performance.now();
    // Read and cursor in one transaction that awaits the log's records only: no event lands between them (one process serves a
    // data folder, and no other caller's statements run inside), so when the read finds the rest, the cursor moves
    // past the events of other types too (a step's own message.queued), and the next read starts near the end of
    // the log instead of rescanning them.
    const events = await readEvents(ctx, { afterId: await readCursor(ctx, EXITS), types: EXIT_TYPES, limit: READ_CHUNK });
    let last = 0;
    for (const ev of events) {
      if (last && performance.now() - started >= READ_BUDGET_MS) break;
      await handleEvent(ctx, ev);
      last = ev.id;
    }
    const more = events.length === READ_CHUNK || last !== (events.at(-1)?.id ?? 0);
    await advanceCursor(ctx, EXITS, more ? last : await lastEventId(ctx));
    return more;
  });
}

/** Reads the event log to its end, a chunk at a time with a turn of the event loop between chunks. */
export async function processEvents(ctx: AppContext) {
  while (await readExitsChunk(ctx)) await nextTurn();
}

/**
 * Checks the active enrolments of the drips bound to a segment against it, a chunk per transaction with a turn of
 * the event loop between: those who left it (a field edited, a tag removed: changes that log no event) exit.
 * Answers how many exited.
 */
export async function checkSegments(ctx: AppContext): Promise<number> {
  let exited = 0;
  await ready(ctx.db);
  const drips = ctx.db.select().from(dripCampaigns).where(isNotNull(dripCampaigns.segmentId)).all();
  for (const drip of drips) {
    const segment = await findSegment(ctx, drip.userId, drip.segmentId!);
    if (!segment) continue;
    let after = "";
    for (;;) {
      // Awaits records only: the chunk's rows are read and their exits written with no other caller's statements between.
      const chunk = await ctx.withTransaction(async () => {
        const rows = ctx.db
          .select()
          .from(dripEnrolments)
          .where(and(eq(dripEnrolments.dripId, drip.id), eq(dripEnrolments.state, "active"), gt(dripEnrolments.id, after)))
          .orderBy(asc(dripEnrolments.id))
          .limit(SEGMENT_CHUNK)
          .all();
        if (!rows.length) return rows;
        const ids = JSON.stringify(rows.map((r) => r.contactId));
        const condition = compileConditions(segment.conditions, ctx.now(), drip.userId, ctx.records.$engine);
        const still = new Set(await contactIdsWhere(ctx, drip.userId, sql`id IN (SELECT value FROM json_each(${ids})) AND (${condition})`, rows.length));
        for (const e of rows) {
          if (still.has(e.contactId)) continue;
          await exitEnrolment(ctx, e, `Left the segment "${segment.name}"`);
          exited++;
        }
        return rows;
      });
      if (chunk.length < SEGMENT_CHUNK) break;
      after = chunk.at(-1)!.id;
      await nextTurn();
    }
  }
  return exited;
}

/**
 * Registers the step handler, the event reader and the segment check (recurring jobs). The reader also runs soon
 * after any transaction that appended events, so an exit is recorded within moments, not at the next step. A new
 * installation reads from now on.
 */
/**
 * After the account's quiet hours changed (turned off, or moved): the drip steps they held (an active enrolment
 * whose current step was last deferred and is due later) run now, and each checks the new setting again as it runs.
 * Answers how many.
 */
export async function releaseHeldDripSteps(ctx: AppContext, userId: string): Promise<number> {
  // The held steps are read in the transaction that moves them (before, the read ran outside it): a step that ran
  // meanwhile and moved on is not moved back.
  return ctx.withTransaction(async () => {
    const now = ctx.now();
    const held = await ctx.records.$rows<{ id: string; dripId: string; step: number }>(
      `SELECT e.id, e.drip_id AS "dripId", e.next_step AS step FROM drip_enrolments e
       WHERE e.user_id = ? AND e.state = 'active' AND e.next_at > ?
         AND (SELECT l.outcome FROM drip_step_log l WHERE l.enrolment_id = e.id AND l.step = e.next_step ORDER BY l.id DESC LIMIT 1) = 'deferred'`,
      [userId, now],
    );
    for (const e of held) {
      await ctx.records.update(dripEnrolments).set({ nextAt: now }).where(eq(dripEnrolments.id, e.id)).run();
      await rescheduleJob(ctx, { kind: JOB_KIND, key: stepKey(e.id, e.step), runAt: now, userId, refId: e.dripId, payload: { enrolmentId: e.id, step: e.step } });
    }
    return held.length;
  });
}

export async function registerDrips(ctx: AppContext) {
  registerJobHandler(ctx, JOB_KIND, runStep, { transactional: true, firstDelayMs: 10_000, maxAttempts: 8 });
  // Not transactional: each chunk commits with its cursor and the reader yields between chunks. A short lease, so
  // a reader that died with the process is taken over soon after a restart.
  registerJobHandler(
    ctx,
    EXITS,
    async () => {
      await processEvents(ctx);
      return { runAgainAt: ctx.now() + EXITS_EVERY_MS };
    },
    { maxAttempts: Infinity, firstDelayMs: EXITS_EVERY_MS, leaseMs: 30_000 },
  );
  registerJobHandler(
    ctx,
    SEGMENTS,
    async () => {
      const exited = await checkSegments(ctx);
      return { result: { exited }, runAgainAt: ctx.now() + SEGMENTS_EVERY_MS };
    },
    { maxAttempts: Infinity, firstDelayMs: SEGMENTS_EVERY_MS, leaseMs: 5 * 60_000 },
  );
  // Only the very first start reads from now on: a cursor left at 0 by a start on an empty log must not jump past
  // the replies and opt-outs that arrived before a restart.
  await ctx.withTransaction(async () => {
    if (!(await hasCursor(ctx, EXITS))) await advanceCursor(ctx, EXITS, await lastEventId(ctx));
    await enqueueJob(ctx, { kind: EXITS, key: EXITS, runAt: ctx.now() });
    await enqueueJob(ctx, { kind: SEGMENTS, key: SEGMENTS, runAt: ctx.now() + SEGMENTS_EVERY_MS });
  });
  let timer: ReturnType<typeof setTimeout> | null = null;
  let reading: Promise<void> | null = null;
  let again = false;
  const soon = () => {
    // Once per burst: a step's own message.queued calls this too, and the read right after finds nothing.
    if (reading) again = true;
    else timer ??= setTimeout(() => {
      timer = null;
      reading = processEvents(ctx)
        .catch((err) => ctx.log(`drips: ${(err as Error)?.stack ?? err}`))
        .finally(() => {
          reading = null;
          if (again) {
            again = false;
            soon();
          }
        });
    }, SOON_MS);
  };
  onEventsCommitted(ctx, soon, "drips");
  ctx.onStop.unshift(async () => {
    onEventsCommitted(ctx, null, "drips");
    if (timer) clearTimeout(timer);
    again = false;
    await reading;
  });
}
