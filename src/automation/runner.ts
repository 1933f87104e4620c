import { sql } from "drizzle-orm";
import { bulkTag, findByPhone, findContactById, listContacts, optOutById, type ContactRow } from "../contacts/contacts";
import { customFieldColumn } from "../contacts/filter-fields";
import { addPurchase } from "../contacts/engagement";
import { countContactsWhere } from "../contacts/stats";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { advanceCursor, appendEvent, lastEventId, onEventsCommitted, readCursor, readEvents, type AppEvent, type EventType } from "../events/events";
import { exitContact, enrolContact, findDrip } from "../drips/drips";
import { HttpError, badRequest } from "../http/errors";
import { enqueueJob, registerJobHandler } from "../jobs/jobs";
import { businessOf } from "../keywords/keywords";
import { normalForm } from "../keywords/matcher";
import { assertWithinLimit } from "../licenses/limits";
import { DEFAULT_EXPIRY_DAYS, expiryAt, linkDomainOf, shortenText } from "../links/links";
import { withShortLinkLengths } from "../../shared/links/text";
import { getMessage } from "../messages/messages";
import { lastMessagePerPhone } from "../messages/threads";
import { segmentCount } from "../messages/segments";
import { sendText } from "../outbound/send-text";
import { render } from "../../shared/personalisation/render";
import { chooseSender } from "../phone-numbers/numbers";
import { compileConditions } from "../segments/conditions";
import { findSegment } from "../segments/segments";
import { zoneOffset } from "../time/zones";
import { findUserById } from "../users/queries";
import { activeRules, activeTriggers, claimRun, finishRun, getRule, type Rule, type Trigger } from "./rules";
import { nextTurn } from "../time/next-turn";

/**
 * Runs the rules. Event triggers read the event log after a durable cursor; each batch's runs, their actions and
 * the cursor's advance commit in one transaction, so a restart neither loses nor replays a trigger. A run is
 * unique per (rule, trigger key): the event id, or for the clock's triggers the contact and the day.
 */

const CONSUMER = "automation.rules";
const DAY = 86_400_000;
const HOUR = 3600_000;

const TRIGGERS_OF: Partial<Record<EventType, Trigger[]>> = {
  "contact.opted_in": ["opt_in"],
  // The inbound flow logs a keyword match once, as it happens (src/inbound/keywords.ts): rules read it, not the text.
  "keyword.received": ["keyword_received"],
  "message.received": ["reply"],
  "contact.created": ["contact_created"],
  "contact.tagged": ["tag_added"],
  "contact.purchased": ["purchase"],
  // Appended only for a person's click (src/links/clicks.ts): previews, scanners and repeats trigger nothing.
  "link.clicked": ["link_clicked"],
};
const EVENT_TYPES = Object.keys(TRIGGERS_OF) as EventType[];

/** Events read per transaction, at most, and the time one chunk may take before the reader yields. */
export const READ_CHUNK = 200;
export const READ_BUDGET_MS = 10;

/**
 * Handles one chunk of the events after the cursor (at most READ_CHUNK, stopping after READ_BUDGET_MS) in one
 * transaction with the cursor's advance (ctx.withTransaction: its callback awaits the rules' records only, which
 * answer at once underneath). Answers how many runs it claimed and whether events may be left.
 */
export async function processEventsChunk(ctx: AppContext): Promise<{ runs: number; more: boolean }> {
  return ctx.withTransaction(async () => {
    const started = performance.now();
    const head = await lastEventId(ctx);
    // Only the types some active rule waits for are read, and each account's rules of a type once a chunk (its runs
    // change no rule): an event no rule of its account waits for is passed over without a savepoint or a query. A
    // campaign's first minutes of people's clicks, with no 'link clicked' rule, read nothing.
    const live = await activeTriggers(ctx);
    const types = EVENT_TYPES.filter((t) => TRIGGERS_OF[t]!.some((trigger) => live.has(trigger)));
    const events = await readEvents(ctx, { afterId: await readCursor(ctx, CONSUMER), types, limit: READ_CHUNK });
    const rulesOf = new Map<string, Rule[]>();
    let runs = 0;
    let last = 0;
    for (const e of events) {
      if (last && performance.now() - started >= READ_BUDGET_MS) break;
      last = e.id;
      // A CSV import's contact.created names the import, with its counts, not each contact: imports do not trigger
      // 'Contact created' rules (a list of thousands imported must not get thousands of welcome texts unasked).
      if (!e.userId || e.subject.kind === "import") continue;
      const key = `${e.userId} ${e.type}`;
      let active = rulesOf.get(key);
      if (!active) rulesOf.set(key, (active = await activeRules(ctx, e.userId, TRIGGERS_OF[e.type]!)));
      const rules = active.filter((r) => r.createdAt <= e.createdAt);
      if (!rules.length) continue;
      // Each event in a savepoint: one that cannot be handled (its message deleted meanwhile...) is logged and passed
      // over with nothing of it kept, instead of failing the chunk and holding the cursor, and every rule, behind it.
      try {
        runs += await ctx.withTransaction(() => handleEvent(ctx, e, rules));
      } catch (err) {
        ctx.log(`automation: event ${e.id} (${e.type}) passed over: ${(err as Error)?.stack ?? err}`);
      }
    }
    // Past a short chunk read to its end nothing relevant is left: the cursor skips the other events up to the head.
    const more = events.length === READ_CHUNK || last !== (events.at(-1)?.id ?? 0);
    await advanceCursor(ctx, CONSUMER, more ? last : head);
    return { runs, more };
  });
}

/** Handles every event after the cursor, a chunk at a time with a turn of the event loop between. Answers the runs. */
export async function processEvents(ctx: AppContext): Promise<number> {
  let runs = 0;
  for (;;) {
    const chunk = await processEventsChunk(ctx);
    runs += chunk.runs;
    if (!chunk.more) return runs;
    await nextTurn();
  }
}

async function contactOfEvent(ctx: AppContext, e: AppEvent): Promise<ContactRow | null> {
  const userId = e.userId!;
  if (e.subject.kind === "contact") return findContact(ctx, userId, e.subject.id);
  // An inbound message's contact may be created after the message in the same transaction: read the message now.
  const message = await getMessage(ctx, userId, e.subject.id);
  return (message.contactId && (await findContact(ctx, userId, message.contactId))) || (await findByPhone(ctx, userId, message.phone)) || null;
}

async function findContact(ctx: AppContext, userId: string, id: string): Promise<ContactRow | null> {
  return (await findContactById(ctx, userId, id)) ?? null;
}

const words = (text: string) => new Set(normalForm(text).split(/[^\p{L}\p{N}']+/u).filter(Boolean));

/** Whether the event is the rule's trigger, with the trigger's settings. */
async function matches(ctx: AppContext, rule: Rule, e: AppEvent): Promise<boolean> {
  const c = rule.triggerConfig;
  switch (rule.trigger) {
    case "opt_in":
      return !c.keyword || String(e.payload.keyword ?? "").toLowerCase() === c.keyword.toLowerCase();
    case "keyword_received":
      return !c.keyword || String(e.payload.keyword ?? "").toLowerCase() === c.keyword.toLowerCase();
    case "reply": {
      const got = words((await getMessage(ctx, rule.userId, e.subject.id)).content);
      return (c.words ?? []).some((w) => got.has(normalForm(w)));
    }
    case "tag_added":
      return !c.tag || ((e.payload.tags as string[] | undefined) ?? []).includes(c.tag);
    case "link_clicked":
      return !c.campaignId || e.payload.campaignId === c.campaignId;
    default:
      return true;
  }
}

/** Runs the rules the event triggers (its account's active rules of its type, made by the time it happened). */
async function handleEvent(ctx: AppContext, e: AppEvent, rules: Rule[]): Promise<number> {
  const contact = await contactOfEvent(ctx, e);
  let runs = 0;
  for (const rule of rules) {
    if (!(await matches(ctx, rule, e))) continue;
    if (await runRule(ctx, rule, contact, `event:${e.id}`, e.id)) runs++;
  }
  return runs;
}

/** Whether the contact meets the rule's conditions and segment, or why not. */
async function whyNot(ctx: AppContext, rule: Rule, contact: ContactRow): Promise<string | null> {
  const only = sql`id = ${contact.id}`;
  if (Object.keys(rule.conditions).length) {
    if (!(await countContactsWhere(ctx, rule.userId, sql`${only} AND (${compileConditions(rule.conditions, ctx.now(), rule.userId, ctx.records.$engine)})`))) return "Conditions not met";
  }
  if (rule.segmentId) {
    const segment = await findSegment(ctx, rule.userId, rule.segmentId);
    if (!segment) return "The rule's segment was deleted";
    if (!(await countContactsWhere(ctx, rule.userId, sql`${only} AND (${compileConditions(segment.conditions, ctx.now(), rule.userId, ctx.records.$engine)})`))) return `Not in segment ${segment.name}`;
  }
  return null;
}

/**
 * One run, in one transaction (ctx.withTransaction; inside the event chunk's, a savepoint of it): claimed (once per
 * rule and key, on the runs' unique key), its conditions checked, its actions done in a savepoint so a failed action
 * leaves none of them half done and the run recorded as failed with the reason. Answers whether it ran. The actions'
 * records of folders not converted yet run synchronously inside it; nothing but records is awaited.
 */
export async function runRule(ctx: AppContext, rule: Rule, contact: ContactRow | null, key: string, eventId: number | null): Promise<boolean> {
  return ctx.withTransaction(async () => {
    const runId = await claimRun(ctx, rule, key, contact?.id ?? null, eventId);
    if (!runId) return false;
    if (!contact) {
      await finishRun(ctx, runId, rule.id, "skipped", ["No contact for this trigger"]);
      return true;
    }
    const why = await whyNot(ctx, rule, contact);
    if (why) {
      await finishRun(ctx, runId, rule.id, "skipped", [why]);
      return true;
    }
    let outcome: { status: "done" | "failed"; detail: string[] };
    try {
      outcome = { status: "done", detail: await ctx.withTransaction(() => doActions(ctx, rule, contact, runId)) };
    } catch (err) {
      if (!(err instanceof HttpError)) ctx.log(`automation: rule ${rule.id} failed: ${(err as Error)?.stack ?? err}`);
      outcome = { status: "failed", detail: [err instanceof Error ? err.message : String(err)] };
    }
    await finishRun(ctx, runId, rule.id, outcome.status, outcome.detail);
    return true;
  });
}

const EMAIL = "automation.email";

/** The plan's answer when `segments` more SMS do not fit in the month (src/licenses/limits.ts), else null. */
async function limitRefusal(ctx: AppContext, userId: string, segments: number): Promise<string | null> {
  try {
    await assertWithinLimit(ctx, userId, "messages", segments);
    return null;
  } catch (err) {
    if (err instanceof HttpError && err.status === 402) return err.message;
    throw err;
  }
}

async function doActions(ctx: AppContext, rule: Rule, contact: ContactRow, runId: string): Promise<string[]> {
  const a = rule.actions;
  const done: string[] = [];
  const userId = rule.userId;
  if (a.sendMessage) {
    if (!contact.phone) done.push("Message not sent: the contact has no phone");
    else if (contact.status === "opted_out") done.push("Message not sent: the contact opted out");
    else {
      const sender = await chooseSender(ctx, userId, null);
      if (!sender) throw badRequest("Message not sent: no SMS provider or phone number is set up");
      const text = render(a.sendMessage, {
        firstName: contact.firstName,
        lastName: contact.lastName,
        phone: contact.phone,
        email: contact.email,
        business: await businessOf(ctx, userId),
        customFields: contact.customFields,
      });
      // Its links go out as short links of the account's link domain for this message and contact (no UTM, the
      // default expiry) unless the rule says not (issue 32), and count at that length against the plan.
      const owner = a.shortenLinks === false ? undefined : await findUserById(ctx, userId);
      const domain = owner ? linkDomainOf(ctx, owner) : null;
      const segments = segmentCount(domain ? withShortLinkLengths(text, domain) : text);
      // An elective message: at the plan's monthly SMS limit it is not sent, and the rule's other actions still run.
      const refused = await limitRefusal(ctx, userId, segments);
      if (refused) done.push(`Message not sent: ${refused}`);
      else {
        const id = Bun.randomUUIDv7();
        const content = domain
          ? await shortenText(ctx, domain, text, { userId, campaignId: null, source: `automation:${rule.id}`, messageId: id, utm: null, expiresAt: expiryAt(ctx.now(), DEFAULT_EXPIRY_DAYS) })
          : text;
        await sendText(ctx, { id, userId, phone: contact.phone, contactId: contact.id, content, kind: "single", from: { chosen: sender }, dueAt: ctx.now() });
        done.push(`Message queued: ${content}`);
      }
    }
  }
  if (a.addTags?.length) {
    await bulkTag(ctx, userId, [contact.id], a.addTags, "add", true);
    done.push(`Tags added: ${a.addTags.join(", ")}`);
  }
  if (a.removeTags?.length) {
    await bulkTag(ctx, userId, [contact.id], a.removeTags, "remove", true);
    done.push(`Tags removed: ${a.removeTags.join(", ")}`);
  }
  if (a.enrolDripId) {
    const drip = await findDrip(ctx, a.enrolDripId);
    if (!drip || drip.userId !== userId) done.push("Not enrolled: the drip campaign was deleted");
    else if (!drip.isActive) done.push(`Not enrolled in ${drip.name}: the drip campaign is inactive`);
    else {
      const why = await enrolContact(ctx, drip, contact.id);
      done.push(why ? `Not enrolled in ${drip.name}: ${why}` : `Enrolled in ${drip.name}`);
    }
  }
  if (a.removeDripId) {
    const drip = await findDrip(ctx, a.removeDripId);
    if (drip && drip.userId === userId) {
      const ended = await exitContact(ctx, drip.id, contact.id, `Removed by automation rule ${rule.name}`);
      done.push(ended ? `Removed from ${drip.name}` : `Not in ${drip.name}`);
    }
  }
  if (a.emailOwner) {
    const owner = await findUserById(ctx, userId);
    if (owner) {
      // Sent by a job after this commits (SMTP cannot join the transaction), once: the job's key is the run's.
      const who = [contact.firstName, contact.lastName].filter(Boolean).join(" ") || contact.phone || contact.email || contact.id;
      await enqueueJob(ctx, {
        kind: EMAIL,
        key: `${EMAIL}:${runId}`,
        runAt: ctx.now(),
        userId,
        payload: { to: owner.email, subject: `Automation rule "${rule.name}": ${who}`, text: a.emailOwner },
      });
      done.push(`Email to ${owner.email}`);
    }
  }
  if (a.optOut) {
    await optOutById(ctx, userId, contact.id, "manual", `Automation rule: ${rule.name}`);
    done.push("Opted out");
  }
  return done;
}

/** Runs a manual rule now on the given contacts of its account. Answers how many ran (each once per request). */
export async function runManual(ctx: AppContext, userId: string, ruleId: string, contactIds: string[]) {
  const rule = await getRule(ctx, userId, ruleId);
  if (!rule.isActive) throw badRequest("This rule is paused; turn it on to run it");
  const request = Bun.randomUUIDv7();
  let ran = 0;
  for (const id of new Set(contactIds)) {
    const contact = await findContact(ctx, userId, id);
    if (contact && (await runRule(ctx, rule, contact, `manual:${request}:${id}`, null))) ran++;
  }
  return { ran };
}

const MAX_DATA_FIELDS = 50;
const MAX_DATA_VALUE = 500;

/** A purchase's data: an object of at most 50 fields, each short text, a number, true/false or null. */
function checkPurchaseData(data: unknown): Record<string, unknown> {
  if (data === undefined) return {};
  if (!data || typeof data !== "object" || Array.isArray(data)) throw badRequest("data must be an object of field: value");
  const entries = Object.entries(data);
  if (entries.length > MAX_DATA_FIELDS) throw badRequest(`data has at most ${MAX_DATA_FIELDS} fields`);
  for (const [k, v] of entries) {
    const ok = v === null || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && v.length <= MAX_DATA_VALUE);
    if (k.length > 100 || !ok) throw badRequest(`data fields are names of at most 100 characters with text of at most ${MAX_DATA_VALUE} characters, numbers, true/false or null`);
  }
  return data as Record<string, unknown>;
}

/** The most one purchase may add to what a contact has spent, in the account's currency. */
const MAX_AMOUNT = 1_000_000;

/** A purchase's total (e.g. 49.99) to cents, the unit of totalSpent; none adds nothing. */
function amountInCents(amount: unknown): number {
  if (amount === undefined || amount === null) return 0;
  if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0 || amount > MAX_AMOUNT)
    throw badRequest(`amount is the purchase's total, a number from 0 to ${MAX_AMOUNT.toLocaleString("en-US")} (such as 49.99)`);
  return Math.round(amount * 100);
}

/**
 * A purchase reported by the account (contact by id or phone): the `purchase` trigger's event, and the contact's
 * purchase record (its total spent, purchases in 90 days, engagement), in one transaction.
 */
export async function recordPurchase(ctx: AppContext, userId: string, input: { contactId?: string; phone?: string; amount?: unknown; data?: unknown }) {
  const data = checkPurchaseData(input.data);
  const cents = amountInCents(input.amount);
  // The contact is read in the transaction that records the purchase (one deleted meanwhile is not found, not written).
  // The callback awaits records only.
  const eventId = await ctx.withTransaction(async () => {
    const contact = input.contactId ? await findContact(ctx, userId, input.contactId) : input.phone ? await findByPhone(ctx, userId, input.phone.trim()) : null;
    if (!contact) throw badRequest(input.contactId || input.phone ? "Contact not found" : "Give the contact's id or phone");
    await addPurchase(ctx, userId, contact.id, cents, ctx.now());
    const payload = input.amount === undefined || input.amount === null ? { data } : { amount: cents / 100, data };
    return { id: await appendEvent(ctx, { userId, type: "contact.purchased", subject: { kind: "contact", id: contact.id }, payload }), contactId: contact.id };
  });
  return { eventId: eventId.id, contactId: eventId.contactId };
}

/** The contact's zone: its `timezone` custom field when it has one, else the account's. */
const zoneOfContact = (c: ContactRow, accountZone: string) => c.customFields?.timezone || accountZone;

/** "YYYY-MM-DD", "MM-DD" or "MM/DD(/YYYY)" to [month, day], or null. */
function monthDay(value: string): [number, number] | null {
  const v = value.trim();
  const m = /^(?:\d{4}-)?(\d{1,2})-(\d{1,2})/.exec(v) ?? /^(\d{1,2})\/(\d{1,2})/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

const PAGE = 500;

/**
 * A checkpoint: something to await when READ_BUDGET_MS went by since the last turn of the event loop (the next
 * turn), or when another caller's transaction is open on the connection (its end); nothing when neither, so the
 * caller's synchronous statements run in this very turn. Awaited until it answers nothing
 * (`for (let wait; (wait = slice()); ) await wait;`): a synchronous run begun while another caller's transaction
 * awaits inside would join it as a savepoint, committed or rolled back with that caller's work.
 */
function slices(ctx: AppContext) {
  let since = performance.now();
  return (): Promise<void> | undefined => {
    if (performance.now() - since >= READ_BUDGET_MS) return nextTurn().then(() => void (since = performance.now()));
    return ready(ctx.db);
  };
}

/** Every contact of the account matching a condition, page by page. */
async function* contactsWhere(ctx: AppContext, userId: string, condition: ReturnType<typeof sql>) {
  for (let page = 1; ; page++) {
    const res = await listContacts(ctx, userId, { page, pageSize: PAGE, sort: "createdAt", order: "asc" }, condition);
    for (const c of res.data) yield c.id;
    if (res.data.length < PAGE) return;
  }
}

/**
 * The clock's triggers at ctx.now(): birthdays whose date and hour have come in the contact's zone (once a year
 * per contact), and contacts with no message either way for the rule's days (once per quiet spell: the key holds
 * the time of the last message; a contact never texted either way has had no spell to end). Each run is its own
 * transaction, and the event loop gets a turn every few milliseconds. Answers how many runs it made.
 */
export async function runClockTriggers(ctx: AppContext): Promise<number> {
  let runs = 0;
  const now = ctx.now();
  const slice = slices(ctx);
  for (let wait; (wait = slice()); ) await wait;
  for (const rule of await activeRules(ctx, null, ["birthday", "inactive"])) {
    for (let wait; (wait = slice()); ) await wait;
    const owner = await findUserById(ctx, rule.userId);
    if (!owner) continue;
    if (rule.trigger === "birthday") {
      const field = rule.triggerConfig.field!;
      for await (const id of contactsWhere(ctx, rule.userId, sql`${customFieldColumn(ctx.records.$engine, field)} IS NOT NULL`)) {
        for (let wait; (wait = slice()); ) await wait;
        const contact = await findContact(ctx, rule.userId, id);
        const md = contact && monthDay(String(contact.customFields?.[field] ?? ""));
        if (!contact || !md) continue;
        const local = new Date(now + zoneOffset(zoneOfContact(contact, owner.timezone), now));
        if (local.getUTCMonth() + 1 !== md[0] || local.getUTCDate() !== md[1] || local.getUTCHours() < (rule.triggerConfig.hour ?? 9)) continue;
        if (await runRule(ctx, rule, contact, `birthday:${contact.id}:${local.getUTCFullYear()}`, null)) runs++;
      }
    } else {
      const cutoff = now - rule.triggerConfig.days! * DAY;
      for (let after = ""; ; ) {
        for (let wait; (wait = slice()); ) await wait;
        const page = await lastMessagePerPhone(ctx, rule.userId, after, PAGE);
        for (const { phone, last } of page) {
          if (last > cutoff) continue;
          for (let wait; (wait = slice()); ) await wait;
          const contact = await findByPhone(ctx, rule.userId, phone);
          if (contact && (await runRule(ctx, rule, contact, `inactive:${contact.id}:${last}`, null))) runs++;
        }
        if (page.length < PAGE) break;
        after = page.at(-1)!.phone;
      }
    }
  }
  return runs;
}

const TICK = "automation.tick";
const CLOCK = "automation.clock";

/**
 * Wires the rules: events are handled right after the transaction that appended them commits, with a job every
 * minute as a safety net (and at start, catching up after downtime); the clock's triggers run every hour.
 */
export async function startAutomation(ctx: AppContext) {
  let scheduled = false;
  let stopped = false;
  /** The chunk being handled (one at a time), and whether events were told of meanwhile. */
  let current: Promise<void> | null = null;
  let again = false;
  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    setImmediate(run);
  };
  const run = () => {
    scheduled = false;
    if (stopped) return;
    if (current) {
      again = true;
      return;
    }
    current = (async () => {
      let more = false;
      try {
        // One chunk per turn of the event loop: a backlog (after downtime, or a burst of imports and webhooks) is
        // worked off between requests rather than holding them all up.
        more = (await processEventsChunk(ctx)).more;
      } catch (err) {
        ctx.log(`automation: ${(err as Error)?.stack ?? err}`);
      } finally {
        current = null;
      }
      if (more || again) {
        again = false;
        schedule();
      }
    })();
  };
  onEventsCommitted(
    ctx,
    () => {
      // The listener runs in a microtask; the rules' own actions append events, which call it again after.
      if (scheduled) return;
      scheduled = true;
      queueMicrotask(run);
    },
    "automation",
  );
  ctx.onStop.unshift(async () => {
    stopped = true;
    onEventsCommitted(ctx, null, "automation");
    // A chunk under way ends before the connection closes.
    await current;
  });
  registerJobHandler(ctx, TICK, () => {
    // The chunks run in their own transactions (ctx.withTransaction), after the jobs runner's pass.
    schedule();
    return { runAgainAt: ctx.now() + 60_000 };
  }, { transactional: true, maxAttempts: Infinity });
  // Not transactional: each run commits on its own and the triggers yield every few milliseconds. A lease, so a
  // run that died with the process is taken over after a restart (the runs' keys keep it from repeating any).
  registerJobHandler(ctx, CLOCK, async () => {
    await runClockTriggers(ctx);
    return { runAgainAt: (Math.floor(ctx.now() / HOUR) + 1) * HOUR };
  }, { maxAttempts: Infinity, leaseMs: 10 * 60_000 });
  registerJobHandler(ctx, EMAIL, async (c, job) => {
    const p = job.payload as { to: string; subject: string; text: string };
    await c.mailer.send({ to: p.to, subject: p.subject, text: p.text, purpose: "automation rule email" });
  });
  await enqueueJob(ctx, { kind: TICK, key: TICK, runAt: ctx.now() });
  await enqueueJob(ctx, { kind: CLOCK, key: CLOCK, runAt: ctx.now() });
  run();
}
