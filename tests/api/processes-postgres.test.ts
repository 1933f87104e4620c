// Issue 31 item 2: two processes of one installation on one PostgreSQL database (two apps, each with its own data
// folder and the installation's secret key). The jobs runner runs on both and shares the due jobs; a socket on one
// hears what happened on the other (LISTEN/NOTIFY wakes its hub, which reads the log after its cursor).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { appendEvent } from "../../src/events/events";
import { findJob } from "../../src/jobs/jobs";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

let pg: ThrowawayDatabase;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  pg = await throwawayDatabase();
  a = await startTestServer({ smtp: false, env: { DATABASE_URL: pg.url } });
  // The second process: its own data folder, the installation's key (a process with another one refuses to start).
  b = await startTestServer({ smtp: false, env: { DATABASE_URL: pg.url, SECRET_KEY_FILE: join(a.dataDir, "secret.key") } });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await pg?.drop();
});

type Frame = Record<string, any> & { type: string };

/** A socket on `server`, signed in as `account`, once it was told where it stands. */
async function socketOn(server: TestServer, account: Account) {
  const frames: Frame[] = [];
  const ws = new WebSocket(server.url.replace("http:", "ws:") + "/ws");
  ws.onmessage = (m) => frames.push(JSON.parse(String(m.data)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket error"));
  });
  ws.send(JSON.stringify({ type: "auth", token: account.token }));
  await waitFor(() => frames.find((f) => f.type === "ready"), (f) => !!f, 10_000, 5);
  return { ws, frames };
}

test("both processes run the jobs runner: the event log's pruning is queued once for the installation and run by one of them", async () => {
  const job = await waitFor(() => findJob(a.ctx, "events.prune"), (j) => !!j && j.result !== null, 10_000, 20);
  expect(job).toMatchObject({ kind: "events.prune", state: "pending", attempts: 0, result: { deleted: 0 } });
  const [counted] = await a.ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE kind = 'events.prune'`);
  expect(counted!.n).toBe(1);
  expect(a.logs.concat(b.logs).filter((l) => l.startsWith("jobs:"))).toEqual([]);
});

/** A change of a campaign's threads: its frame carries the payload as it is, reading no other record. */
const threadsChanged = (server: TestServer, userId: string, campaignId: string) =>
  appendEvent(server.ctx, { userId, type: "conversation.updated", subject: { kind: "campaign", id: campaignId }, payload: { state: "archived" } });

test("a socket on one process receives an event appended on the other within 2 s", async () => {
  const owner = await a.signUpVerified();
  const socket = await socketOn(b, owner);
  try {
    const started = performance.now();
    const id = await threadsChanged(a, owner.user.id, "k1");
    const frame = await waitFor(() => socket.frames.find((f) => f.eventId === id), (f) => !!f, 2000, 5);
    const ms = performance.now() - started;
    expect(frame).toEqual({ type: "conversation_updated", eventId: id, conversationId: null, campaignId: "k1", changes: { state: "archived" } });
    expect(ms).toBeLessThan(2000);
    console.log(`processes-postgres: appended on A, received on B after ${ms.toFixed(1)} ms`);
  } finally {
    socket.ws.close();
  }
});

test("an event whose transaction commits after a later one's is not passed over: the socket gets both, in the log's order", async () => {
  const owner = await a.signUpVerified();
  const socket = await socketOn(b, owner);
  try {
    let commit: () => void = () => {};
    const held = new Promise<void>((resolve) => (commit = resolve));
    let first = 0;
    let appended: () => void = () => {};
    const firstAppended = new Promise<void>((resolve) => (appended = resolve));
    // A's transaction takes its id first and commits last.
    const transaction = a.ctx.withTransaction(async () => {
      first = await threadsChanged(a, owner.user.id, "first");
      appended();
      await held;
    });
    await firstAppended;
    const second = await threadsChanged(b, owner.user.id, "second");
    expect(second).toBeGreaterThan(first);
    // B's hub was told of the second (its own append, and the notification): it holds it behind the first, in flight.
    await Bun.sleep(300);
    expect(socket.frames.filter((f) => f.type === "conversation_updated")).toEqual([]);
    commit();
    await transaction;
    await waitFor(() => socket.frames.filter((f) => f.type === "conversation_updated").length, (n) => n >= 2, 2000, 5);
    expect(socket.frames.filter((f) => f.type === "conversation_updated").map((f) => [f.eventId, f.campaignId])).toEqual([
      [first, "first"],
      [second, "second"],
    ]);
  } finally {
    socket.ws.close();
  }
});

test("an event rolled back leaves no gap that holds the later ones for long", async () => {
  const owner = await a.signUpVerified();
  const socket = await socketOn(b, owner);
  try {
    await a.ctx
      .withTransaction(async () => {
        await threadsChanged(a, owner.user.id, "gone");
        throw new Error("the change failed");
      })
      .catch(() => {});
    const id = await threadsChanged(b, owner.user.id, "kept");
    await waitFor(() => socket.frames.find((f) => f.eventId === id), (f) => !!f, 2000, 5);
    expect(socket.frames.filter((f) => f.type === "conversation_updated").map((f) => f.campaignId)).toEqual(["kept"]);
  } finally {
    socket.ws.close();
  }
});
