/** Counts the turns the event loop gets while `work` runs: a callback queued for every turn runs meanwhile. */
export async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  on = false;
  return turns;
}

/**
 * What `read` answers at every turn of the event loop while `work` runs, distinct values in the order first seen,
 * with work's answer: work done in steps shows its intermediate states, work done in one go shows none.
 */
export async function valuesDuring<T>(read: () => number | Promise<number>, work: () => Promise<T>): Promise<{ answer: T; seen: number[] }> {
  const seen = new Set<number>();
  let on = true;
  // A read that answers later (a statement on PostgreSQL) is the next one's turn when it has answered.
  const watch = async () => {
    if (!on) return;
    seen.add(await read());
    setImmediate(watch);
  };
  setImmediate(watch);
  const answer = await work();
  on = false;
  return { answer, seen: [...seen] };
}
