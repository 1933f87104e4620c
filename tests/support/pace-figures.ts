// What a provider sees of a sender's pace, from the arrival times of its calls (ms): the calls of each whole second
// from the first, the busy seconds' median, and the busiest one-second window wherever it starts.

/** Calls in each whole second from `from` (the first call by default). */
export function perSecond(times: number[], from = Math.min(...times)): number[] {
  const counts: number[] = [];
  for (const at of times) {
    const s = Math.floor((at - from) / 1000);
    if (s >= 0) counts[s] = (counts[s] ?? 0) + 1;
  }
  return Array.from(counts, (n) => n ?? 0);
}

/** The median of the seconds with calls, the last (partial) one left out. */
export function medianBusySecond(times: number[]): number {
  const busy = perSecond(times).slice(0, -1).filter((n) => n > 0).sort((a, b) => a - b);
  return busy[Math.floor(busy.length / 2)] ?? 0;
}

/** Calls in the busiest `ms` window (one second by default), wherever it starts, and where it starts. */
export function busiestWindow(times: number[], ms = 1000): { calls: number; from: number } {
  const ats = [...times].sort((a, b) => a - b);
  let best = { calls: 0, from: ats[0] ?? 0 };
  for (let i = 0, j = 0; i < ats.length; i++) {
    while (ats[i]! - ats[j]! >= ms) j++;
    if (i - j + 1 > best.calls) best = { calls: i - j + 1, from: ats[j]! };
  }
  return best;
}
