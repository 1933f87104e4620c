// The UI as served (by the source tree here and, through the same module, by the executable): precompressed assets
// chosen by Accept-Encoding, cache headers, the landing page's JavaScript budget, the service worker and the manifest.
// Needs the UI build (`bun scripts/build-ui.ts`, which `npm test` runs first).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { landingScripts } from "../../src/web/landing-scripts";
import { chooseEncoding } from "../../src/web/ui-assets";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

/** The bytes as sent on the wire: Bun's fetch would otherwise decode them (and add its own Accept-Encoding). */
async function raw(path: string, acceptEncoding: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.url + path, { headers: { "accept-encoding": acceptEncoding, ...headers }, decompress: false });
  return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) };
}
const text = async (path: string) => new TextDecoder().decode((await raw(path, "identity")).body);

describe("Accept-Encoding", () => {
  test("index.html in brotli, gzip or as is, the same page each way, with Vary and no-cache", async () => {
    const plain = await raw("/", "identity");
    const br = await raw("/", "gzip, deflate, br");
    const gz = await raw("/", "gzip");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(Buffer.from(brotliDecompressSync(br.body)).equals(Buffer.from(plain.body))).toBe(true);
    expect(Buffer.from(gunzipSync(gz.body)).equals(Buffer.from(plain.body))).toBe(true);
    for (const res of [plain, br, gz]) {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
      expect(res.headers.get("cache-control")).toBe("no-cache");
    }
    // A deep link of the app gets the same page, compressed the same way.
    expect(Buffer.from((await raw("/chat", "br")).body).equals(Buffer.from(br.body))).toBe(true);
  });

  test("q-values: a refused coding is never sent, and the higher weight wins", () => {
    expect(chooseEncoding("br;q=0, gzip")).toBe("gzip");
    expect(chooseEncoding("gzip;q=1, br;q=0.5")).toBe("gzip");
    expect(chooseEncoding("br;q=0.5, gzip;q=0.5")).toBe("br");
    expect(chooseEncoding("*")).toBe("br");
    expect(chooseEncoding("*;q=0, identity")).toBe("identity");
    expect(chooseEncoding("deflate")).toBe("identity");
    expect(chooseEncoding("")).toBe("identity");
    expect(chooseEncoding(null)).toBe("identity");
    expect(chooseEncoding("x-gzip")).toBe("gzip");
  });

  test("a hashed script: immutable, one ETag per coding, 304 on a match", async () => {
    const entry = /<script[^>]*src="([^"]+)"/.exec(await text("/"))![1]!;
    expect(entry).toMatch(/^\/assets\/index-[a-z0-9]{8}\.js$/);
    const plain = await raw(entry, "identity");
    const br = await raw(entry, "br");
    const gz = await raw(entry, "gzip");
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(br.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const tags = [plain, br, gz].map((r) => r.headers.get("etag"));
    expect(new Set(tags).size).toBe(3);
    expect(br.body.length).toBeLessThan(gz.body.length);
    expect(gz.body.length).toBeLessThan(plain.body.length);

    const again = await raw(entry, "br", { "if-none-match": tags[1]! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.get("etag")).toBe(tags[1]!);
    // The brotli tag does not validate the gzip bytes.
    expect((await raw(entry, "gzip", { "if-none-match": tags[1]! })).status).toBe(200);
  });

  test("PNG icons are sent as they are; a chunk the build does not have is a 404, not the HTML page", async () => {
    const icon = await raw("/icons/icon-192.png", "br, gzip");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/png");
    expect(icon.headers.get("content-encoding")).toBeNull();
    expect(icon.headers.get("vary")).toBeNull();
    const missing = await raw("/assets/index-00000000.js", "br");
    expect(missing.status).toBe(404);
  });
});

describe("the landing page's initial JavaScript", () => {
  test("at most 150 KB compressed, and none of the signed-in app in it", async () => {
    const files = new Map([["/index.html", await text("/")]]);
    const scripts = await (async () => {
      // landingScripts reads synchronously: fetch the import graph level by level until it stops growing.
      for (;;) {
        const missing = new Set<string>();
        const list = landingScripts((path) => {
          const body = files.get(path);
          if (body === undefined) missing.add(path);
          return body ?? "";
        });
        if (!missing.size) return list;
        for (const path of missing) files.set(path, await text(path));
      }
    })();
    let brotli = 0;
    let gzip = 0;
    for (const path of scripts) {
      brotli += (await raw(path, "br")).body.length;
      gzip += (await raw(path, "gzip")).body.length;
    }
    console.log(`landing page initial JavaScript: ${scripts.length} file(s), ${brotli} bytes brotli, ${gzip} bytes gzip`);
    expect(brotli).toBeLessThanOrEqual(150_000);
    expect(gzip).toBeLessThanOrEqual(150_000);
    const code = scripts.map((p) => files.get(p)!).join("\n");
    // The chat popup and the sidebar of the signed-in layout, and screens of the app, load on demand.
    for (const appText of ["Select a conversation to start chatting", "Quick Start", "Backup Manager", "Customer Lists"]) {
      expect(code).not.toContain(appText);
    }
  });
});

describe("installable app", () => {
  test("/sw.js precaches the app shell: index.html, every script and style, the offline page and the icons", async () => {
    const res = await raw("/sw.js", "identity");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    // Never cached by the browser's HTTP cache: an update must be seen on the next check.
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const sw = new TextDecoder().decode(res.body);
    const precached = new Set([...sw.matchAll(/url:"([^"]+)"/g)].map((m) => "/" + m[1]));
    const html = await text("/");
    const shell = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(shell.length).toBeGreaterThanOrEqual(4); // the script, the styles, the favicon, the manifest, ...
    for (const path of [...shell, "/index.html", "/offline.html", "/icons/icon-192.png", "/icons/icon-512.png"]) {
      expect(precached).toContain(path);
    }
    expect(sw).toContain('"/index.html"'); // navigations fall back to the cached app shell
    expect((await raw("/offline.html", "br")).status).toBe(200);
  });

  test("the web manifest: name, start URL, standalone display, and icons that exist at their sizes", async () => {
    const href = /<link rel="manifest" href="([^"]+)"/.exec(await text("/"))![1]!;
    const res = await raw(href, "identity");
    expect(res.headers.get("content-type")).toBe("application/manifest+json");
    const manifest = JSON.parse(new TextDecoder().decode(res.body));
    expect(manifest).toMatchObject({ name: "smsdesk", start_url: "/", scope: "/", display: "standalone", theme_color: "#4f46e5" });
    const sizes: string[] = [];
    for (const icon of manifest.icons as { src: string; sizes: string; type: string }[]) {
      const png = await raw(icon.src, "identity");
      expect(png.status).toBe(200);
      expect(png.headers.get("content-type")).toBe("image/png");
      const view = new DataView(png.body.buffer);
      // The PNG header's width and height must be what the manifest claims.
      expect(`${view.getUint32(16)}x${view.getUint32(20)}`).toBe(icon.sizes);
      sizes.push(icon.sizes);
    }
    expect(sizes).toEqual(["192x192", "512x512", "512x512"]);
  });
});
