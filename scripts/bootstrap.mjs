// `npm start`, `npm test`, `npm run build` on a machine that has only Node.js and npm: installs Bun
// (from npm) and the dependencies when they are missing, then hands over to Bun.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bun = join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...opts });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function ensureDependencies() {
  const needed = ["bun", "elysia", "react", "@tanstack/react-router", "bun-plugin-tailwind", "workbox-build", "@playwright/test"];
  if (existsSync(bun) && needed.every((p) => existsSync(join(root, "node_modules", p, "package.json")))) return;
  console.log("Installing dependencies (npm ci)...");
  const status = run("npm", [existsSync(join(root, "package-lock.json")) ? "ci" : "install", "--no-audit", "--no-fund"]);
  if (status !== 0) process.exit(status);
}

const [command, ...rest] = process.argv.slice(2);
ensureDependencies();

const scripts = {
  start: ["scripts/start.ts", ...rest],
  test: ["scripts/test.ts", ...rest],
  build: ["scripts/build.ts", ...rest],
};
if (!scripts[command]) {
  console.error(`usage: node scripts/bootstrap.mjs start|test|build`);
  process.exit(2);
}
process.exit(run(bun, scripts[command]));
