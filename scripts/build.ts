// `npm run build`: dist/smsdesk, one executable with the UI, the migrations and every asset inside.
//   --outfile PATH   write the executable elsewhere
//   --reuse-ui       embed the UI already in dist/public instead of building it again (tests: the running suite
//                    has that build loaded, and a rebuild would change its hashed file names under it)
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import tailwind from "bun-plugin-tailwind";

const root = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const outIndex = args.indexOf("--outfile");
if (!args.includes("--reuse-ui")) {
  const ui = spawnSync(process.execPath, ["scripts/build-ui.ts"], { cwd: root, stdio: "inherit" });
  if (ui.status !== 0) process.exit(ui.status ?? 1);
}

const outfile = outIndex >= 0 ? resolve(args[outIndex + 1]!) : join(root, "dist", "smsdesk");
const result = await Bun.build({
  // The CSV import parses and validates phones in a Worker, and a restore inspects an archive's database in one; a
  // compiled executable only has the workers it was built with.
  entrypoints: [join(root, "src", "main.ts"), join(root, "src", "contacts", "import-worker.ts"), join(root, "src", "backups", "inspect-worker.ts"), join(root, "src", "media", "resize-worker.ts")],
  compile: { outfile },
  minify: true,
  bytecode: true,
  // Modules imported with import() are chunks of their own, loaded when imported: the server listens before the
  // rest of the program is loaded (src/listen.ts, issue 29 item 6), where one bundle was read whole at every start.
  splitting: true,
  format: "esm",
  sourcemap: "none",
  plugins: [tailwind],
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`${outfile}: ${(statSync(outfile).size / 1024 / 1024).toFixed(1)} MB`);
