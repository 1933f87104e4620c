import { HttpError } from "../http/errors";
import { csvBatches, fileChunks, type ParseOptions } from "./csv-stream";
import { inPhoneOrder } from "./import-order";
import { packBatch, type PackedBatch } from "./prepare";

export type Prepared = { batch: PackedBatch; progress: number };
export type ToWorker = { type: "start"; path: string; parse: ParseOptions; credits: number } | { type: "more" };
export type FromWorker =
  | { type: "ready" }
  | { type: "batch"; batch: PackedBatch; progress: number }
  | { type: "done" }
  | { type: "error"; status: number | null; message: string };

/** Batches the worker may prepare ahead of the writer: enough to keep both threads busy, few enough to bound memory. */
const AHEAD = 2;
const WORKER_START_MS = 10_000;

/**
 * Where the worker's entry point is: next to this module when run from source; in the single executable
 * (scripts/build.ts lists it as an entry point) under contacts/ at the executable's root.
 */
const WORKER_URLS = [new URL("./import-worker.ts", import.meta.url), new URL("./contacts/import-worker.ts", import.meta.url)];

/** A started worker that said it is ready, or null (after the first place that does not load, the next). */
function startWorker(urls = WORKER_URLS): Promise<Worker | null> {
  const [url, ...rest] = urls;
  if (!url) return Promise.resolve(null);
  return new Promise<Worker | null>((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(url);
    } catch {
      return resolve(null);
    }
    const give = (ready: boolean) => {
      clearTimeout(timer);
      worker.onmessage = null;
      worker.onerror = null;
      if (!ready) worker.terminate();
      resolve(ready ? worker : null);
    };
    const timer = setTimeout(() => give(false), WORKER_START_MS);
    worker.onmessage = (e: MessageEvent<FromWorker>) => {
      if (e.data.type === "ready") give(true);
    };
    worker.onerror = () => give(false);
  }).then((w) => w ?? startWorker(rest));
}

async function* fromWorker(worker: Worker, path: string, parse: ParseOptions): AsyncGenerator<Prepared> {
  const inbox: FromWorker[] = [];
  let wake: (() => void) | null = null;
  const deliver = (m: FromWorker) => {
    inbox.push(m);
    wake?.();
  };
  worker.onmessage = (e: MessageEvent<FromWorker>) => deliver(e.data);
  worker.onerror = (e) => deliver({ type: "error", status: null, message: e.message });
  worker.postMessage({ type: "start", path, parse, credits: AHEAD } satisfies ToWorker);
  try {
    for (;;) {
      while (!inbox.length) await new Promise<void>((r) => (wake = r));
      wake = null;
      const m = inbox.shift()!;
      if (m.type === "done") return;
      if (m.type === "error") throw m.status ? new HttpError(m.status, m.message) : new Error(`import worker: ${m.message}`);
      if (m.type !== "batch") continue;
      yield { batch: m.batch, progress: m.progress };
      worker.postMessage({ type: "more" } satisfies ToWorker);
    }
  } finally {
    worker.terminate();
  }
}

/**
 * The prepared batches of a CSV file, parsed chunk by chunk (csv-stream.ts), a large one's in phone order
 * (import-order.ts), packed as the writer stores them.
 */
export async function* fileBatches(path: string, parse: ParseOptions): AsyncGenerator<Prepared> {
  for await (const { batch, progress } of inPhoneOrder(csvBatches(fileChunks(path), Bun.file(path).size, parse), parse.sortable ?? 0))
    yield { batch: packBatch(batch), progress };
}

/**
 * The prepared batches of a CSV file. Parsing and phone validation run in a Worker on another core while the
 * caller writes each batch, with the worker at most AHEAD batches in front; without a worker (one that cannot
 * start) the same work runs here, between the caller's writes.
 */
export async function* preparedBatches(
  path: string,
  parse: ParseOptions,
  opts: { worker?: boolean; log?: (line: string) => void } = {},
): AsyncGenerator<Prepared> {
  const worker = opts.worker === false ? null : await startWorker();
  if (!worker && opts.worker !== false)
    opts.log?.("contact import: the parsing worker could not start; parsing on the main thread");
  yield* worker ? fromWorker(worker, path, parse) : fileBatches(path, parse);
}
