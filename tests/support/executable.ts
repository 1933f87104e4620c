// The single executable as `npm run build` builds it, started alone in an empty folder (only PATH and the settings
// given), for tests of what lives in the build: the entry points and workers it must carry, the production mode.
import { expect } from "bun:test";
import { join } from "node:path";
import { buildExecutable } from "./executable-cache";
import { waitFor } from "./wait";

/** Builds dist's executable into `dir` (from the build cache, tests/support/executable-cache.ts) and starts it there on a free port; answers once /api/health is 200. */
export async function startBuiltExecutable(dir: string, env: Record<string, string>) {
  const build = buildExecutable(join(dir, "smsdesk"));
  expect(build.ok, build.ok ? "" : build.stderr).toBe(true);
  const free = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = free.port!;
  await free.stop(true);
  const proc = Bun.spawn([join(dir, "smsdesk")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(() => fetch(`${base}/api/health`).then((r) => r.status).catch(() => 0), (s) => s === 200, 20_000, 50);
  return { proc, port, base };
}
