// The thread that makes a picture fit an MMS (see resize-thread.ts): decoding and re-encoding a 6 MB photo in pure
// JavaScript takes seconds, which on the event loop held every request of every account that long.
import { fitForMms } from "./resize";
import { TooLarge, type FitAnswer, type FitRequest } from "./resize-contract";

declare const self: Worker;

self.onmessage = (e: MessageEvent<FitRequest>) => {
  let answer: FitAnswer;
  try {
    answer = { ok: true, ...fitForMms(e.data.bytes, e.data.type) };
  } catch (err) {
    answer = { ok: false, tooLarge: err instanceof TooLarge, message: (err as Error).message };
  }
  self.postMessage(answer);
};
self.postMessage({ type: "ready" });
