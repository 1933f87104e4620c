import { gunzipSync, gzipSync } from "node:zlib";

/**
 * A backup archive is a gzipped POSIX tar (ustar) of plain files, so `tar xzf` opens it anywhere. Only what
 * backups need: regular files with short names, written and read whole.
 */

export type ArchiveEntry = { name: string; data: Uint8Array };

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

function header(name: string, size: number, mtimeSeconds: number): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (text: string, offset: number) => h.set(new TextEncoder().encode(text), offset);
  put(name, 0);
  put(octal(0o600, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(mtimeSeconds, 12), 136);
  put("        ", 148); // the checksum is computed with its own field as spaces
  put("0", 156);
  put("ustar\0", 257);
  put("00", 263);
  const sum = h.reduce((a, b) => a + b, 0);
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return h;
}

export function packArchive(entries: ArchiveEntry[], mtimeMs: number): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    if (new TextEncoder().encode(entry.name).length > 99) throw new Error(`archive entry name too long: ${entry.name}`);
    parts.push(header(entry.name, entry.data.length, Math.floor(mtimeMs / 1000)), entry.data);
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return gzipSync(Buffer.concat(parts));
}

export class ArchiveError extends Error {}

/** Reads every regular file of a .tar.gz; a truncated or malformed archive throws ArchiveError. */
export function unpackArchive(bytes: Uint8Array): Map<string, Uint8Array> {
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes);
  } catch {
    throw new ArchiveError("The file is not a complete .tar.gz archive");
  }
  const files = new Map<string, Uint8Array>();
  let offset = 0;
  for (;;) {
    if (offset + BLOCK > tar.length) throw new ArchiveError("The archive ends in the middle of a file");
    const h = tar.subarray(offset, offset + BLOCK);
    if (h.every((b) => b === 0)) return files;
    const field = (start: number, length: number) => h.subarray(start, start + length).toString("latin1").replace(/\0.*$/s, "").trim();
    const stored = parseInt(field(148, 8), 8);
    const sum = h.reduce((a, b, i) => a + (i >= 148 && i < 156 ? 32 : b), 0);
    if (stored !== sum) throw new ArchiveError("The archive is damaged (bad header checksum)");
    const name = field(0, 100);
    const size = parseInt(field(124, 12), 8);
    const type = field(156, 1);
    offset += BLOCK;
    if (!Number.isSafeInteger(size) || offset + size > tar.length) throw new ArchiveError("The archive ends in the middle of a file");
    if (type === "0" || type === "") files.set(name, tar.subarray(offset, offset + size));
    offset += size + ((BLOCK - (size % BLOCK)) % BLOCK);
  }
}
