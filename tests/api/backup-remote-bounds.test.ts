// Issue 27 item 7: the S3-compatible destination's answers are read to a bound, and its listing stops.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createBackup } from "../../src/backups/backups";
import { setBackupPassphrase } from "../../src/backups/encryption";
import { copyToRemote, updateRemote } from "../../src/backups/remote";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  // Copies leave encrypted only: without a passphrase nothing is sent.
  await setBackupPassphrase(t.ctx.config.dataDir, "correct horse battery staple", Date.now());
});
afterAll(() => t?.stop());

type Mode = "endless-error" | "same-token" | "new-token-each-page" | "endless-page";

/** An endpoint that answers each request with the misbehaviour of `mode`, counting what it was asked and what it sent. */
function badStore(mode: Mode) {
  const seen: string[] = [];
  let streamed = 0;
  const endless = (start: string) => {
    const chunk = new TextEncoder().encode(`<Pad>${"x".repeat(64 * 1024)}</Pad>`);
    let first = true;
    return new ReadableStream({
      pull(controller) {
        const piece = first ? new TextEncoder().encode(start) : chunk;
        first = false;
        streamed += piece.length;
        controller.enqueue(piece);
      },
    });
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      await req.arrayBuffer();
      const url = new URL(req.url);
      seen.push(`${req.method} ${url.pathname}${url.searchParams.get("continuation-token") ? ` after ${url.searchParams.get("continuation-token")}` : ""}`);
      if (req.method === "PUT") return mode === "endless-error" ? new Response(endless("<Error><Code>InternalError</Code>"), { status: 500 }) : new Response("");
      if (req.method === "DELETE") return new Response(null, { status: 204 });
      if (mode === "endless-page") return new Response(endless("<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>false</IsTruncated>"));
      const next = mode === "same-token" ? "again" : `page-${seen.length + 1}`;
      return new Response(`<?xml version="1.0"?><ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>${next}</NextContinuationToken></ListBucketResult>`);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, streamed: () => streamed, stop: () => server.stop(true) };
}

async function copyTo(store: ReturnType<typeof badStore>) {
  updateRemote(t.ctx, { enabled: true, endpoint: store.url, bucket: "bucket", region: "us-east-1", accessKeyId: "AKID", secretAccessKey: "secret", prefix: "p/" });
  const backup = await createBackup(t.ctx, "scheduled");
  const { remote } = await copyToRemote(t.ctx, backup, 2);
  return { remote: remote!, key: `/bucket/p/${backup.id}.tar.gz.enc` };
}

test("an endless error answer is read for its code only, and the copy is recorded as failed", async () => {
  const store = badStore("endless-error");
  try {
    const { remote, key } = await copyTo(store);
    expect(remote).toMatchObject({ ok: false, error: `PUT ${key} answered 500 InternalError`, deleted: [] });
    // Read to 4 KB, then the transfer is cancelled: what the store managed to send meanwhile is what sockets buffer.
    expect(store.streamed()).toBeLessThan(16 * 1024 * 1024);
  } finally {
    store.stop();
  }
}, 30_000);

test("a listing that repeats its continuation token stops at the repeat; nothing is deleted", async () => {
  const store = badStore("same-token");
  try {
    const { remote, key } = await copyTo(store);
    expect(remote).toMatchObject({ ok: false, error: "the listing of bucket repeated a page (continuation token seen before)", deleted: [] });
    expect(store.seen).toEqual([`PUT ${key}`, "GET /bucket/", "GET /bucket/ after again"]);
  } finally {
    store.stop();
  }
}, 30_000);

test("a listing that never ends stops after 100 pages", async () => {
  const store = badStore("new-token-each-page");
  try {
    const { remote } = await copyTo(store);
    expect(remote).toMatchObject({ ok: false, error: "the listing of bucket did not end within 100 pages", deleted: [] });
    expect(store.seen.filter((s) => s.startsWith("GET"))).toHaveLength(100);
    expect(store.seen.some((s) => s.startsWith("DELETE"))).toBe(false);
  } finally {
    store.stop();
  }
}, 30_000);

test("a listing page without end is read to 4 MB and refused", async () => {
  const store = badStore("endless-page");
  try {
    const { remote } = await copyTo(store);
    expect(remote).toMatchObject({ ok: false, error: "the listing of bucket answered a page of more than 4 MB", deleted: [] });
    expect(store.streamed()).toBeLessThan(32 * 1024 * 1024);
  } finally {
    store.stop();
  }
}, 30_000);
