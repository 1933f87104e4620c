import { readFileSync } from "node:fs";

/**
 * The built UI, embedded in the executable. scripts/build-ui.ts writes ui-assets.gen.ts, importing every file of
 * dist/public and its brotli and gzip variants `with { type: "file" }`; `bun build --compile` then carries them
 * inside the binary. Nothing is compressed per request: the variants were made once, at build time.
 */
export type UiAsset = { path: string; file: string; type: string; br?: string; gzip?: string };

type Encoding = "br" | "gzip" | "identity";
type Variant = { body: Uint8Array<ArrayBuffer>; etag: string };
type Variants = Partial<Record<Encoding, Variant>> & { identity: Variant };
/** An asset's files by coding, read (and its tags made) on its first request, then kept. */
type Served = { type: string; cache: string; files: Partial<Record<Encoding, string>> & { identity: string }; variants: Variants | null };

export type UiBundle = {
  /** By URL path; "/index.html" is also the answer for every route of the single-page app. */
  files: Map<string, Served>;
};

const HASHED = /-[a-z0-9]{8,}\.(js|css|woff2?|png|svg|jpg|webp|webmanifest)$/;

/**
 * The UI's files by path, none read yet (issue 29 item 6): reading the whole bundle (every file and its brotli and
 * gzip variants) and hashing it before the server listened was about 100 ms of each start, and the bytes of pages
 * nobody asked for stayed in memory.
 */
export async function loadUiBundle(): Promise<UiBundle> {
  let assets: UiAsset[] = [];
  try {
    assets = (await import("./ui-assets.gen")).uiAssets;
  } catch {
    // Not built yet: API tests run without the UI; the server then says how to build it.
  }
  const files: UiBundle["files"] = new Map();
  for (const a of assets) {
    const codings: Served["files"] = { identity: a.file };
    if (a.br) codings.br = a.br;
    if (a.gzip) codings.gzip = a.gzip;
    // Hashed names never change content; the rest (index.html, sw.js, the icons) is revalidated by its ETag.
    files.set(a.path, { type: a.type, cache: HASHED.test(a.path) ? "public, max-age=31536000, immutable" : "no-cache", files: codings, variants: null });
  }
  return { files };
}

/** An asset's bytes in each coding, read once (from the executable's own files, in memory): a few ms for the largest. */
function variantsOf(asset: Served): Variants {
  if (asset.variants) return asset.variants;
  const read = (file: string) => new Uint8Array(readFileSync(file)) as Uint8Array<ArrayBuffer>;
  const identity = read(asset.files.identity);
  // One tag per representation (RFC 9110 8.8.3): a cache must not answer a gzip request with brotli bytes.
  const tag = Bun.hash(identity).toString(36);
  const variants: Variants = { identity: { body: identity, etag: `"${tag}"` } };
  if (asset.files.br) variants.br = { body: read(asset.files.br), etag: `"${tag}-br"` };
  if (asset.files.gzip) variants.gzip = { body: read(asset.files.gzip), etag: `"${tag}-gz"` };
  return (asset.variants = variants);
}

/**
 * The coding to answer with, from Accept-Encoding (RFC 9110 12.5.3): brotli, else gzip, else the file as is.
 * A coding with q=0 is refused; `*` stands for any coding not named.
 */
export function chooseEncoding(acceptEncoding: string | null): Encoding {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get("*") ?? 0;
  const br = weight("br");
  const gzip = Math.max(weight("gzip"), weights.get("x-gzip") ?? 0);
  if (br > 0 && br >= gzip) return "br";
  if (gzip > 0) return "gzip";
  return "identity";
}

/**
 * The asset at `path`, or index.html for any other path outside /assets/ (a route of the single-page app, which
 * shows its own not-found page); null when the UI is not built. Answers 304 to a matching If-None-Match.
 */
export function uiResponse(ui: UiBundle, path: string, headers: Headers): Response | null {
  // A chunk a build no longer has (a page left open across an upgrade) is a plain 404, not HTML a script cannot run.
  if (path.startsWith("/assets/") && !ui.files.has(path) && ui.files.size) {
    return new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  const asset = ui.files.get(path) ?? ui.files.get("/index.html");
  if (!asset) return null;
  const variants = variantsOf(asset);
  const wanted = chooseEncoding(headers.get("accept-encoding"));
  const encoding: Encoding = variants[wanted] ? wanted : "identity";
  const variant = variants[encoding]!;
  const out: Record<string, string> = { "content-type": asset.type, "cache-control": asset.cache, etag: variant.etag };
  if (variants.br || variants.gzip) out.vary = "Accept-Encoding";
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === variant.etag)) {
    return new Response(null, { status: 304, headers: out });
  }
  if (encoding !== "identity") out["content-encoding"] = encoding;
  return new Response(variant.body, { headers: out });
}
