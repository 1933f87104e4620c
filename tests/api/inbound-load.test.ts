// The inbound path under load (issue 13's 200 webhooks a second): each webhook compiles no SQL once its
// statements are prepared, and the event log's readers (the WebSocket hub, automation rules) work a backlog off in
// bounded pages with the event loop turning between them, so webhooks are answered while a backlog drains.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendEvents, lastEventId, PRUNE_BATCH, readCursor } from "../../src/events/events";
import { pauseJobRunner, resumeJobRunner, runDueJobs } from "../../src/jobs/jobs";
import { PUSH_PAGE } from "../../src/live/hub";
import { liveHubOf } from "../../src/live/socket";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

type Frame = Record<string, any> & { type: string };

/** A socket of the account (resuming after `lastEventId` when given), past its `ready`, recording every frame. */
async function connect(acc: Account, lastEventId?: number) {
  const frames: Frame[] = [];
  const ws = new WebSocket(t.url.replace("http:", "ws:") + "/ws");
  ws.onmessage = (m) => frames.push(JSON.parse(String(m.data)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket error"));
  });
  ws.send(JSON.stringify({ type: "auth", token: acc.token, ...(lastEventId === undefined ? {} : { lastEventId }) }));
  await waitFor(() => frames.some((f) => f.type === "ready"), (ok) => ok);
  return { frames, close: () => ws.close() };
}

/** The account's simulator webhook URL (keyed) and its sender number. */
async function simulator(acc: Account) {
  const provider = await t.api("/api/sms-providers", { token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  expect(provider.status).toBe(201);
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  const number = numbers.body.numbers[0].phoneNumber as string;
  expect((await t.api("/api/phone-numbers", { token: acc.token, body: { providerId: provider.body.id, phoneNumber: number } })).status).toBe(201);
  return { hookUrl: (provider.body.webhookUrl as string).replace(t.ctx.config.publicUrl, t.url), number };
}

const conversationEvent = (userId: string, n: number) =>
  ({ userId, type: "conversation.updated", subject: { kind: "conversation", id: "1" }, payload: { state: "closed", n } }) as const;

describe("the inbound webhook's statements", () => {
  test("are prepared once: after two messages from a phone, 20 more (a contact's texts, no keyword) compile no SQL, read no body through a stream reader, and each is pushed to the socket", async () => {
    const acc = await t.signUpVerified();
    const { hookUrl, number } = await simulator(acc);
    const socket = await connect(acc);
    const post = async (i: number) => {
      const res = await fetch(hookUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ events: [{ type: "inbound", id: `LOAD-${i}`, from: "+14155550177", to: number, body: `Text ${i}` }] }),
      });
      expect(res.status).toBe(200);
    };
    // The first creates the contact and the thread, the second is the first from a contact: between them they
    // prepare every statement the path uses.
    await post(0);
    await post(1);
    const client = t.ctx.db.$client;
    const prepare = client.prepare;
    const compiled: string[] = [];
    // drizzle compiles each query it runs unprepared through the connection's prepare(); bun:sqlite's query()
    // (cached by its text) and the statements prepared once do not come back here.
    client.prepare = ((sql: string, ...rest: unknown[]) => {
      // The path: the webhook's handler and what its commit runs (the hub's push, automation rules). The jobs
      // runner's readers (drips, outbound webhooks) may take a turn meanwhile; they are not the path.
      if (/webhook-routes\.ts|live\/hub\.ts|automation\/runner\.ts/.test(new Error().stack ?? "")) compiled.push(sql);
      return (prepare as (...a: unknown[]) => unknown).call(client, sql, ...rest);
    }) as typeof client.prepare;
    // A body of declared length is read whole: Bun's stream reader takes a 256 KB buffer per request.
    const getReader = ReadableStream.prototype.getReader;
    let readers = 0;
    ReadableStream.prototype.getReader = function (this: ReadableStream, ...args: unknown[]) {
      readers++;
      return (getReader as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof getReader;
    try {
      for (let i = 2; i < 22; i++) await post(i);
      const texts = await waitFor(
        () => socket.frames.filter((f) => f.type === "new_message").map((f) => f.content),
        (c) => c.length === 22,
      );
      expect(texts).toEqual(Array.from({ length: 22 }, (_, i) => `Text ${i}`));
    } finally {
      client.prepare = prepare;
      ReadableStream.prototype.getReader = getReader;
      socket.close();
    }
    expect(compiled).toEqual([]);
    expect(readers).toBe(0);
  });
});

describe("a backlog of 5,000 events", () => {
  test(`goes to the socket in pages of ${PUSH_PAGE}, the event loop turning after each: all 5,000 in order, once each`, async () => {
    const acc = await t.signUpVerified();
    const socket = await connect(acc);
    const hub = liveHubOf(t.ctx)!;
    const before = { ...hub.pushed };
    let atFirstTurn = -1;
    await t.ctx.withTransaction(() => appendEvents(t.ctx, Array.from({ length: 5000 }, (_, n) => conversationEvent(acc.user.id, n))));
    // Queued before the hub's first page (a microtask after the commit) and so run right after it, ahead of the
    // hub's own next turn: what one turn of the event loop published.
    setImmediate(() => (atFirstTurn = hub.pushed.events - before.events));
    const got = await waitFor(
      () => socket.frames.filter((f) => f.type === "conversation_updated" && f.changes.n !== undefined),
      (f) => f.length >= 5000,
    );
    socket.close();
    expect(atFirstTurn).toBe(200);
    expect(hub.pushed.events - before.events).toBe(5000);
    expect(hub.pushed.pages - before.pages).toBe(25);
    expect(hub.pushed.largestPage).toBe(200);
    expect(got.map((f) => f.changes.n)).toEqual(Array.from({ length: 5000 }, (_, n) => n));
  });

  test(`goes to a socket resuming from before it in pages of ${PUSH_PAGE}: all 5,000 in order, once each, then ready`, async () => {
    const acc = await t.signUpVerified();
    const from = await lastEventId(t.ctx);
    const ids = await t.ctx.withTransaction(() => appendEvents(t.ctx, Array.from({ length: 5000 }, (_, n) => conversationEvent(acc.user.id, n))));
    const hub = liveHubOf(t.ctx)!;
    const before = { ...hub.replayed };
    const socket = await connect(acc, from);
    socket.close();
    const frames = socket.frames.filter((f) => f.type === "conversation_updated" || f.type === "ready");
    expect(frames.at(-1)).toEqual({ type: "ready", lastEventId: ids.at(-1)! });
    expect(frames.slice(0, -1).map((f) => f.changes.n)).toEqual(Array.from({ length: 5000 }, (_, n) => n));
    expect(hub.replayed.events - before.events).toBe(5000);
    expect(hub.replayed.pages - before.pages).toBe(25);
    expect(hub.replayed.largestPage).toBe(200);
  });

  test("is read by automation rules at most 200 events a turn: the first cursor it saves stands within the first 200, at the last one in the end", async () => {
    const acc = await t.signUpVerified();
    // The reader reads only the types an active rule waits for (a log with no rule is skipped to its head at once).
    const rule = await t.api("/api/automation-rules", { method: "POST", token: acc.token, body: { name: "Welcome", trigger: "contact_created", actions: { addTags: ["new"] } } });
    expect(rule.status).toBe(201);
    const before = await readCursor(t.ctx, "automation.rules");
    const ids = await t.ctx.withTransaction(() =>
      appendEvents(
        t.ctx,
        Array.from({ length: 5000 }, (_, n) => ({ userId: acc.user.id, type: "contact.created" as const, subject: { kind: "contact" as const, id: `c${n}` }, payload: { source: "inbound" } })),
      ),
    );
    // The cursor as it stands at each turn of the event loop, until it has moved: the reader's first chunk (woken by
    // the commit, its transaction queued behind the other readers') commits in a turn of its own.
    let firstMoved = before;
    while (firstMoved === before) {
      await new Promise((resolve) => setImmediate(resolve));
      firstMoved = await readCursor(t.ctx, "automation.rules");
    }
    const end = await waitFor(() => readCursor(t.ctx, "automation.rules"), (c) => c >= ids.at(-1)!);
    // A reader may stop short of its chunk (a time budget), never past it.
    const firstChunk = ids.indexOf(firstMoved);
    expect(firstChunk).toBeGreaterThanOrEqual(0);
    expect(firstChunk).toBeLessThanOrEqual(199);
    expect(end).toBe(ids.at(-1)!);
  });
});

describe("pruning the event log", () => {
  test(`deletes ${PRUNE_BATCH.toLocaleString("en-US")} old events per run of its job, due again at once while more are left, then a day later`, async () => {
    const DAY = 86_400_000;
    const db = t.ctx.db.$client;
    const job = () => db.query(`SELECT state, run_at FROM jobs WHERE key = 'events.prune'`).get() as { state: string; run_at: number };
    const realNow = t.ctx.now;
    const due = job().run_at;
    const acc = await t.signUpVerified();
    // Older than the 30 days kept.
    const old = () => (db.query(`SELECT count(*) AS n FROM events WHERE created_at < ?`).get(due - 30 * DAY) as { n: number }).n;
    // The app's own runner would take the job again the moment a pass puts it back due: the test drives the passes.
    expect(await pauseJobRunner(t.ctx, 10_000)).toBe(true);
    try {
      t.ctx.now = () => due - 60 * DAY;
      await t.ctx.withTransaction(() =>
        appendEvents(t.ctx, Array.from({ length: 12_000 }, (_, n) => ({ userId: acc.user.id, type: "contact.created" as const, subject: { kind: "contact" as const, id: `old${n}` } }))),
      );
      t.ctx.now = () => due;
      const runs: [number, { state: string; run_at: number }][] = [];
      for (let i = 0; i < 3; i++) {
        await (await runDueJobs(t.ctx)).settled;
        runs.push([old(), job()]);
      }
      expect(runs).toEqual([
        [7_000, { state: "pending", run_at: due }],
        [2_000, { state: "pending", run_at: due }],
        [0, { state: "pending", run_at: due + DAY }],
      ]);
    } finally {
      t.ctx.now = realNow;
      resumeJobRunner(t.ctx);
    }
  });
});
