/** Polls `read` until `done` holds for its value; fails with the last value seen after `timeoutMs`. */
export async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 10_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    await Bun.sleep(everyMs);
    last = await read();
  }
  return last;
}
