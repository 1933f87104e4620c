/**
 * The built UI, embedded in the executable. scripts/build-ui.ts writes ui-assets.gen.ts, importing every file of
 * dist/public and its brotli and gzip variants `with { type: "file" }`; `bun build --compile` then carries them
 * inside the binary. Nothing is compressed per request: the variants were made once, at build time.
 */
export type UiAsset = { path: string; file: string; type: string; br?: string; gzip?: string };

type Encoding = "br" | "gzip" | "identity";
type Variant = { body: Uint8Array<ArrayBuffer>; etag: string };
type Served = { type: string; cache: string; variants: Partial<Record<Encoding, Variant>> & { identity: Variant } };

export type UiBundle = {
  /** By URL path; "/index.html" is also the answer for every route of the single-page app. */
  files: Map<string, Served>;
};

const HASHED = /-[a-z0-9]{8,}\.(js|css|woff2?|png|svg|jpg|webp|webmanifest)$/;

export async function loadUiBundle(): Promise<UiBundle> {
  let assets: UiAsset[] = [];
  try {
    assets = (await import("./ui-assets.gen")).uiAssets;
  } catch {
    // Not built yet: API tests run without the UI; the server then says how to build it.
  }
  const read = async (file: string) => new Uint8Array(await Bun.file(file).arrayBuffer());
  const files: UiBundle["files"] = new Map();
  await Promise.all(
    assets.map(async (a) => {
      const identity = await read(a.file);
      // One tag per representation (RFC 9110 8.8.3): a cache must not answer a gzip request with brotli bytes.
      const tag = Bun.hash(identity).toString(36);
      const variants: Served["variants"] = { identity: { body: identity, etag: `"${tag}"` } };
      if (a.br) variants.br = { body: await read(a.br), etag: `"${tag}-br"` };
      if (a.gzip) variants.gzip = { body: await read(a.gzip), etag: `"${tag}-gz"` };
      // Hashed names never change content; the rest (index.html, sw.js, the icons) is revalidated by its ETag.
      const cache = HASHED.test(a.path) ? "public, max-age=31536000, immutable" : "no-cache";
      files.set(a.path, { type: a.type, cache, variants });
    }),
  );
  return { files };
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
  const wanted = chooseEncoding(headers.get("accept-encoding"));
  const encoding: Encoding = asset.variants[wanted] ? wanted : "identity";
  const variant = asset.variants[encoding]!;
  const out: Record<string, string> = { "content-type": asset.type, "cache-control": asset.cache, etag: variant.etag };
  if (asset.variants.br || asset.variants.gzip) out.vary = "Accept-Encoding";
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === variant.etag)) {
    return new Response(null, { status: 304, headers: out });
  }
  if (encoding !== "identity") out["content-encoding"] = encoding;
  return new Response(variant.body, { headers: out });
}
