// Security review (issue 18 round): what an attacker gains from each flow, one test per finding, each failing
// before its fix.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractArchive, writeArchive } from "../../src/backups/archive";
import { createBackup, restoreBackup, verifyArchive } from "../../src/backups/backups";
import { applyUserAction } from "../../src/admin/users";
import { grantLicense } from "../../src/licenses/licenses";
import { MAX_WORKING_KEYS } from "../../src/api-keys/keys";
import { loadConfig } from "../../src/config";
import { appendEvent } from "../../src/events/events";
import { runDueJobs } from "../../src/jobs/jobs";
import { createEndpoint, startOutboundWebhooks } from "../../src/outbound-webhooks/webhooks";
import { openAppContext } from "../../src/server";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { liveHubOf, liveLimitsOf } from "../../src/live/socket";
import { ERROR_REPORTS_PER_ACCOUNT_PER_DAY, ERROR_REPORTS_PER_DAY } from "../../src/error-reports/reports";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";
import { receiversStandFor } from "../support/webhook-network";

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
    expect((await t.api("/api/auth/sessions/revoke-others", { method: "POST", token: acc.token })).body).toEqual({ success: true, revoked: 1, credentials: { revoked: [], kept: [], summary: "" } });
    expect(await Promise.race([theirs.closed, Bun.sleep(2000).then(() => "still open")])).toEqual({ code: 4401, reason: "Session ended" });
    expect(mine.ws.readyState).toBe(WebSocket.OPEN);
    expect(liveHubOf(t.ctx)!.socketCount(acc.user.id)).toBe(1);
    mine.ws.close();
  });
});

/** A raw upgrade request: the server's answer when it refuses the socket. */
const upgradeStatus = async () =>
  (
    await fetch(t.url + "/ws", {
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" },
    })
  ).status;

/** A socket that never authenticates. */
async function idleSocket() {
  const ws = new WebSocket(wsUrl());
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (ws.onclose = (e) => resolve({ code: e.code, reason: e.reason })));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("socket error"));
  });
  return { ws, closed };
}

describe("WebSocket bounds", () => {
  test("sockets awaiting sign-in are capped per address: the next upgrade answers 429 until one goes", async () => {
    const limits = liveLimitsOf(t.ctx)!;
    const saved = { ...limits };
    limits.pendingPerAddress = 3;
    liveHubOf(t.ctx)!.authTimeoutMs = 5000;
    try {
      const idle = await Promise.all([idleSocket(), idleSocket(), idleSocket()]);
      expect(await upgradeStatus()).toBe(429);
      idle[0]!.ws.close();
      await idle[0]!.closed;
      const again = await waitFor(() => idleSocket().catch(() => null), (s) => !!s);
      for (const s of [...idle.slice(1), again!]) s.ws.close();
    } finally {
      Object.assign(limits, saved);
      liveHubOf(t.ctx)!.authTimeoutMs = 300;
    }
  });

  test("sockets per account are capped: one past the cap closes with 4429", async () => {
    const limits = liveLimitsOf(t.ctx)!;
    const saved = { ...limits };
    limits.perAccount = 2;
    try {
      const acc = await t.signUpVerified();
      const open = [await socketOf(acc), await socketOf(acc)];
      const extra = await idleSocket();
      extra.ws.send(JSON.stringify({ type: "auth", token: acc.token }));
      expect(await extra.closed).toEqual({ code: 4429, reason: "Too many connections for this account" });
      expect(liveHubOf(t.ctx)!.socketCount(acc.user.id)).toBe(2);
      for (const s of open) s.ws.close();
    } finally {
      Object.assign(limits, saved);
    }
  });
});

describe("backup archives from outside", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "smsdesk-security-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const archive = (name: string, entries: { name: string; data: Uint8Array }[]) => {
    const path = join(dir, name);
    writeArchive(path, entries, Date.now());
    return path;
  };
  const zeros = (n: number) => new Uint8Array(n);

  test("an entry larger than its bound is refused from its header, before a byte is written (a gzip bomb fills no disk)", async () => {
    const path = archive("bomb.tar.gz", [{ name: "smsdesk.db", data: zeros(64 * 1024) }]);
    const target = join(dir, "db-out");
    const refused = await extractArchive(path, { toFile: { "smsdesk.db": { path: target, maxBytes: 4096 } }, toMemory: {} }).catch((e: Error) => e.message);
    expect(refused).toBe("The archive's smsdesk.db is 65,536 bytes, more than the 4,096 it may be here");
    expect(existsSync(target)).toBe(false);
  });

  test("a secret.key of more than a key's size is refused", async () => {
    const path = archive("key.tar.gz", [{ name: "secret.key", data: zeros(2048) }]);
    const refused = await verifyArchive(dir, path).catch((e: Error) => e.message);
    expect(refused).toBe("The archive's secret.key is 2,048 bytes, more than the 1,024 it may be here");
  });

  test("files a backup does not hold are skipped up to 16 MB in all and 64 entries, then the archive is refused", async () => {
    const big = archive("unknown.tar.gz", [
      { name: "a.bin", data: zeros(10 * 1024 * 1024) },
      { name: "b.bin", data: zeros(10 * 1024 * 1024) },
    ]);
    expect(await verifyArchive(dir, big).catch((e: Error) => e.message)).toBe("The archive holds more than a backup does (b.bin and others)");
    const many = archive("many.tar.gz", Array.from({ length: 65 }, (_, i) => ({ name: `f${i}.txt`, data: zeros(1) })));
    expect(await verifyArchive(dir, many).catch((e: Error) => e.message)).toBe("The archive holds more than a backup does (f64.txt and others)");
    // Nothing of the refused archives is left in the staging area.
    expect(readdirSync(join(dir, "backups")).filter((n) => n.startsWith(".staging-"))).toEqual([]);
  });
});

describe("API keys", () => {
  test("an account whose plan no longer includes the API (its license ran out) has its keys refused with 402", async () => {
    const acc = await t.signUpVerified();
    await grantLicense(t.ctx, acc.user.id, "professional", 30);
    await t.confirm(acc);
    const key = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "K", permissions: ["contacts:read"] } })).body.key;
    expect((await t.api("/api/v1/contacts", { token: key, origin: false })).status).toBe(200);
    const realNow = t.ctx.now;
    t.ctx.now = () => realNow() + 31 * 24 * 3600_000;
    try {
      expect(await t.api("/api/v1/contacts", { token: key, origin: false })).toMatchObject({ status: 402, body: { feature: "api_access" } });
    } finally {
      t.ctx.now = realNow;
    }
  });

  test(`an account holds at most ${MAX_WORKING_KEYS} working keys (each key has its own rate limit)`, async () => {
    const acc = await t.signUpVerified();
    await grantLicense(t.ctx, acc.user.id, "professional", 30);
    await t.confirm(acc);
    const create = (name: string) => t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name, permissions: ["contacts:read"] } });
    const made = [];
    for (let i = 0; i < MAX_WORKING_KEYS; i++) made.push((await create(`K${i}`)).body);
    expect(await create("one more")).toMatchObject({
      status: 400,
      body: { message: "An account can have at most 25 working API keys: revoke one you no longer use" },
    });
    expect((await t.api(`/api/api-keys/${made[0].id}/revoke`, { method: "POST", token: acc.token })).status).toBe(200);
    expect((await create("one more")).status).toBe(201);
  });

  test("a disabled account's keys are refused at once, and work again when it is enabled", async () => {
    const acc = await t.signUpVerified();
    await grantLicense(t.ctx, acc.user.id, "professional", 30);
    await t.confirm(acc);
    const key = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "K", permissions: ["contacts:read", "contacts:write"] } })).body.key;
    const call = (method = "GET", body?: unknown) => t.api("/api/v1/contacts", { method, token: key, body, origin: false });
    expect((await call()).status).toBe(200);
    await applyUserAction(t.ctx, "admin-id", acc.user.id, "disable");
    expect(await call()).toMatchObject({ status: 401, body: { message: "This API key's account is disabled" } });
    expect((await call("POST", { phone: "+14155552999" })).status).toBe(401);
    await applyUserAction(t.ctx, "admin-id", acc.user.id, "enable");
    expect((await call()).status).toBe(200);
  });
});

describe("outbound webhooks", () => {
  test("a receiver's endless answer is read to the 2 KB kept and no further (it could fill the server's memory)", async () => {
    let streamed = 0;
    const chunk = new Uint8Array(64 * 1024).fill(97);
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              streamed += chunk.length;
              controller.enqueue(chunk);
            },
          }),
        ),
    });
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-security-webhooks-"));
    const ctx = await openAppContext(loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, []), () => {});
    try {
      await startOutboundWebhooks(ctx);
      const user = await createOrPromoteAdmin(ctx, "shop@example.com", "owner-secret-123");
      receiversStandFor(ctx, "public");
      await createEndpoint(ctx, user.id, { name: "crm", url: `http://127.0.0.1:${receiver.port}/hook`, events: ["contact_created"] });
      await appendEvent(ctx, { userId: user.id, type: "contact.created", subject: { kind: "contact", id: "c1" } });
      const started = performance.now();
      await (await runDueJobs(ctx)).settled;
      await (await runDueJobs(ctx)).settled;
      const row = ctx.db.$client.query(`SELECT status, response_status AS code, length(response_body) AS kept FROM webhook_deliveries`).get();
      expect(row).toEqual({ status: "succeeded", code: 200, kept: 2048 });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(streamed).toBeLessThan(8 * 1024 * 1024);
    } finally {
      for (const stop of ctx.onStop) await stop();
      ctx.mailer.close();
      ctx.db.$client.close();
      receiver.stop(true);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("error reports", () => {
  test("anonymous reports cannot use up the day's room: signed-in users report on, each up to its own daily count", async () => {
    rateLimiterFor(t.ctx).enabled = false;
    try {
      const report = (token?: string) =>
        t.api("/api/admin/report-error", { method: "POST", ...(token ? { token } : {}), body: { errorReport: { message: "Boom", stack: "at x" } } });
      for (let i = 0; i < ERROR_REPORTS_PER_DAY; i++) expect((await report()).status).toBe(201);
      expect((await report()).status).toBe(429);
      const acc = await t.signUpVerified();
      for (let i = 0; i < ERROR_REPORTS_PER_ACCOUNT_PER_DAY; i++) expect((await report(acc.token)).status).toBe(201);
      expect(await report(acc.token)).toMatchObject({ status: 429, body: { message: "Too many error reports today. Please try again later." } });
      expect((await report((await t.signUpVerified()).token)).status).toBe(201);
    } finally {
      rateLimiterFor(t.ctx).enabled = true;
    }
  });
});

// Last: it restores this file's server to an earlier state.
describe("restoring a backup", () => {
  test("revives no session or API key that ended after the backup was taken; those alive on both sides go on", async () => {
    const acc = await t.signUpVerified();
    await grantLicense(t.ctx, acc.user.id, "professional", 30);
    await t.confirm(acc);
    const stolen = await t.login(acc.user.email);
    const key = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "K", permissions: ["contacts:read"] } })).body;
    const kept = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "Kept", permissions: ["contacts:read"] } })).body;
    const backup = await createBackup(t.ctx);
    // After the backup: the account ends the stolen session and revokes a leaked key.
    expect((await t.api("/api/auth/sessions/revoke-others", { method: "POST", token: acc.token })).body).toEqual({ success: true, revoked: 1, credentials: { revoked: [], kept: [], summary: "" } });
    expect((await t.api(`/api/api-keys/${key.id}/revoke`, { method: "POST", token: acc.token })).status).toBe(200);
    await restoreBackup(t.ctx, backup.id);
    expect((await t.api("/api/auth/user", { token: stolen.token })).status).toBe(401);
    expect((await t.api("/api/v1/contacts", { token: key.key, origin: false })).status).toBe(401);
    expect((await t.api("/api/auth/user", { token: acc.token })).status).toBe(200);
    expect((await t.api("/api/v1/contacts", { token: kept.key, origin: false })).status).toBe(200);
  });
});
