/**
 * The calendar of the dashboards, in the account's time zone: its days and months as instants, and the windows
 * the comparisons set side by side. Everything is [start, end) in ms.
 */
import { wallToInstant, zoneOffset } from "../time/zones";

export type Interval = { start: number; end: number };
export type Day = Interval & { date: string };
export type Month = Interval & { month: string };

const DAY = 86_400_000;
const WEEK = 7 * DAY;
const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d)).toISOString().slice(0, 10);

/** The zone's calendar date at an instant, as UTC parts (month from 0). */
function wallDate(zone: string, t: number) {
  const wall = new Date(t + zoneOffset(zone, t));
  return { y: wall.getUTCFullYear(), m: wall.getUTCMonth(), d: wall.getUTCDate(), time: wall.getTime() % DAY };
}

/** The instant a local calendar date begins (Date.UTC normalises an overflowing month or day). */
export const midnight = (zone: string, y: number, m: number, d: number) => wallToInstant(zone, Date.UTC(y, m, d));

/** The last `count` local days, oldest first, the last being today (which ends at its midnight, not now). */
export function lastDays(zone: string, now: number, count: number): Day[] {
  const { y, m, d } = wallDate(zone, now);
  return Array.from({ length: count }, (_, i) => {
    const day = d - (count - 1 - i);
    return { date: iso(y, m, day), start: midnight(zone, y, m, day), end: midnight(zone, y, m, day + 1) };
  });
}

/** The last `count` local calendar months, oldest first, the last being this one (to its end). */
export function lastMonths(zone: string, now: number, count: number): Month[] {
  const { y, m } = wallDate(zone, now);
  return Array.from({ length: count }, (_, i) => {
    const month = m - (count - 1 - i);
    return { month: iso(y, month, 1).slice(0, 7), start: midnight(zone, y, month, 1), end: midnight(zone, y, month + 1, 1) };
  });
}

/** The 7 days up to now against the 7 before them: whole weeks of every weekday, whatever today is. */
export function weekWindows(now: number): { current: Interval; previous: Interval } {
  return { current: { start: now - WEEK, end: now }, previous: { start: now - 2 * WEEK, end: now - WEEK } };
}

/**
 * This month so far against last month up to the same day and time (the 31st reads as last month's last day), so
 * a month barely begun is not set against a whole one.
 */
export function monthWindows(zone: string, now: number): { current: Interval; previous: Interval } {
  const { y, m, d, time } = wallDate(zone, now);
  const start = midnight(zone, y, m, 1);
  const previousStart = midnight(zone, y, m - 1, 1);
  const lastDayOfPrevious = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const sameMoment = wallToInstant(zone, Date.UTC(y, m - 1, Math.min(d, lastDayOfPrevious)) + time);
  return { current: { start, end: now }, previous: { start: previousStart, end: Math.min(sameMoment, start) } };
}
