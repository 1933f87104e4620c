// `npm run build`: dist/smsdesk, one executable with the UI, the migrations and every asset inside.
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import tailwind from "bun-plugin-tailwind";

const root = join(import.meta.dir, "..");
const ui = spawnSync(process.execPath, ["scripts/build-ui.ts"], { cwd: root, stdio: "inherit" });
if (ui.status !== 0) process.exit(ui.status ?? 1);

const outfile = join(root, "dist", "smsdesk");
const result = await Bun.build({
  entrypoints: [join(root, "src", "main.ts")],
  compile: { outfile },
  minify: true,
  bytecode: true,
  format: "esm",
  sourcemap: "none",
  plugins: [tailwind],
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`dist/smsdesk: ${(statSync(outfile).size / 1024 / 1024).toFixed(1)} MB`);
