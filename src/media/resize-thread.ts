import { CARRIER_SAFE_BYTES } from "../../shared/media/limits";
import { TooLarge, type FitAnswer, type FitRequest } from "./resize-contract";
import type { MediaType } from "../../shared/media/sniff";
import { startWorker } from "../threads/start-worker";

/**
 * Where the worker's entry point is: next to this module when run from source; in the single executable
 * (scripts/build.ts lists it as an entry point) under media/ at the executable's root.
 */
const WORKER_URLS = [new URL("./resize-worker.ts", import.meta.url), new URL("./media/resize-worker.ts", import.meta.url)];

async function fitOnce(bytes: Uint8Array, type: MediaType): Promise<{ bytes: Uint8Array; type: MediaType }> {
  const worker = await startWorker(WORKER_URLS, "picture resizing");
  try {
    const answer = await new Promise<FitAnswer>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<FitAnswer>) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(`the picture resizing worker failed: ${e.message}`));
      worker.postMessage({ bytes, type } satisfies FitRequest);
    });
    if (answer.ok) return { bytes: answer.bytes, type: answer.type };
    throw answer.tooLarge ? new TooLarge(answer.message) : new Error(answer.message);
  } finally {
    worker.terminate();
  }
}

/** Resizes run one at a time: a 12 MB photo decodes to ~100 MB of pixels, and a burst of uploads must not add up. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * fitForMms (resize.ts) in a worker thread, one picture at a time; an item that already fits answers at once
 * without a thread. The event loop goes on serving while a large photo is made smaller.
 */
export function fitForMmsInThread(bytes: Uint8Array, type: MediaType): Promise<{ bytes: Uint8Array; type: MediaType }> {
  if (bytes.length <= CARRIER_SAFE_BYTES) return Promise.resolve({ bytes, type });
  const run = queue.then(() => fitOnce(bytes, type));
  queue = run.catch(() => undefined);
  return run;
}
