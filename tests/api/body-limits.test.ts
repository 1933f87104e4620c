// Body limits per route, enforced before a body is read: 1 MB for JSON APIs, 256 KB for webhooks (after the
// account in the URL is checked), large bodies only for the CSV upload. The server's memory stays flat while
// oversize bodies are refused.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChildServer, type ChildServer } from "../support/child-server";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

setDefaultTimeout(60_000);

const KB = 1024;
const MB = 1024 * KB;
const TOO_LARGE = { message: "Request body too large", code: "too_large" };

let t: TestServer;
let acc: Account;
let hookUrl: string;

beforeAll(async () => {
  t = await startTestServer({ smtp: false, dev: true });
  acc = await t.signUpVerified();
  const created = await t.api("/api/sms-providers", { token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  expect(created.status).toBe(201);
  hookUrl = created.body.webhookUrl.replace(t.ctx.config.publicUrl, t.url);
});
afterAll(() => t?.stop());

/** JSON headers with the Origin a browser on the appliance's own page sends (state-changing calls need it). */
const jsonFromApp = () => ({ "content-type": "application/json", origin: new URL(t.ctx.config.publicUrl).origin });

/** A contact-form body of about `bytes` bytes. */
const contactOf = (bytes: number) => JSON.stringify({ name: "Ada", email: "ada@example.com", subject: "Hi", message: "m".repeat(bytes) });

/** A body sent in chunks without a length (chunked transfer encoding); `pulled()` says how much was asked for. */
function chunked(total: number, chunk = 64 * KB) {
  let sent = 0;
  const piece = new Uint8Array(chunk).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      controller.enqueue(n === chunk ? piece : piece.subarray(0, n));
    },
  });
  return { stream, pulled: () => sent };
}

describe("JSON routes: 1 MB", () => {
  test("a declared length over 1 MB answers 413", async () => {
    const res = await t.api("/api/contact", { body: contactOf(1 * MB + 10) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(TOO_LARGE);
  });

  test("a chunked body is read only up to the limit, then 413", async () => {
    const body = chunked(60 * MB);
    const res = await fetch(`${t.url}/api/contact`, { method: "POST", headers: jsonFromApp(), body: body.stream });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(TOO_LARGE);
    expect(body.pulled()).toBeLessThan(8 * MB);
  });

  test("a chunked body within the limit is handled as usual", async () => {
    const json = new TextEncoder().encode(contactOf(100));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(json.subarray(0, 20));
        controller.enqueue(json.subarray(20));
        controller.close();
      },
    });
    const res = await fetch(`${t.url}/api/contact`, { method: "POST", headers: jsonFromApp(), body: stream });
    expect(res.status).toBe(201);
  });

  test("the CSV upload takes files far above 1 MB", async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `+1202555${String(i % 10_000).padStart(4, "0")},Name${i}`).join("\n");
    const csv = `phone,firstName\n${rows}\n`;
    expect(csv.length).toBeGreaterThan(1 * MB);
    const res = await t.api("/api/contacts/import/csv", { token: acc.token, body: csv, headers: { "content-type": "text/csv" } });
    expect(res.status).toBe(202);
  });
});

describe("routes with larger documented maximums", () => {
  test("a campaign's pasted recipients may exceed 1 MB (up to 8 MB)", async () => {
    const within = await t.api("/api/campaigns/preview-delivery", { token: acc.token, body: { audience: { kind: "manual" }, recipients: "x".repeat(2 * MB) } });
    // Read whole: the 2 MB of "x" is one recipient that is not a phone number.
    expect(within.status).toBe(200);
    expect(within.body.skipped).toEqual({ optedOut: 0, invalid: 1, duplicate: 0 });
    const over = await t.api("/api/campaigns/preview-delivery", { token: acc.token, body: { audience: { kind: "manual" }, recipients: "x".repeat(8 * MB) } });
    expect(over.status).toBe(413);
    expect(over.body).toEqual(TOO_LARGE);
  });

  test("the import preview takes a whole file and reads its first 64 KB", async () => {
    const csv = `phone,firstName\n${"+12025550123,Ada\n".repeat(150_000)}`;
    expect(csv.length).toBeGreaterThan(2 * MB);
    const res = await t.api("/api/contacts/import/preview", { token: acc.token, body: csv, headers: { "content-type": "text/csv" } });
    expect(res.status).toBe(200);
  });
});

describe("webhooks: the account first, then 256 KB", () => {
  const big = "x".repeat(300 * KB);

  test("an unknown user, a URL without the account's secret or another provider: 403 before the body is read", async () => {
    const unknownUser = hookUrl.replace(acc.user.id, crypto.randomUUID());
    for (const url of [unknownUser, hookUrl.replace(/key=[^&]+/, "key=wrong"), hookUrl.replace(/\/simulator\//, "/twilio/")]) {
      const body = chunked(60 * MB);
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: body.stream });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ message: "Webhook verification failed", code: "forbidden" });
      expect(body.pulled()).toBeLessThan(8 * MB);
    }
  });

  test("the account's own URL: a body over 256 KB answers 413, declared or chunked, and a small one is applied", async () => {
    const declared = await fetch(hookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: big });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual(TOO_LARGE);
    const body = chunked(60 * MB);
    const streamed = await fetch(hookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: body.stream });
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual(TOO_LARGE);
    expect(body.pulled()).toBeLessThan(8 * MB);
    const small = await fetch(hookUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ events: [] }) });
    expect(small.status).toBe(200);
    expect(await small.json()).toEqual({ ok: true, events: 0 });
  });
});

describe("memory while oversize bodies are refused (the server in its own process)", () => {
  let child: ChildServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "smsdesk-body-"));
    child = await startChildServer({ DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await child?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.process.pid}/status`, "utf8"))![1]) / 1024;

  test("10 concurrent 60 MB posts to a JSON route and to a webhook: 413 and the RSS stays within 100 MB of where it was", async () => {
    const body = new Uint8Array(60 * MB).fill(0x61);
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 5);
    const post = (path: string) =>
      fetch(child.url + path, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (res) => [res.status, await res.json()] as const)
        .catch((err: Error) => [0, err.message] as const);
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => post("/api/contact")),
      ...Array.from({ length: 5 }, () => post(`/api/webhooks/simulator/sms/${crypto.randomUUID()}?key=guess`)),
    ]);
    clearInterval(sampler);
    peak = Math.max(peak, rssMb());
    console.log(`server RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB during 10 x 60 MB posts`);
    expect(answers.slice(0, 5)).toEqual(Array(5).fill([413, TOO_LARGE]));
    expect(answers.slice(5)).toEqual(Array(5).fill([413, TOO_LARGE]));
    expect(peak - before).toBeLessThan(100);
  });
});
