import { offsetAt, rawOffset, zoneOf, type Zone } from "../time/zones";
import { recipientTimeZone } from "./recipient-zone";

export type Clock = `${number}:${number}`;
export type QuietHours = { enabled: boolean; start: Clock; end: Clock };

export const DEFAULT_QUIET_HOURS: QuietHours = { enabled: true, start: "21:00", end: "08:00" };

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of an "HH:MM" time (00:00 to 23:59), or null when it is not one. */
export function clockMinutes(value: string): number | null {
  const m = CLOCK.exec(value);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** The recipient's zone when the number tells it, else the account's. */
export function zoneForRecipient(e164: string, accountZone: string): string {
  return recipientTimeZone(e164) ?? accountZone;
}

/**
 * When `now` falls inside the quiet window on the wall clock of `zone`, the instant the window ends (the first
 * moment the local clock reads `end` or later); null outside it, when disabled, or when start equals end.
 * An unknown zone is read as UTC. An unreadable time falls back to the default window's, so a bad setting can
 * neither stop the sender nor let marketing out at night.
 */
export function quietUntil(now: number, zone: string, q: QuietHours): number | null {
  if (!q.enabled) return null;
  const start = (clockMinutes(q.start) ?? 21 * 60) * MINUTE;
  const end = (clockMinutes(q.end) ?? 8 * 60) * MINUTE;
  if (start === end) return null;
  const z = zoneOf(zone);
  const offset = offsetAt(z, now);
  const local = now + offset;
  const sinceMidnight = ((local % DAY) + DAY) % DAY;
  const midnight = local - sinceMidnight;
  let localEnd: number;
  if (start < end) {
    if (sinceMidnight < start || sinceMidnight >= end) return null;
    localEnd = midnight + end;
  } else if (sinceMidnight >= start) {
    localEnd = midnight + DAY + end;
  } else if (sinceMidnight < end) {
    localEnd = midnight + end;
  } else {
    return null;
  }
  return firstInstantAt(z, localEnd, now, offset);
}

/**
 * The first instant after `now` whose local clock reads `localEnd` (wall time as if UTC) or later. Across a
 * change of offset the wall time exists twice (the earlier one wins) or not at all (the clock jumps over it,
 * and the jump is the answer).
 */
function firstInstantAt(z: Zone, localEnd: number, now: number, offsetNow: number): number {
  const before = localEnd - offsetNow;
  const offsetThen = offsetAt(z, before);
  if (offsetThen === offsetNow) return before;
  const after = localEnd - offsetThen;
  if (after > now && offsetAt(z, after) === offsetThen) return after;
  // Neither reading exists: find the minute the clock jumps.
  let lo = Math.floor(now / MINUTE);
  let hi = Math.ceil(before / MINUTE);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (rawOffset(z.format!, mid * MINUTE) === offsetNow) lo = mid;
    else hi = mid;
  }
  return hi * MINUTE;
}
