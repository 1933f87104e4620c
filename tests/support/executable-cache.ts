// Building the single executable takes tens of seconds on CI's two cores, and four test files (three API, one
// browser) need it. Each copies a build kept under the system's temporary folder, named by a hash of everything
// the build reads (the source, the migrations, the UI build it embeds, the build script, the locked dependencies
// and Bun's version), so a run builds it once and any change to those inputs builds a new one. Plain Node APIs:
// the Playwright journey imports this too.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const INPUTS = ["src", "shared", "db", "ui", "dist/public", "scripts/build.ts", "package.json", "package-lock.json", "tsconfig.json", "bunfig.toml"];

function hashTree(hash: ReturnType<typeof createHash>, path: string) {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) hashTree(hash, join(path, name));
    return;
  }
  hash.update(relative(root, path)).update("\0").update(readFileSync(path)).update("\0");
}

/** The hash of the build's inputs, as `bun` (its version included) would build them now. */
function inputsHash(bun: string) {
  const hash = createHash("sha256");
  hash.update(spawnSync(bun, ["--revision"], { encoding: "utf8" }).stdout ?? "");
  for (const input of INPUTS) hashTree(hash, join(root, input));
  return hash.digest("hex").slice(0, 24);
}

/** Builds of inputs since changed are dropped after a day (not at once: another checkout may be using them now). */
function pruneOlderThanADay(cacheDir: string) {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    if ((statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < dayAgo) rmSync(path, { force: true });
  }
}

/**
 * Writes the executable `scripts/build.ts --reuse-ui` builds to `outfile` (dist/public must hold the UI build),
 * from the cache when these inputs were built before. Answers the build's error output when it fails.
 */
export function buildExecutable(outfile: string, bun = process.env.BUN_PATH ?? process.execPath): { ok: true } | { ok: false; stderr: string } {
  const cacheDir = join(tmpdir(), "smsdesk-executable-cache");
  const cached = join(cacheDir, `smsdesk-${inputsHash(bun)}`);
  if (!existsSync(cached)) {
    mkdirSync(cacheDir, { recursive: true });
    // Built beside its final name, then renamed: a concurrent run never copies a half-written file.
    const partial = `${cached}.${process.pid}.partial`;
    const build = spawnSync(bun, ["scripts/build.ts", "--reuse-ui", "--outfile", partial], { cwd: root, encoding: "utf8" });
    if (build.status !== 0) {
      rmSync(partial, { force: true });
      return { ok: false, stderr: build.stderr };
    }
    renameSync(partial, cached);
    pruneOlderThanADay(cacheDir);
  }
  copyFileSync(cached, outfile);
  chmodSync(outfile, 0o755);
  return { ok: true };
}
