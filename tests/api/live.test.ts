// Live updates over the WebSocket at /ws: who may connect, what it pushes from the event log, a reconnecting
// client's resume, and a slow reader that cannot hold up the others.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendEvent } from "../../src/events/events";
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
  test("a simulator send: new_message outbound, then message_status sent and delivered; an inbound webhook: new_message", async () => {
    const { acc, number, hookUrl } = await sender();
    const c = await connect(acc);
    const sent = await t.api("/api/messages/send", { token: acc.token, body: { phone: "+14155550101", content: "Hello there" } });
    expect(sent.status).toBe(202);
    const messageId = sent.body.id;
    const queued = await c.next((f) => f.type === "new_message");
    expect(queued).toEqual({
      type: "new_message",
      eventId: expect.any(Number),
      messageId,
      conversationId: null,
      contactId: null,
      phone: "+14155550101",
      content: "Hello there",
      timestamp: expect.any(String),
      direction: "outbound",
      status: expect.any(String),
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
    expect(received).toMatchObject({ phone: "+14155550123", content: "Is the shop open today?", direction: "inbound", status: "received" });
    const ids = c.frames.filter((f) => f.eventId).map((f) => f.eventId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    await c.close();
  });
});
