// Issue 33: the picture resize (jpeg-js, pngjs: pure JavaScript) works inside the single executable, built as
// `npm run build` builds it and started alone in an empty folder, where a native or WebAssembly codec might not.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CARRIER_SAFE_BYTES } from "../../src/media/resize";
import { childApi } from "../support/child-server";
import { startBuiltExecutable } from "../support/executable";
import { photoJpeg } from "../support/media-fixtures";

const dir = mkdtempSync(join(tmpdir(), "smsdesk-exe-mms-"));
let proc: ReturnType<typeof Bun.spawn> | null = null;

afterAll(() => {
  proc?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test(
  "dist/smsdesk resizes a photo over 600 KB and serves it with the media headers",
  async () => {
    const started = await startBuiltExecutable(dir, { ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "executable-check" });
    proc = started.proc;
    const { base } = started;
    const login = await childApi(base, "/api/auth/login", { body: { email: "owner@example.com", password: "executable-check" } });
    const token = login.body.token as string;
    const photo = photoJpeg(1800, 1200, 95);
    expect(photo.length).toBeGreaterThan(CARRIER_SAFE_BYTES);
    const res = await fetch(`${base}/api/media?filename=photo.jpg`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: photo as Uint8Array<ArrayBuffer>,
    });
    const up = (await res.json()) as any;
    expect(res.status).toBe(201);
    expect(up.resizedFrom).toBe(photo.length);
    expect(up.size).toBeLessThanOrEqual(CARRIER_SAFE_BYTES);
    const file = await fetch(`${base}${up.url}`, { headers: { authorization: `Bearer ${token}` } });
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(bytes.length).toBe(up.size);
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(file.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
  },
  180_000,
);
