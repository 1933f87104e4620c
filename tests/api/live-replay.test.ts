// Sockets resuming behind the log (issue 27 item 7): an account's sockets share the replay pages they walk (the log
// read and its frames built once, not once per socket), and an account starts at most REPLAYS_PER_MINUTE replays a
// minute; past that a socket is told to reload (reset, reason replay_limit) and goes live from the newest event.
// The per-minute cap and the pages' lifetime run on the server's clock, moved by hand here.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendEvents, lastEventId } from "../../src/events/events";
import { PUSH_PAGE, REPLAY_PAGE_TTL_MS, REPLAYS_PER_MINUTE } from "../../src/live/hub";
import { liveHubOf } from "../../src/live/socket";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

let t: TestServer;
/** The server's clock (ctx.now), which only the test moves. */
let clock = Date.now();
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  t.ctx.now = () => clock;
});
afterAll(() => t?.stop());

type Frame = Record<string, any> & { type: string };

/** A socket of the account (resuming after `lastEventId`), past its ready or reset, recording every frame. */
async function connect(acc: Account, lastEventId: number) {
  const frames: Frame[] = [];
  const ws = new WebSocket(t.url.replace("http:", "ws:") + "/ws");
  ws.onmessage = (m) => frames.push(JSON.parse(String(m.data)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket error"));
  });
  ws.send(JSON.stringify({ type: "auth", token: acc.token, lastEventId }));
  await waitFor(() => frames.some((f) => f.type === "ready" || f.type === "reset"), (ok) => ok);
  const closed = new Promise<void>((resolve) => (ws.onclose = () => resolve()));
  return { frames, close: () => (ws.close(), closed) };
}

/** `n` events of the account that each become a conversation_updated frame carrying its number. */
function appendMany(userId: string, n: number): Promise<number[]> {
  return t.ctx.withTransaction(() =>
    appendEvents(
      t.ctx,
      Array.from({ length: n }, (_, i) => ({ userId, type: "conversation.updated" as const, subject: { kind: "conversation" as const, id: "1" }, payload: { state: "closed", n: i } })),
    ),
  );
}

const numbered = (frames: Frame[]) => frames.filter((f) => f.type === "conversation_updated").map((f) => f.changes.n as number);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("replay pages shared between an account's sockets", () => {
  test(`three sockets resuming from the same event read the log once: ${1000 / PUSH_PAGE} pages built, ${(2 * 1000) / PUSH_PAGE} handed on, each socket all 1,000 in order then ready`, async () => {
    const acc = await t.signUpVerified();
    const from = await lastEventId(t.ctx);
    const ids = await appendMany(acc.user.id, 1000);
    const hub = liveHubOf(t.ctx)!;
    const built = { ...hub.replayed };
    const shared = hub.replayShared.pages;
    const sockets = await Promise.all([0, 1, 2].map(() => connect(acc, from)));
    for (const s of sockets) {
      expect(numbered(s.frames)).toEqual(range(0, 1000));
      expect(s.frames.at(-1)).toEqual({ type: "ready", lastEventId: ids.at(-1)! });
      expect(s.frames.length).toBe(1001);
    }
    expect([hub.replayed.pages - built.pages, hub.replayed.events - built.events]).toEqual([5, 1000]);
    expect(hub.replayShared.pages - shared).toBe(10);
    await Promise.all(sockets.map((s) => s.close()));
  });

  test("a socket resuming from inside a page another socket built gets only what follows its event, from that page", async () => {
    const acc = await t.signUpVerified();
    const from = await lastEventId(t.ctx);
    const ids = await appendMany(acc.user.id, 300);
    const hub = liveHubOf(t.ctx)!;
    const first = await connect(acc, from);
    expect(numbered(first.frames)).toEqual(range(0, 300));
    const built = hub.replayed.pages;
    // After event 150: inside the first page (events 0-199) the first socket walked.
    const second = await connect(acc, ids[150]!);
    expect(numbered(second.frames)).toEqual(range(151, 300));
    expect(second.frames.at(-1)).toEqual({ type: "ready", lastEventId: ids.at(-1)! });
    expect(hub.replayed.pages - built).toBe(0);
    await Promise.all([first.close(), second.close()]);
  });

  test(`a page older than ${REPLAY_PAGE_TTL_MS / 1000} s is read from the log again`, async () => {
    const acc = await t.signUpVerified();
    const from = await lastEventId(t.ctx);
    await appendMany(acc.user.id, 50);
    const hub = liveHubOf(t.ctx)!;
    const first = await connect(acc, from);
    const built = hub.replayed.pages;
    clock += REPLAY_PAGE_TTL_MS;
    const second = await connect(acc, from);
    expect(numbered(second.frames)).toEqual(range(0, 50));
    expect(hub.replayed.pages - built).toBe(1);
    await Promise.all([first.close(), second.close()]);
  });
});

describe(`at most ${REPLAYS_PER_MINUTE} replays per account per minute`, () => {
  test("the next resume in the minute is told to reload (reset, replay_limit) and gets live frames from the newest event; a minute later replays are allowed again; another account is not held", async () => {
    const acc = await t.signUpVerified();
    const other = await t.signUpVerified();
    const from = await lastEventId(t.ctx);
    await appendMany(acc.user.id, 3);
    const hub = liveHubOf(t.ctx)!;
    const refused = hub.replayShared.refused;
    // Each replay on its own socket, closed before the next: the count is the account's, not a socket's.
    for (let i = 0; i < REPLAYS_PER_MINUTE; i++) {
      const s = await connect(acc, from);
      expect(numbered(s.frames)).toEqual([0, 1, 2]);
      await s.close();
      clock += 1000;
    }
    const cursor = await lastEventId(t.ctx);
    const limited = await connect(acc, from);
    expect(limited.frames).toEqual([{ type: "reset", reason: "replay_limit", lastEventId: cursor }]);
    expect(hub.replayShared.refused - refused).toBe(1);
    // Live from there: the next event reaches it.
    const [next] = await appendMany(acc.user.id, 1);
    await waitFor(() => limited.frames.length, (n) => n === 2);
    expect(limited.frames[1]).toEqual({ type: "conversation_updated", eventId: next!, conversationId: 1, changes: { state: "closed", n: 0 } });
    await limited.close();

    // A socket that resumes at the newest event replays nothing and is not counted.
    const current = await connect(acc, await lastEventId(t.ctx));
    expect(current.frames).toEqual([{ type: "ready", lastEventId: await lastEventId(t.ctx) }]);
    await current.close();

    // Another account's replay in the same minute.
    const otherFrom = await lastEventId(t.ctx);
    await appendMany(other.user.id, 2);
    const others = await connect(other, otherFrom);
    expect(numbered(others.frames)).toEqual([0, 1]);
    await others.close();

    // The first replay of the run is a minute old 1 ms before its 60th second: still refused; at it, allowed.
    clock += 60_000 - REPLAYS_PER_MINUTE * 1000 - 1;
    const still = await connect(acc, from);
    expect(still.frames[0]).toMatchObject({ type: "reset", reason: "replay_limit" });
    await still.close();
    clock += 1;
    const again = await connect(acc, from);
    expect(numbered(again.frames)).toEqual([0, 1, 2, 0]);
    expect(again.frames.at(-1)).toMatchObject({ type: "ready" });
    await again.close();
    expect(hub.replayShared.refused - refused).toBe(2);
  });
});
