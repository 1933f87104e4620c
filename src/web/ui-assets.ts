/**
 * The built UI, embedded in the executable. scripts/build-ui.ts writes ui-assets.gen.ts, importing every
 * file of dist/public `with { type: "file" }`; `bun build --compile` then carries them inside the binary.
 */
export type UiAsset = { path: string; file: string; type: string };

export type UiBundle = {
  /** Pre-built responses by URL path; cloned per request. */
  files: Map<string, { body: Uint8Array<ArrayBuffer>; headers: Record<string, string> }>;
  indexHtml: Uint8Array<ArrayBuffer> | null;
};

const HASHED = /-[a-z0-9]{8,}\.(js|css|woff2?|png|svg|jpg|webp)$/;

export async function loadUiBundle(): Promise<UiBundle> {
  let assets: UiAsset[] = [];
  try {
    assets = (await import("./ui-assets.gen")).uiAssets;
  } catch {
    // Not built yet: API tests run without the UI; the server then says how to build it.
  }
  const files: UiBundle["files"] = new Map();
  let indexHtml: Uint8Array<ArrayBuffer> | null = null;
  await Promise.all(
    assets.map(async (a) => {
      const body = new Uint8Array(await Bun.file(a.file).arrayBuffer());
      if (a.path === "/index.html") indexHtml = body;
      const cache = HASHED.test(a.path) ? "public, max-age=31536000, immutable" : "no-cache";
      files.set(a.path, { body, headers: { "content-type": a.type, "cache-control": cache } });
    }),
  );
  return { files, indexHtml };
}
