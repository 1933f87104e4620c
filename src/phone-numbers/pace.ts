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

/** How far behind now the schedule is: 0 when it is ahead of now or was idle longer than the catch-up (params: now - catchUp, now). */
const LAG = `CASE WHEN number_pace.next_at < ? THEN 0 ELSE ? - number_pace.next_at END`;
/** The slots come by now (params: LAG, LAG, interval). */
const DUE = `CASE WHEN ${LAG} < 0 THEN 0 ELSE floor(${LAG} / ?) + 1 END`;
/** Those of them asked for (params: DUE, want, DUE, want). */
const GRANT = `CASE WHEN ${DUE} < ? THEN ${DUE} ELSE ? END`;

/** A number's first reservation is the first slot, now; later ones as above. */
export const RESERVE_PACE_SQL = `INSERT INTO number_pace (phone_number_id, next_at, granted) VALUES (?, ?, 1)
  ON CONFLICT (phone_number_id) DO UPDATE SET granted = ${GRANT}, next_at = ? - ${LAG} + ${GRANT} * ?
  RETURNING granted, next_at AS "nextAt"`;

/** RESERVE_PACE_SQL's parameters, in the order of its `?`s. */
export function reservePaceParams(numberId: string, now: number, want: number, interval: number, catchUpMs: number): (string | number)[] {
  const lag = [now - catchUpMs, now];
  const due = [...lag, ...lag, interval];
  const grant = [...due, want, ...due, want];
  return [numberId, now + interval, ...grant, now, ...lag, ...grant, interval];
}

/** Moves the schedule by `ms` (negative: slots reserved but not used, given back). */
export const SHIFT_PACE_SQL = `UPDATE number_pace SET next_at = next_at + ? WHERE phone_number_id = ?`;

export type PaceGrant = { granted: number; nextAt: number };

/**
 * Reserves up to `want` segments of the number's schedule at `now`: answers how many were given and the schedule's
 * next slot after them. Called in the transaction that marks the batch sending, so on PostgreSQL the row stays held
 * until the marks commit and `shiftPace` adjusts what this reserved.
 */
export async function reservePace(ctx: AppContext, numberId: string, now: number, want: number, interval: number, catchUpMs: number): Promise<PaceGrant> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<PaceGrant>(RESERVE_PACE_SQL, reservePaceParams(numberId, now, want, interval, catchUpMs));
  return { granted: Number(row!.granted), nextAt: Number(row!.nextAt) };
}

/**
 * The batch used `used` segments of the `granted` reserved: the schedule moves by the difference (a longer text let
 * go on its first slot takes its other segments' slots too; a row held or skipped gives its slots back).
 */
export async function shiftPace(ctx: AppContext, numberId: string, used: number, granted: number, interval: number): Promise<void> {
  if (used === granted) return;
  await ready(ctx.db);
  await ctx.records.$run(SHIFT_PACE_SQL, [(used - granted) * interval, numberId]);
}
