/** Time-zone offsets, cached, and wall-clock times read in a zone: shared by quiet hours, schedules and plan months. */
const MINUTE = 60_000;

/*
 * Offsets are cached per quarter hour of UTC: every offset change in current rules happens on one, and the
 * sender asks about the same few quarters (now, and each window's end) for every message.
 */
const QUARTER = 15 * MINUTE;
const MAX_QUARTERS = 256;
export type Zone = { format: Intl.DateTimeFormat | null; quarters: Map<number, number> };
const zones = new Map<string, Zone>();

export function zoneOf(name: string): Zone {
  let zone = zones.get(name);
  if (!zone) {
    zone = { format: formatFor(name), quarters: new Map() };
    zones.set(name, zone);
  }
  return zone;
}

function formatFor(timeZone: string): Intl.DateTimeFormat | null {
  try {
    return new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    return null;
  }
}

export function offsetAt(zone: Zone, t: number): number {
  if (!zone.format) return 0;
  const quarter = Math.floor(t / QUARTER);
  const cached = zone.quarters.get(quarter);
  if (cached !== undefined) return cached;
  const first = rawOffset(zone.format, quarter * QUARTER);
  // Unaligned historical changes leave the quarter uncached and answered exactly.
  if (rawOffset(zone.format, quarter * QUARTER + QUARTER - 1000) !== first) return rawOffset(zone.format, t);
  if (zone.quarters.size >= MAX_QUARTERS) zone.quarters.clear();
  zone.quarters.set(quarter, first);
  return first;
}

/** Local wall time minus UTC at `t`, in ms, as the zone's formatter reads it. */
export function rawOffset(format: Intl.DateTimeFormat, t: number): number {
  const f = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of format.formatToParts(t)) {
    if (part.type in f) f[part.type as keyof typeof f] = Number(part.value);
  }
  const wall = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second);
  return wall - Math.floor(t / 1000) * 1000;
}

/** Local wall time minus UTC at `t` in a zone, in ms (0 for a zone the runtime does not know). */
export function zoneOffset(name: string, t: number): number {
  return offsetAt(zoneOf(name), t);
}

/**
 * The instant a zone's clock reads `wall` (a wall time written as if it were UTC). Where the clock reads it twice
 * the offset before the change is used; where it never does, the time is read with the offset after the jump.
 */
export function wallToInstant(name: string, wall: number): number {
  const zone = zoneOf(name);
  const guess = wall - offsetAt(zone, wall);
  return wall - offsetAt(zone, guess);
}
