// The thread startTwilioFakeWorker (twilio-worker.ts) runs the Twilio fake on.
import { startTwilioFake } from "./twilio";

declare const self: Worker;
let fake: Awaited<ReturnType<typeof startTwilioFake>> | null = null;

const isSend = (r: { method: string; path: string }) => r.method === "POST" && r.path.endsWith("/Messages.json");

self.onmessage = async (e: MessageEvent<{ id: number; op: string; arg: unknown }>) => {
  const { id, op, arg } = e.data;
  const answer = (value: unknown) => self.postMessage({ id, value });
  if (op === "start") {
    fake = await startTwilioFake(arg as Parameters<typeof startTwilioFake>[0]);
    return answer({ url: fake.url, accountSid: fake.accountSid, authToken: fake.authToken });
  }
  if (!fake) throw new Error(`the Twilio fake is not started (${op})`);
  if (op === "sendCount") return answer(fake.requests.filter((r) => isSend(r) && r.params.From === arg).length);
  if (op === "settle") return answer(await fake.settleCallbacks());
  if (op === "seen")
    return answer({
      requests: fake.requests.map((r) => ({ at: r.at, method: r.method, path: r.path, params: r.params })),
      messages: fake.messages.map((m) => ({ from: m.from, to: m.to })),
      callbacks: fake.callbacks.map((c) => ({ sid: c.sid, status: c.status, answer: c.answer })),
    });
  if (op === "stop") {
    fake.stop();
    return answer(undefined);
  }
  throw new Error(`unknown operation ${op}`);
};
