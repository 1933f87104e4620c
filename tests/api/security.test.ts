// Security review (issue 18 round): what an attacker gains from each flow, one test per finding, each failing
// before its fix.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { liveHubOf } from "../../src/live/socket";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  liveHubOf(t.ctx)!.authTimeoutMs = 300;
});
afterAll(() => t?.stop());

const wsUrl = () => t.url.replace("http:", "ws:") + "/ws";

/** An authenticated socket (token in the first message) and its close. */
async function socketOf(acc: Account) {
  const ws = new WebSocket(wsUrl());
  const frames: string[] = [];
  ws.onmessage = (m) => frames.push(String(m.data));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (ws.onclose = (e) => resolve({ code: e.code, reason: e.reason })));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket error"));
  });
  ws.send(JSON.stringify({ type: "auth", token: acc.token }));
  await waitFor(() => frames.some((f) => f.includes('"ready"')), (ok) => ok);
  return { ws, closed };
}

describe("WebSocket sessions", () => {
  test("signing out closes the session's socket at once, not at its next push a minute later", async () => {
    const acc = await t.signUpVerified();
    const s = await socketOf(acc);
    expect((await t.api("/api/auth/logout", { method: "POST", token: acc.token })).status).toBe(200);
    const outcome = await Promise.race([s.closed, Bun.sleep(2000).then(() => "still open")]);
    expect(outcome).toEqual({ code: 4401, reason: "Session ended" });
  });

  test("'sign out of all other sessions' closes the other sessions' sockets and keeps the current one", async () => {
    const acc = await t.signUpVerified();
    const other = await t.login(acc.user.email);
    const mine = await socketOf(acc);
    const theirs = await socketOf(other);
    expect((await t.api("/api/auth/sessions/revoke-others", { method: "POST", token: acc.token })).body).toEqual({ success: true, revoked: 1 });
    expect(await Promise.race([theirs.closed, Bun.sleep(2000).then(() => "still open")])).toEqual({ code: 4401, reason: "Session ended" });
    expect(mine.ws.readyState).toBe(WebSocket.OPEN);
    expect(liveHubOf(t.ctx)!.socketCount(acc.user.id)).toBe(1);
    mine.ws.close();
  });
});
