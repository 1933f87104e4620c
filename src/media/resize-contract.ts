import type { MediaType } from "../../shared/media/sniff";

/**
 * What the server's thread and the resizing thread (resize-worker.ts) share, apart from the codecs: the server
 * imports it at start, and jpeg-js and pngjs (with node:zlib and node:stream) load only in the resizing thread.
 */

/** A picture or GIF that cannot be made to fit what an MMS carries (413). */
export class TooLarge extends Error {}

/** What the resizing thread is asked and answers. */
export type FitRequest = { bytes: Uint8Array; type: MediaType };
export type FitAnswer = { ok: true; bytes: Uint8Array; type: MediaType } | { ok: false; tooLarge: boolean; message: string };
