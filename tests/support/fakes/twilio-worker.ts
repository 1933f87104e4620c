/**
 * The Twilio fake on a thread of its own, for tests that judge the pace a provider sees: the fake stamps each send
 * as it arrives, and in the test's own thread those stamps waited for whatever else that thread did (polling, the
 * status callbacks it signs and posts): stalls of 400-860 ms there bunched a steady 200/s into 270 "arrivals" in
 * one second (send-pace.test.ts at a load average of 4). On its own thread the fake's clock reads when the
 * requests arrive.
 *
 *   const twilio = await startTwilioFakeWorker({ sendLatencyMs: [150, 400], throttleRate: 0.05 });
 *   const seen = await twilio.seen(); // { requests, messages, callbacks } as the fake recorded them
 */
import type { TwilioFakeOptions } from "./twilio";

type Seen = {
  requests: { at: number; method: string; path: string; params: Record<string, string> }[];
  messages: { from: string; to: string }[];
  callbacks: { sid: string; status: string; answer: number }[];
};

/** Starts the fake in a Worker; `opts` must be cloneable (no functions). */
export async function startTwilioFakeWorker(opts: TwilioFakeOptions) {
  const worker = new Worker(new URL("./twilio-worker-thread.ts", import.meta.url).href);
  let next = 0;
  const waiting = new Map<number, (value: unknown) => void>();
  worker.onmessage = (e: MessageEvent<{ id: number; value: unknown }>) => {
    waiting.get(e.data.id)?.(e.data.value);
    waiting.delete(e.data.id);
  };
  const ask = <T>(op: string, arg?: unknown) =>
    new Promise<T>((resolve) => {
      const id = next++;
      waiting.set(id, resolve as (value: unknown) => void);
      worker.postMessage({ id, op, arg });
    });
  const started = await ask<{ url: string; accountSid: string; authToken: string }>("start", opts);
  return {
    ...started,
    /** How many sends from this number have arrived. */
    sendCount: (from: string) => ask<number>("sendCount", from),
    /** Waits for the status callbacks under way. */
    settleCallbacks: () => ask<void>("settle"),
    /** What the fake recorded so far. */
    seen: () => ask<Seen>("seen"),
    async stop() {
      await ask<void>("stop");
      worker.terminate();
    },
  };
}
