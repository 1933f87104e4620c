// The parsing thread of a CSV import (see import-pipeline.ts): parses and validates the upload and posts
// prepared batches, one per credit the writer returns. Imports nothing that touches the database.
import { HttpError } from "../http/errors";
import { fileBatches, type FromWorker, type ToWorker } from "./import-pipeline";
import { packedBuffers } from "./prepare";

declare const self: Worker;
const post = (m: FromWorker) => self.postMessage(m);

let credits = 0;
let resume: (() => void) | null = null;
/** Batches made since the last full collection. */
let sinceGc = 0;

/**
 * Left to itself the collector lets parsing garbage (mostly string buffers outside the JS heap) grow the
 * process by a few hundred MB over a million rows; a full collection of this small heap takes milliseconds.
 * Done while waiting for the writer when it can, and every few batches when the writer is the faster side.
 */
function collect(idle: boolean) {
  if (sinceGc < (idle ? 2 : 6)) return;
  sinceGc = 0;
  Bun.gc(true);
}

function run(batches: ReturnType<typeof fileBatches>) {
  const step = async () => {
    if (credits === 0) {
      collect(true);
      resume = step;
      return;
    }
    try {
      const next = await batches.next();
      if (next.done) return post({ type: "done" });
      credits--;
      sinceGc++;
      collect(false);
      const { batch, progress } = next.value;
      self.postMessage({ type: "batch", batch, progress } satisfies FromWorker, packedBuffers(batch));
    } catch (err) {
      return post({
        type: "error",
        status: err instanceof HttpError ? err.status : null,
        message: err instanceof Error ? err.message : String(err),
      });
    }
    setImmediate(step);
  };
  // step answers every failure to the parent itself (post "error"): nothing is left to await here.
  void step();
}

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  if (m.type === "start") {
    credits = m.credits;
    run(fileBatches(m.path, m.parse));
  } else {
    credits++;
    const r = resume;
    resume = null;
    r?.();
  }
};

post({ type: "ready" });
