// The first line an operator reads names the address to open: the public URL, the only origin whose sign-in the
// server accepts. It once printed the listening address first, whose sign-in is refused as cross-site.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../src/version";
import { startChildServer, type ChildServer } from "../support/child-server";

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-startup-"));
let server: ChildServer | undefined;
afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the startup line says to open PUBLIC_URL, then where the server listens", async () => {
  server = await startChildServer({ DATA_DIR: dataDir, PUBLIC_URL: "https://sms.example.com" });
  const port = new URL(server.url).port;
  expect(server.output().split("\n").find((line) => line.startsWith("smsdesk "))).toBe(`smsdesk ${VERSION} is running: open https://sms.example.com (listening on http://127.0.0.1:${port})`);
});
