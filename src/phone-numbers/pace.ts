import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/**
 * A sender number's pace, kept by the installation rather than by each process (issue 31 item 2): its schedule's next
 * free slot is a row (`number_pace`), and every process's sending engine reserves the slots of a batch from it in
 * one statement, so three processes sending for one 100/s number send 100/s together. The row outlives a restart,
 * so the first batch after one carries on the schedule the last batch before it left (issue 29 item 4).
 *
 * The schedule is the engine's own (src/sending/pace.ts): a segment every `interval` ms; a schedule behind by at
 * most `catchUpMs` gives the slots it owes at once, one further behind was idle and starts again at now. A
 * reservation asks for `want` segments and is given those of them whose slot has come (0 while another process
 * holds the next ones), and the row moves past them. The statement reads and writes the row it locks (an upsert's
 * DO UPDATE, evaluated on the row last committed): two processes' reservations take turns on it and never share a
 * slot, on PostgreSQL as on SQLite. Its text is the same on both engines (`?` in order, CASE for min, floor()).
 */

/**
 * The reservation on a schedule's table (`number_pace` by sender number, `account_pace` by provider account, whose
 * ceiling holds across its numbers): a first reservation is the first slot, now; later ones as above.
 */
function reserveSql(table: string, key: string): string {
  /** How far behind now the schedule is: 0 when it is ahead of now or was idle longer than the catch-up (params: now - catchUp, now). */
  const lag = `CASE WHEN ${table}.next_at < ? THEN 0 ELSE ? - ${table}.next_at END`;
  /** The slots come by now (params: lag, lag, interval). */
  const due = `CASE WHEN ${lag} < 0 THEN 0 ELSE floor(${lag} / ?) + 1 END`;
  /** Those of them asked for (params: due, want, due, want). */
  const grant = `CASE WHEN ${due} < ? THEN ${due} ELSE ? END`;
  return `INSERT INTO ${table} (${key}, next_at, granted) VALUES (?, ?, 1)
  ON CONFLICT (${key}) DO UPDATE SET granted = ${grant}, next_at = ? - ${lag} + ${grant} * ?
  RETURNING granted, next_at AS "nextAt"`;
}

export const RESERVE_PACE_SQL = reserveSql("number_pace", "phone_number_id");
export const RESERVE_ACCOUNT_PACE_SQL = reserveSql("account_pace", "sms_provider_id");

/** A reservation's parameters, in the order of its `?`s. */
export function reservePaceParams(numberId: string, now: number, want: number, interval: number, catchUpMs: number): (string | number)[] {
  const lag = [now - catchUpMs, now];
  const due = [...lag, ...lag, interval];
  const grant = [...due, want, ...due, want];
  return [numberId, now + interval, ...grant, now, ...lag, ...grant, interval];
}

/** Moves the schedule by `ms` (negative: slots reserved but not used, given back). */
export const SHIFT_PACE_SQL = `UPDATE number_pace SET next_at = next_at + ? WHERE phone_number_id = ?`;
export const SHIFT_ACCOUNT_PACE_SQL = `UPDATE account_pace SET next_at = next_at + ? WHERE sms_provider_id = ?`;

/** Whose schedule: a sender number's, or its provider account's (the ceiling across its numbers). */
export type PaceOf = { number: string } | { account: string };
const statementsOf = (of: PaceOf) =>
  "number" in of ? { id: of.number, reserve: RESERVE_PACE_SQL, shift: SHIFT_PACE_SQL } : { id: of.account, reserve: RESERVE_ACCOUNT_PACE_SQL, shift: SHIFT_ACCOUNT_PACE_SQL };

export type PaceGrant = { granted: number; nextAt: number };

/**
 * Reserves up to `want` segments of the number's schedule at `now`: answers how many were given and the schedule's
 * next slot after them. Called in the transaction that marks the batch sending, so on PostgreSQL the row stays held
 * until the marks commit and `shiftPace` adjusts what this reserved.
 */
export async function reservePace(ctx: AppContext, of: PaceOf, now: number, want: number, interval: number, catchUpMs: number): Promise<PaceGrant> {
  const { id, reserve } = statementsOf(of);
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<PaceGrant>(reserve, reservePaceParams(id, now, want, interval, catchUpMs));
  return { granted: Number(row!.granted), nextAt: Number(row!.nextAt) };
}

/**
 * The batch used `used` segments of the `granted` reserved: the schedule moves by the difference (a longer text let
 * go on its first slot takes its other segments' slots too; a row held or skipped gives its slots back).
 */
export async function shiftPace(ctx: AppContext, of: PaceOf, used: number, granted: number, interval: number): Promise<void> {
  if (used === granted) return;
  const { id, shift } = statementsOf(of);
  await ready(ctx.db);
  await ctx.records.$run(shift, [(used - granted) * interval, id]);
}

/** A schedule a batch reserves from, and the interval between its slots. */
export type Schedule = { of: PaceOf; interval: number };
/** What a batch was given: as many segments as every schedule gave it. */
export type BatchGrant = { granted: number; parts: { schedule: Schedule; grant: PaceGrant }[] };

/** Reserves up to `want` segments from each schedule (the number's first, then its account's: one order for all). */
export async function reserveSchedules(ctx: AppContext, schedules: Schedule[], now: number, want: number, catchUpMs: number): Promise<BatchGrant> {
  const parts: BatchGrant["parts"] = [];
  for (const schedule of schedules) parts.push({ schedule, grant: await reservePace(ctx, schedule.of, now, want, schedule.interval, catchUpMs) });
  return { granted: Math.min(...parts.map((p) => p.grant.granted)), parts };
}

/** The batch used `used` segments: each schedule moves to match; answers when the latest of their next slots comes. */
export async function settleSchedules(ctx: AppContext, batch: BatchGrant, used: number): Promise<number> {
  let next = Number.NEGATIVE_INFINITY;
  for (const { schedule, grant } of batch.parts) {
    await shiftPace(ctx, schedule.of, used, grant.granted, schedule.interval);
    next = Math.max(next, grant.nextAt + (used - grant.granted) * schedule.interval);
  }
  return next;
}
