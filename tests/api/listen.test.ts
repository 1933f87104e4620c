// A server listens before the program is loaded (src/listen.ts, issue 29 item 6): the executable's first 200 took
// 240-500 ms, the time to load every module and build the app. Until the app is ready the server answers its health
// check itself, as the route does; every other request waits for the app and is answered by it, never a 404 or a 500
// for having come early; a start that fails answers those waiting 503 and lets the data folder go.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { DataFolderBusyError } from "../../src/data-lock";
import { listen } from "../../src/listen";
import { instanceId } from "../../src/secrets/instance";
import { deriveKey } from "../../src/secrets/secret-key";
import { startServer } from "../../src/server";
import { VERSION } from "../../src/version";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const configIn = () => {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-listen-"));
  dirs.push(dir);
  return loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir, SMSDESK_DEV: "" }, []);
};
/** Whether `p` has settled after a few turns of the event loop. */
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await Bun.sleep(50);
  return done;
};

test("before the app is ready: the health check answers, other requests wait and are then served by the app", async () => {
  const config = configIn();
  const logs: string[] = [];
  const listening = listen(config, (line) => logs.push(line));
  const base = listening.url;
  // The public URL names the port the system chose.
  expect(config.publicUrl).toBe(`http://localhost:${listening.port}`);

  const health = await fetch(`${base}/api/health`);
  expect(health.status).toBe(200);
  expect(health.headers.get("content-type")).toContain("application/json");
  expect(health.headers.get("x-frame-options")).toBe("DENY");
  expect(await health.json()).toEqual({ status: "ok", version: VERSION, db: "ok", instance: instanceId(deriveKey(listening.master, "secrets")), process: `${hostname()}:${process.pid}` });
  const head = await fetch(`${base}/api/health`, { method: "HEAD" });
  expect([head.status, await head.text()]).toEqual([200, ""]);
  expect(logs.filter((l) => l.startsWith("GET /api/health 200") || l.startsWith("HEAD /api/health 200"))).toHaveLength(2);

  const user = fetch(`${base}/api/auth/user`);
  const page = fetch(`${base}/pricing`);
  const missing = fetch(`${base}/api/nope`);
  const signIn = fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: config.publicUrl },
    body: JSON.stringify({ email: "nobody@example.com", password: "not-the-password" }),
  });
  expect(await settled(user)).toBe(false);

  const server = await startServer(config, (line) => logs.push(line), undefined, listening);
  try {
    expect(server.url).toBe(base);
    expect((await user).status).toBe(401);
    expect((await page).status).toBe(200);
    expect((await missing).status).toBe(404);
    expect((await signIn).status).toBe(401);
    // The app's own health route from now on, the same answer.
    expect(await fetch(`${base}/api/health`).then((r) => r.json())).toEqual({
      status: "ok",
      version: VERSION,
      db: "ok",
      instance: instanceId(server.ctx.keys.secrets),
      process: `${hostname()}:${process.pid}`,
    });
    // Live updates: the socket's handlers are the app's.
    const ws = new WebSocket(`${base.replace("http", "ws")}/ws`);
    const closed = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)));
    await new Promise((resolve) => (ws.onopen = resolve));
    ws.send(JSON.stringify({ type: "auth", token: "not-a-session" }));
    expect(await closed).toBe(4401);
  } finally {
    await server.stop();
  }
});

test("a start that fails answers the requests that waited 503, and a second server may take the data folder", async () => {
  const config = configIn();
  const listening = listen(config, () => {});
  expect(() => listen({ ...config, port: 0 }, () => {})).toThrow(DataFolderBusyError);
  const waiting = fetch(`${listening.url}/api/auth/user`);
  expect(await settled(waiting)).toBe(false);
  const failing = startServer(config, () => {}, () => {
    throw new Error("a seam that fails");
  }, listening);
  await expect(failing).rejects.toThrow("a seam that fails");
  const answer = await waiting;
  expect([answer.status, ((await answer.json()) as { code: string }).code]).toEqual([503, "unavailable"]);
  const again = await startServer({ ...config, port: 0 }, () => {});
  expect((await fetch(`${again.url}/api/health`)).status).toBe(200);
  await again.stop();
});
