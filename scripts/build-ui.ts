// Builds the React app into dist/public, adds the service worker (workbox-build: no network needed), compresses every
// text file with brotli and gzip, and writes src/web/ui-assets.gen.ts, which imports every built file
// `with { type: "file" }` so the server (and the compiled executable) can serve them.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import tailwind from "bun-plugin-tailwind";
import { generateSW } from "workbox-build";
import { landingScripts } from "../src/web/landing-scripts";

const root = join(import.meta.dir, "..");
const publicDir = join(root, "dist", "public");
// Built beside the served folder and swapped in at the end: a server (or a test) starting during the build still
// finds a whole UI, the old one, instead of a half-written folder.
const outdir = join(root, "dist", `public-building-${process.pid}`);
rmSync(outdir, { recursive: true, force: true });

const started = performance.now();
const result = await Bun.build({
  entrypoints: [join(root, "ui", "index.html")],
  outdir,
  publicPath: "/",
  minify: true,
  splitting: true,
  sourcemap: "none",
  target: "browser",
  naming: { entry: "[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
  plugins: [tailwind],
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  rmSync(outdir, { recursive: true, force: true });
  process.exit(1);
}

// Files whose address must not change between builds: the icons the web manifest names, and the offline page the
// service worker falls back to.
const sources = join(root, "ui", "public");
mkdirSync(join(outdir, "icons"));
for (const name of ["icon-192.png", "icon-512.png", "maskable-512.png"]) {
  copyFileSync(join(sources, "icons", name), join(outdir, "icons", name));
}
copyFileSync(join(sources, "offline.html"), join(outdir, "offline.html"));

// The service worker precaches the app shell: index.html, every chunk (so any screen opens offline once the app
// has been visited), the styles, the icons and the offline page. Hashed files are never revalidated; a new build
// changes sw.js, and the page then offers "Update available, reload" (ui/lib/pwa.ts).
const sw = await generateSW({
  globDirectory: outdir,
  globPatterns: ["**/*.{html,js,css,svg,png,webmanifest}"],
  swDest: join(outdir, "sw.js"),
  mode: "production",
  sourcemap: false,
  inlineWorkboxRuntime: true,
  cacheId: "smsdesk",
  cleanupOutdatedCaches: true,
  clientsClaim: false,
  // The page asks a waiting worker to take over when the user chooses to reload ({type: "SKIP_WAITING"}).
  skipWaiting: false,
  dontCacheBustURLsMatching: /-[a-z0-9]{8}\.[a-z0-9]+$/,
  navigateFallback: "/index.html",
  // Not routes of the app: the API (file downloads are navigations too), the live socket and the metrics.
  navigateFallbackDenylist: [/^\/api(\/|$)/, /^\/ws$/, /^\/metrics$/, /^\/offline\.html$/],
  runtimeCaching: [
    {
      // A navigation the app shell does not answer (a download, the OpenAPI page) gets the offline page when the
      // server cannot be reached.
      urlPattern: ({ request }) => request.mode === "navigate",
      handler: "NetworkOnly",
      options: { precacheFallback: { fallbackURL: "/offline.html" } },
    },
  ],
});
for (const warning of sw.warnings) console.warn(`sw: ${warning}`);

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  json: "application/json",
  webmanifest: "application/manifest+json",
  woff2: "font/woff2",
  txt: "text/plain; charset=utf-8",
};
/** Formats that are not compressed already; PNG and WOFF2 gain nothing from another pass. */
const COMPRESSIBLE = new Set(["html", "js", "css", "svg", "json", "webmanifest", "txt"]);

const files: string[] = [];
const walk = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else files.push(path);
  }
};
walk(outdir);
files.sort();

const genDir = join(root, "src", "web");
/** Where a built file will be once the folder is swapped in. */
const served = (path: string) => join(publicDir, relative(outdir, path));
const lines: string[] = [];
const entries: string[] = [];
const importFile = (path: string) => {
  const id = `f${lines.length}`;
  lines.push(`import ${id} from "${relative(genDir, served(path))}" with { type: "file" };`);
  return id;
};
// Brotli at its best quality is the slow part of the build: every file at once, on the thread pool.
const compressBr = promisify(brotliCompress);
const compressGz = promisify(gzip);
const variants = new Map(
  await Promise.all(
    files
      .filter((f) => COMPRESSIBLE.has(f.split(".").pop()!))
      .map(async (f) => {
        const body = readFileSync(f);
        const br = await compressBr(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        });
        return [f, { body, br, gz: await compressGz(body, { level: 9 }) }] as const;
      }),
  ),
);
const compressed = new Map<string, { br: number; gzip: number; identity: number }>();
for (const f of files) {
  const rel = "/" + relative(outdir, f).split("\\").join("/");
  const ext = rel.split(".").pop()!;
  const fields = [`path: ${JSON.stringify(rel)}`, `file: ${importFile(f)}`, `type: ${JSON.stringify(TYPES[ext] ?? "application/octet-stream")}`];
  const variant = variants.get(f);
  if (variant) {
    const { body, br, gz } = variant;
    compressed.set(rel, { br: br.length, gzip: gz.length, identity: body.length });
    // A variant no smaller than the file is not worth a decoding step.
    if (br.length < body.length) {
      writeFileSync(`${f}.br`, br);
      fields.push(`br: ${importFile(`${f}.br`)}`);
    }
    if (gz.length < body.length) {
      writeFileSync(`${f}.gz`, gz);
      fields.push(`gzip: ${importFile(`${f}.gz`)}`);
    }
  }
  entries.push(`  { ${fields.join(", ")} },`);
}
const size = files.reduce((n, f) => n + statSync(f).size, 0);
const landing = landingScripts((path) => readFileSync(join(outdir, path), "utf8"));
rmSync(publicDir, { recursive: true, force: true });
renameSync(outdir, publicDir);
writeFileSync(
  join(genDir, "ui-assets.gen.ts"),
  `// @ts-nocheck: the imported paths change with every build.\n// Generated by scripts/build-ui.ts; do not edit.\n${lines.join("\n")}\n\nexport const uiAssets = [\n${entries.join("\n")}\n];\n`,
);

const sum = (key: "br" | "gzip" | "identity") => landing.reduce((n, path) => n + compressed.get(path)![key], 0);
console.log(
  `ui: ${files.length} files, ${(size / 1024).toFixed(0)} KB, sw.js precaching ${sw.count} files (${(sw.size / 1024).toFixed(0)} KB), in ${(performance.now() - started).toFixed(0)} ms`,
);
console.log(
  `ui: the landing page's initial JavaScript (${landing.length} file${landing.length === 1 ? "" : "s"}): ${sum("br")} bytes brotli, ${sum("gzip")} bytes gzip, ${sum("identity")} bytes uncompressed`,
);
