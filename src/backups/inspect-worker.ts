// The thread that opens a database read out of a backup archive (see inspect.ts): its integrity check, schema and
// row counts read a whole file of any size, which would otherwise hold the event loop for every request.
import { inspectInThread, type InspectRequest } from "./inspect-db";

declare const self: Worker;

self.onmessage = async (e: MessageEvent<InspectRequest>) => {
  self.postMessage(await inspectInThread(e.data));
};
self.postMessage({ type: "ready" });
