import { concatBatches, pickRows, type PreparedBatch } from "./prepare";

/** Rows sorted together: see inPhoneOrder. */
export const ORDER_WINDOW = 20_000;

type Prepared = { batch: PreparedBatch; progress: number };

/**
 * The rows of a large import handed over in phone order, a window of ORDER_WINDOW rows at a time, rather than in
 * the order of the file. Contacts' phones are a unique index: rows in file order put each of a transaction's rows
 * on its own page of that index (the numbers of a real list are random), and every page a transaction changes is
 * written to the log at its commit and again at the next checkpoint. Sorted, a transaction's few hundred rows fall
 * on fewer pages, next to each other. A million diverse rows through the import (scripts/bench/import.ts, the same
 * day): 52.0 s in file order (peak memory 1,119 MB); in windows of 20,000 rows 39.6, 42.4 and 42.0 s (1,189, 1,174
 * and 1,104 MB); of 50,000, 41.9, 42.0 and 45.6 s (1,301, 1,218 and 1,253 MB); of 100,000 42.5 s, of 200,000 45.7 s
 * and 1,690 MB: larger windows hold more rows and keep the writer waiting longer while one is parsed, for no gain
 * that shows. The app's schema alone (scripts/bench/import-order.ts: a bare insert, 500 rows a transaction, the whole
 * file sorted): 42,272 rows a second by phone, 38,019 by name, 27,610 in file order.
 * Since the transactions hold a few hundred rows (import-pace.ts), each spans a fortieth of the phone index in a window
 * of 20,000, and a larger window writes less: a million diverse rows into the executable, windows of 20,000 and of
 * 50,000 (with the parsing worker allowed six batches ahead, so it parses the next window while the writer stores
 * this one) run at the same time at a load average of 12-22 on 2 cores: 7.31 and 5.84 GB written, 21.2 and 17.4 s of
 * kernel time, the main thread 57.0 and 54.1 us a row, every thread 94.2 and 90.6; but peak RSS 353 and 436 MB, over
 * the 400 MB issue 29 item 2 allows (the window and the batches ahead held at once). The window stays at 20,000
 * until the rows it holds take less memory.
 *
 * What the file's order decides stays as it was:
 * - rows sharing a number: the sort is stable, so the first in the file is still met first and the later ones are
 *   its duplicates, as before;
 * - invalid rows (no number) sort first in file order, so the first errors reported are the file's first;
 * - which rows the plan's contact limit leaves out (the file's last): a window is sorted only when all the rows up
 *   to its end fit in `sortable`, the contacts the plan has room for; past that the rows come in file order.
 * Files of fewer rows than a window come in file order, as contacts of one import are listed newest first by the
 * order they were stored in. Each batch handed over keeps the progress of the batch read at its place.
 */
export async function* inPhoneOrder(batches: AsyncIterable<Prepared>, sortable: number, window = ORDER_WINDOW): AsyncGenerator<Prepared> {
  let held: Prepared[] = [];
  let heldRows = 0;
  let before = 0;
  let large = false;
  const release = () => {
    const out = large && before + heldRows <= sortable ? sorted(held) : held;
    before += heldRows;
    held = [];
    heldRows = 0;
    return out;
  };
  for await (const b of batches) {
    held.push(b);
    heldRows += b.batch.lines.length;
    if (heldRows < window) continue;
    large = true;
    yield* release();
  }
  yield* release();
}

/** The window's rows in phone order (stable), cut into batches of the sizes they came in. */
function sorted(window: Prepared[]): Prepared[] {
  const all = concatBatches(window.map((w) => w.batch));
  const order = all.phone.map((_, i) => i).sort((a, b) => (all.phone[a]! < all.phone[b]! ? -1 : all.phone[a]! > all.phone[b]! ? 1 : 0));
  let at = 0;
  return window.map(({ batch, progress }) => ({ batch: pickRows(all, order.slice(at, (at += batch.lines.length))), progress }));
}
