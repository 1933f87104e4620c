/**
 * Long work done in pieces between which the event loop takes a turn (issue 29 item 5: no hold over 50 ms), so every
 * account's requests are answered while one account's audience of a million is read or rendered.
 */

/** How long one piece holds the event loop before the next turn. */
export const PIECE_MS = 10;

export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A clock for a loop's pieces: `due()` is true once the current piece has run PIECE_MS, and `turn()` then lets the
 * event loop run before the next one. Checked synchronously, so a loop of a million steps awaits only at its turns.
 */
export function pieces(ms = PIECE_MS) {
  let since = performance.now();
  return {
    due: () => performance.now() - since >= ms,
    turn: async () => {
      await nextTurn();
      since = performance.now();
    },
  };
}

/**
 * Rowid windows (after, upTo] over 1..last, sized to about `ms` of work each (doubled below half of it, halved above
 * twice), with a turn of the event loop between: `read` does one window's work. Never under WINDOW.min rowids: on a
 * machine whose cores are taken a window's wall time is several times its work, and windows of a few rows would
 * make a million contacts a hundred thousand turns.
 */
const WINDOW = { initial: 2_000, min: 1_000, max: 100_000 };
export async function inWindows(last: number, read: (after: number, upTo: number) => Promise<void>, ms = PIECE_MS): Promise<void> {
  let window = WINDOW.initial;
  for (let after = 0; after < last; ) {
    const started = performance.now();
    const upTo = Math.min(last, after + window);
    await read(after, upTo);
    after = upTo;
    const took = performance.now() - started;
    if (took < ms / 2) window = Math.min(WINDOW.max, window * 2);
    else if (took > ms * 2) window = Math.max(WINDOW.min, Math.floor(window / 2));
    if (after < last) await nextTurn();
  }
}
