// `npm start`: builds the UI, then serves the appliance from source on its embedded defaults.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const built = spawnSync(process.execPath, ["scripts/build-ui.ts"], { cwd: root, stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);

const server = Bun.spawn([process.execPath, "src/main.ts", ...process.argv.slice(2)], {
  cwd: root,
  // src/main.ts sets it too, before Elysia loads; here it also reaches anything the server spawns.
  env: { ...process.env, NODE_ENV: "production" },
  stdio: ["inherit", "inherit", "inherit"],
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
process.exit(await server.exited);
