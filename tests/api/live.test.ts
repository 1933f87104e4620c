// Live updates over the WebSocket at /ws: who may connect, what it pushes from the event log, a reconnecting
// client's resume, and a slow reader that cannot hold up the others.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import net from "node:net";
import { appendEvents, lastEventId, pruneEvents, readEvents } from "../../src/events/events";
import { PUSH_PAGE, type LiveSocket, type SocketData } from "../../src/live/hub";
import { liveHubOf } from "../../src/live/socket";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  liveHubOf(t.ctx)!.authTimeoutMs = 300;
});
afterAll(() => t?.stop());

const wsUrl = () => t.url.replace("http:", "ws:") + "/ws";
const publicOrigin = () => new URL(t.ctx.config.publicUrl).origin;

type Frame = Record<string, any> & { type: string };

/** A socket that records every frame and its close. */
class Client {
  frames: Frame[] = [];
  closed: Promise<{ code: number; reason: string }>;
  opened: Promise<void>;
  readonly ws: WebSocket;
  constructor(headers: Record<string, string> = {}) {
    // Bun's client takes headers, as a browser sends its cookie and Origin.
    this.ws = new WebSocket(wsUrl(), { headers } as any);
    this.ws.onmessage = (m) => this.frames.push(JSON.parse(String(m.data)));
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error("socket error"));
    });
    this.closed = new Promise((resolve) => (this.ws.onclose = (e) => resolve({ code: e.code, reason: e.reason })));
  }
  send(msg: unknown) {
    this.ws.send(JSON.stringify(msg));
  }
  of(type: string) {
    return this.frames.filter((f) => f.type === type);
  }
  async next(match: (f: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
    return (await waitFor(() => this.frames.find(match), (f) => !!f, timeoutMs, 5))!;
  }
  /** The newest event id it has seen. */
  lastEventId() {
    return Math.max(0, ...this.frames.map((f) => f.eventId ?? f.lastEventId ?? 0));
  }
  close() {
    this.ws.close();
    return this.closed;
  }
}

const byCookie = (acc: Account, origin = publicOrigin()) => new Client({ cookie: `smsdesk_session=${acc.token}`, origin });

async function connect(acc: Account, lastEventId?: number) {
  const c = new Client();
  await c.opened;
  c.send({ type: "auth", token: acc.token, ...(lastEventId === undefined ? {} : { lastEventId }) });
  await c.next((f) => f.type === "ready" || f.type === "reset");
  return c;
}

/** A verified account with a simulator that delivers at once, its keyed webhook URL, and its sender number. */
async function sender() {
  const acc = await t.signUpVerified();
  // Campaigns to California numbers would otherwise wait for 8 AM there when the suite runs at night.
  expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
  const provider = await t.api("/api/sms-providers", { token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  expect(provider.status).toBe(201);
  await t.api(`/api/sms-providers/${provider.body.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 0 } } });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  const number = numbers.body.numbers[0].phoneNumber as string;
  expect((await t.api("/api/phone-numbers", { token: acc.token, body: { providerId: provider.body.id, phoneNumber: number, messagesPerSecond: 0 } })).status).toBe(201);
  return { acc, number, hookUrl: (provider.body.webhookUrl as string).replace(t.ctx.config.publicUrl, t.url) };
}

/** An inbound text through the provider's webhook, as the provider posts it. */
async function inbound(hookUrl: string, from: string, to: string, body: string) {
  const res = await fetch(hookUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ events: [{ type: "inbound", id: `IN-${crypto.randomUUID()}`, from, to, body }] }),
  });
  expect(res.status).toBe(200);
}

describe("who may connect", () => {
  test("the session cookie from the appliance's own page: ready at the newest event", async () => {
    const acc = await t.signUpVerified();
    const c = byCookie(acc);
    await c.opened;
    c.send({ type: "resume" });
    const ready = await c.next((f) => f.type === "ready");
    expect(ready).toEqual({ type: "ready", lastEventId: expect.any(Number) });
    expect(liveHubOf(t.ctx)!.socketCount(acc.user.id)).toBe(1);
    await c.close();
    await waitFor(() => liveHubOf(t.ctx)!.socketCount(acc.user.id), (n) => n === 0);
  });

  test("the token in the first message", async () => {
    const acc = await t.signUpVerified();
    const c = await connect(acc);
    expect(c.frames.map((f) => f.type)).toEqual(["ready"]);
    expect(liveHubOf(t.ctx)!.socketCount(acc.user.id)).toBe(1);
    await c.close();
  });

  test("a userId the client sends is not who it is: without a session the socket closes with 4401", async () => {
    const acc = await t.signUpVerified();
    const c = new Client();
    await c.opened;
    c.send({ type: "auth", userId: acc.user.id });
    expect(await c.closed).toEqual({ code: 4401, reason: "Sign in first" });
    expect(c.frames).toEqual([]);
  });

  test("a token that names no session closes with 4401", async () => {
    const c = new Client();
    await c.opened;
    c.send({ type: "auth", token: "not.a.token" });
    expect(await c.closed).toEqual({ code: 4401, reason: "Sign in again" });
  });

  test("no message within the auth timeout closes with 4401", async () => {
    const c = new Client();
    expect(await c.closed).toEqual({ code: 4401, reason: "Sign in first" });
  });

  test("a signed-out session's token closes with 4401", async () => {
    const acc = await t.signUpVerified();
    expect((await t.api("/api/auth/logout", { method: "POST", token: acc.token, body: {} })).status).toBe(200);
    const c = new Client();
    await c.opened;
    c.send({ type: "auth", token: acc.token });
    expect(await c.closed).toEqual({ code: 4401, reason: "Sign in again" });
  });

  test("the cookie from another site's page (or no Origin) is refused at the upgrade: 403", async () => {
    const acc = await t.signUpVerified();
    for (const origin of ["https://evil.example", null]) {
      const res = await fetch(t.url + "/ws", {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          cookie: `smsdesk_session=${acc.token}`,
          ...(origin ? { origin } : {}),
        },
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ message: `Cross-site request refused: open smsdesk at ${publicOrigin()}`, code: "csrf" });
    }
    expect(liveHubOf(t.ctx)!.socketCount(acc.user.id)).toBe(0);
  });
});

describe("what it pushes", () => {
  test("a simulator send: new_message outbound, then message_status sent and delivered; an inbound webhook: new_message; a read: conversation_updated", async () => {
    const { acc, number, hookUrl } = await sender();
    const c = await connect(acc);
    const sent = await t.api("/api/messages/send", { token: acc.token, body: { phone: "+14155550101", content: "Hello there" } });
    expect(sent.status).toBe(202);
    const messageId = sent.body.id;
    const queued = await c.next((f) => f.type === "new_message");
    expect(queued).toEqual({
      type: "new_message",
      eventId: expect.any(Number),
      conversationId: expect.any(Number),
      phone: "+14155550101",
      content: "Hello there",
      timestamp: sent.body.createdAt,
      direction: "outbound",
      message: expect.objectContaining({ id: messageId, phone: "+14155550101", content: "Hello there", direction: "outbound", kind: "single", seq: expect.any(Number) }),
      state: "open",
      unreadCount: 0,
    });
    const delivered = await c.next((f) => f.type === "message_status" && f.status === "delivered");
    const statuses = c.of("message_status");
    expect(statuses.map((f) => [f.status, f.messageId])).toEqual([
      ["sent", messageId],
      ["delivered", messageId],
    ]);
    expect(delivered).toEqual({ type: "message_status", eventId: expect.any(Number), status: "delivered", messageId, errorCode: null, errorMessage: null });

    await inbound(hookUrl, "+14155550123", number, "Is the shop open today?");
    const received = await c.next((f) => f.type === "new_message" && f.direction === "inbound");
    expect(received).toMatchObject({ phone: "+14155550123", content: "Is the shop open today?", direction: "inbound", state: "open", unreadCount: 1 });
    expect(received.message).toMatchObject({ content: "Is the shop open today?", status: "received" });
    expect(received.conversationId).not.toBe(queued.conversationId);

    // Reading the thread is a change of the thread: its unread count, on every socket of the account.
    expect((await t.api(`/api/conversations/${received.conversationId}/read`, { method: "POST", token: acc.token, body: {} })).status).toBe(200);
    const read = await c.next((f) => f.type === "conversation_updated");
    expect(read).toEqual({ type: "conversation_updated", eventId: expect.any(Number), conversationId: received.conversationId, changes: { lastReadSeq: received.message.seq, unreadCount: 0 } });
    const ids = c.frames.filter((f) => f.eventId).map((f) => f.eventId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    await c.close();
  });
});

describe("campaign progress", () => {
  test("a campaign through the simulator: message_status batches, and its progress up to completed with its counts", async () => {
    const { acc } = await sender();
    const c = await connect(acc);
    const created = await t.api("/api/campaigns", { token: acc.token, body: { type: "sms", name: "Sale", content: "Sale tonight", recipients: ["+14155550101", "+14155550102"] } });
    expect((await t.api(`/api/campaigns/${created.body.id}/send`, { method: "POST", token: acc.token, body: {} })).status).toBe(202);
    const done = await c.next((f) => f.type === "campaign_progress" && f.campaign.status === "completed" && f.campaign.counts.delivered === 2);
    expect(done.campaign).toMatchObject({ id: created.body.id, name: "Sale", counts: { recipients: 2, delivered: 2, failed: 0, pending: 0 } });
    const batches = c.of("message_status").filter((f) => f.campaignId === created.body.id);
    const delivered = batches.filter((f) => f.status === "delivered").flatMap((f) => f.messageIds);
    const ids = t.ctx.db.$client.query(`SELECT id FROM messages WHERE campaign_id = ? ORDER BY id`).all(created.body.id) as { id: string }[];
    expect(delivered.sort()).toEqual(ids.map((r) => r.id));
    const progress = c.of("campaign_progress").map((f) => f.eventId);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    await c.close();
  });
});

describe("reconnecting", () => {
  test("a socket dropped while 50 messages arrive: resumed from its last event id, it has all 50, in order, once each", async () => {
    const { acc, number, hookUrl } = await sender();
    const first = await connect(acc);
    for (let i = 1; i <= 10; i++) await inbound(hookUrl, "+14155550140", number, `Message ${i}`);
    await first.next((f) => f.content === "Message 10");
    await first.close();
    for (let i = 11; i <= 50; i++) await inbound(hookUrl, "+14155550140", number, `Message ${i}`);

    const second = await connect(acc, first.lastEventId());
    await second.next((f) => f.content === "Message 50");
    expect(second.frames[0]).toMatchObject({ type: "new_message", content: "Message 11" });
    const frames = [...first.of("new_message"), ...second.of("new_message")];
    expect(frames.map((f) => f.content)).toEqual(Array.from({ length: 50 }, (_, i) => `Message ${i + 1}`));
    const ids = frames.map((f) => f.eventId);
    expect(new Set(ids).size).toBe(50);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // Nothing but the 50 and the ready frame, which says where live frames begin.
    expect(second.frames.map((f) => f.type)).toEqual([...Array(40).fill("new_message"), "ready"]);
    expect(second.frames.at(-1)).toEqual({ type: "ready", lastEventId: expect.any(Number) });
    expect(second.frames.at(-1)!.lastEventId).toBeGreaterThanOrEqual(ids.at(-1)!);
    await second.close();
  });

  test("a client further back than the log keeps, or ahead of it, is told to refetch: reset at the newest event", async () => {
    const acc = await t.signUpVerified();
    const ahead = await connect(acc, 1e12);
    expect(ahead.frames).toEqual([{ type: "reset", lastEventId: expect.any(Number) }]);
    await ahead.close();
    // Everything older than now is pruned, as the retention job does after the kept days.
    await pruneEvents(t.ctx, Date.now() + 1);
    const behind = await connect(acc, 1);
    expect(behind.frames).toEqual([{ type: "reset", lastEventId: await lastEventId(t.ctx) }]);
    await behind.close();
  });
});

describe("a slow reader", () => {
  test("is closed once its unsent frames pass the limit; another socket of the account gets every frame meanwhile", async () => {
    const { acc, number, hookUrl } = await sender();
    await inbound(hookUrl, "+14155550141", number, "x".repeat(1600));
    // The event that put the 1.6 KB text into its thread, appended again and again below: each makes a frame.
    const [attached] = await readEvents(t.ctx, { afterId: 0, userId: acc.user.id, types: ["conversation.updated"], limit: 10 });
    const fast = await connect(acc);
    liveHubOf(t.ctx)!.stallLimitMs = 300;

    // A browser tab that stopped reading: the upgrade by cookie, then nothing read off the socket again.
    const slow = connectRaw(`smsdesk_session=${acc.token}`);
    await slow.upgraded;
    await waitFor(() => liveHubOf(t.ctx)!.socketCount(acc.user.id), (n) => n === 2);

    // 3,000 frames of 1.8 KB: more than the kernel's buffers take, so the slow socket's own buffer fills.
    const n = 3000;
    const started = performance.now();
    await t.ctx.withTransaction(() =>
      appendEvents(t.ctx, Array.from({ length: n }, () => ({ userId: acc.user.id, type: "conversation.updated" as const, subject: attached!.subject, payload: attached!.payload }))),
    );
    await waitFor(() => fast.of("new_message").length, (k) => k === n, 10_000, 5);
    const elapsed = performance.now() - started;
    // The slow one, stalled since its buffer filled, is closed once it stayed so for the stall limit.
    await waitFor(() => liveHubOf(t.ctx)!.socketCount(acc.user.id), (k) => k === 1, 5000);
    expect(fast.ws.readyState).toBe(WebSocket.OPEN);
    const ids = fast.of("new_message").map((f) => f.eventId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(elapsed).toBeLessThan(5000);
    slow.socket.destroy();
    await fast.close();
  });
});

/** A WebSocket upgrade over a plain TCP socket that then stops reading (node:net's pause). */
function connectRaw(cookie: string) {
  const socket = net.connect(Number(new URL(t.url).port), "127.0.0.1");
  const upgraded = new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.once("connect", () =>
      socket.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
          `Sec-WebSocket-Version: 13\r\nCookie: ${cookie}\r\nOrigin: ${publicOrigin()}\r\n\r\n`,
      ),
    );
    socket.once("data", (chunk: Buffer) => {
      if (!chunk.toString().startsWith("HTTP/1.1 101")) return reject(new Error(chunk.toString()));
      socket.pause();
      resolve();
    });
  });
  return { socket, upgraded };
}

describe("a socket joining an account with a backlog", () => {
  test(`brings the account up to date one page (${PUSH_PAGE} events) at a time: the join publishes one, the rest follow a page per turn, the first socket gets all 1,000 in order once`, async () => {
    const acc = await t.signUpVerified();
    const first = await connect(acc);
    const hub = liveHubOf(t.ctx)!;
    // A second socket of the account, joined while the transaction of 1,000 events is open (before the hub's own
    // pass, which the commit asks for): a stand-in for Bun's socket that records what the hub sends it.
    const sent: Frame[] = [];
    const second = {
      data: { userId: null, token: acc.token, checkedAt: Date.now(), sent: 0, stalledAt: null, greeted: false, live: false, authTimer: null } satisfies SocketData,
      readyState: 1,
      send: (json: string) => void sent.push(JSON.parse(json)),
      subscribe: () => {},
      unsubscribe: () => {},
      getBufferedAmount: () => 0,
      close: () => {},
    } as unknown as LiveSocket;
    const before = { ...hub.pushed };
    let begun!: () => void;
    const open = new Promise<void>((resolve) => (begun = resolve));
    const committed = t.ctx.withTransaction(() => {
      begun();
      return appendEvents(
        t.ctx,
        Array.from({ length: 1000 }, (_, n) => ({ userId: acc.user.id, type: "conversation.updated" as const, subject: { kind: "conversation" as const, id: "1" }, payload: { state: "open", n } })),
      );
    });
    await open;
    // The join is the hub's turn of work queued before the pass the commit asks for; its reads wait for the commit.
    hub.join(second, acc.user.id, null);
    const joined = hub.idle();
    const ids = await committed;
    await joined;
    expect([hub.pushed.events - before.events, hub.pushed.pages - before.pages]).toEqual([PUSH_PAGE, 1]);
    // It starts where the account stands after that page; what follows reaches it published.
    expect(sent).toEqual([{ type: "ready", lastEventId: ids[PUSH_PAGE - 1] }]);

    const got = await waitFor(() => first.of("conversation_updated").filter((f) => f.changes.n !== undefined), (f) => f.length >= 1000);
    expect(got.map((f) => f.changes.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    expect([hub.pushed.events - before.events, hub.pushed.pages - before.pages]).toEqual([1000, 5]);
    hub.leave(second);
    await first.close();
  });
});
