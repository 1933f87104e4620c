// pngjs ships no types; the one call the resize uses (src/media/resize.ts).
declare module "pngjs" {
  export const PNG: {
    sync: { read(buffer: Buffer): { width: number; height: number; data: Buffer } };
  };
}
