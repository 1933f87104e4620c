// `npm test`: installs what the tests need (Debian's Chromium when missing), builds the UI, runs the
// unit/API tests (bun test) and the browser tests (Playwright), and ends with `N passed, N failed`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { POSTGRES_READY } from "../tests/postgres-ready";

const root = join(import.meta.dir, "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const only = process.argv[2]; // "api" or "browser" to run one runner

function sh(cmd: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } }).status ?? 1;
}

/** Debian's packages the tests drive from outside: Chromium for the browser tests, and the sqlite3 shell (3.40 on
 * Debian 12) that an administrator opens a downloaded backup with (tests/api/sqlite3-shell.test.ts). */
function ensureDebianPackages(wanted: { path: string; pkg: string }[]) {
  const missing = wanted.filter((w) => !existsSync(w.path)).map((w) => w.pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    console.error(`Missing ${missing.join(", ")}: run 'sudo apt-get install -y ${missing.join(" ")}' (or set CHROMIUM_PATH).`);
    process.exit(1);
  }
  console.log(`Installing Debian's ${missing.join(", ")} for the tests...`);
  if (sh("apt-get", ["update", "-qq"]) !== 0 || sh("apt-get", ["install", "-y", "-qq", ...missing], { DEBIAN_FRONTEND: "noninteractive" }) !== 0) {
    console.error(`Could not install ${missing.join(", ")} with apt-get`);
    process.exit(1);
  }
}

let passed = 0;
let failed = 0;
let runnerFailed = false;

ensureDebianPackages([
  { path: "/usr/bin/sqlite3", pkg: "sqlite3" },
  ...(only === "api" ? [] : [{ path: CHROMIUM, pkg: "chromium" }]),
]);

/**
 * The PostgreSQL tests (issue 31: tests/support/postgres.ts) use the local server on 127.0.0.1:5432 with trust
 * authentication, which this project's machines have; it is started here when it is down.
 */
function ensurePostgres() {
  if (spawnSync("pg_isready", ["-q", "-h", "127.0.0.1", "-p", "5432"]).status === 0) return;
  const versions = existsSync("/etc/postgresql") ? readdirSync("/etc/postgresql") : [];
  if (!versions.length) {
    console.error("PostgreSQL is not installed: the PostgreSQL tests need a server on 127.0.0.1:5432 (trust authentication)");
    return;
  }
  console.log(`Starting PostgreSQL ${versions[0]} for the tests...`);
  sh("pg_ctlcluster", ["--skip-systemctl-redirect", versions[0]!, "main", "start"]);
}
ensurePostgres();

// The UI build writes the asset module tsc reads, so build first, then type-check everything.
if (sh(process.execPath, ["scripts/build-ui.ts"]) !== 0) {
  console.error("UI build failed");
  process.exit(1);
}
if (sh("node", ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]) !== 0) {
  console.error("type check failed");
  runnerFailed = true;
}

if (only !== "browser") {
  bunTest([], {});
  // The same files again with their apps on PostgreSQL, for the files that are served there (tests/postgres-ready.ts).
  console.log(`\nOn PostgreSQL: ${POSTGRES_READY.length} API test files`);
  bunTest(POSTGRES_READY, { SMSDESK_TEST_DATABASE: "postgres" });
}

if (only !== "api") {
  const reportDir = mkdtempSync(join(tmpdir(), "smsdesk-pw-"));
  const jsonFile = join(reportDir, "report.json");
  const status = sh("node", ["node_modules/@playwright/test/cli.js", "test", "-c", "tests/browser/playwright.config.ts", "--reporter=list,json"], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: jsonFile,
    CHROMIUM_PATH: CHROMIUM,
    BUN_PATH: process.execPath,
  });
  if (existsSync(jsonFile)) {
    const stats = JSON.parse(readFileSync(jsonFile, "utf8")).stats as { expected: number; unexpected: number; flaky: number };
    passed += stats.expected + stats.flaky;
    failed += stats.unexpected;
    if (status !== 0 && stats.unexpected === 0) runnerFailed = true;
  } else {
    runnerFailed = true;
  }
  rmSync(reportDir, { recursive: true, force: true });
}

/** One `bun test` run; bun prints its summary on stderr: the counts are read from it while everything is shown. */
function bunTest(files: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, ["test", ...files], { cwd: root, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024 });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  const output = result.stdout + result.stderr;
  const pass = Number(/^\s*(\d+) pass$/m.exec(output)?.[1] ?? 0);
  const fail = Number(/^\s*(\d+) fail$/m.exec(output)?.[1] ?? 0);
  passed += pass;
  failed += fail;
  if (result.status !== 0 && fail === 0) {
    runnerFailed = true;
    console.error(`bun test exited with ${result.status}`);
  }
}

if (runnerFailed) failed = Math.max(failed, 1);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
