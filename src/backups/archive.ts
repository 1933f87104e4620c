import { createHash } from "node:crypto";
import { closeSync, createReadStream, fsync, openSync, readSync, statSync, writeSync } from "node:fs";
import { createGunzip, gzipSync } from "node:zlib";

/**
 * A backup archive is a gzipped POSIX tar (ustar) of plain files, so `tar xzf` opens it anywhere. Only what
 * backups need: regular files with short names, written and read as streams.
 */

/** An entry from memory (the manifest) or read from a file as it is written (the database). */
export type ArchiveEntry = { name: string; data: Uint8Array } | { name: string; file: string };

const BLOCK = 512;
/** The tar stream is gzipped in pieces of this size, each a gzip member: gunzip and tar read them as one stream. */
const PIECE = 8 * 1024 * 1024;
/** ustar's size field: 11 octal digits. */
const MAX_ENTRY = 8 ** 11 - 1;

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

/**
 * Writes a .tar.gz to `path` (created 0600; the caller fsyncs and renames it), reading file entries piece by
 * piece, so memory stays small whatever the database's size. Answers each entry's size and SHA-256, computed on
 * the way. Synchronous: it also runs inside the database's open, before the migrations.
 */
export function writeArchive(path: string, entries: ArchiveEntry[], mtimeMs: number): Record<string, { size: number; sha256: string }> {
  const out = openSync(path, "w", 0o600);
  const files: Record<string, { size: number; sha256: string }> = {};
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const emit = (data: Uint8Array) => {
    pending.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    pendingBytes += data.byteLength;
    if (pendingBytes >= PIECE) flush();
  };
  const flush = () => {
    if (!pendingBytes) return;
    writeSync(out, gzipSync(Buffer.concat(pending)));
    pending = [];
    pendingBytes = 0;
  };
  try {
    for (const entry of entries) {
      if (new TextEncoder().encode(entry.name).length > 99) throw new Error(`archive entry name too long: ${entry.name}`);
      const hash = createHash("sha256");
      let size: number;
      if ("data" in entry) {
        size = entry.data.length;
        emit(header(entry.name, size, Math.floor(mtimeMs / 1000)));
        emit(entry.data);
        hash.update(entry.data);
      } else {
        size = statSync(entry.file).size;
        if (size > MAX_ENTRY) throw new Error(`${entry.name} is larger than a tar entry may be (8 GB)`);
        emit(header(entry.name, size, Math.floor(mtimeMs / 1000)));
        const fd = openSync(entry.file, "r");
        try {
          for (let at = 0; at < size; ) {
            const piece = Buffer.allocUnsafe(Math.min(PIECE, size - at));
            const n = readSync(fd, piece, 0, piece.length, at);
            if (n <= 0) throw new Error(`${entry.file} shrank while it was archived`);
            emit(piece.subarray(0, n));
            hash.update(piece.subarray(0, n));
            at += n;
          }
        } finally {
          closeSync(fd);
        }
      }
      files[entry.name] = { size, sha256: hash.digest("hex") };
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad) emit(new Uint8Array(pad));
    }
    emit(new Uint8Array(BLOCK * 2));
    flush();
  } finally {
    closeSync(out);
  }
  return files;
}

export class ArchiveError extends Error {}

/** Entries an archive may hold beyond those read (a newer version's extra files), and their bytes in all. */
const MAX_SKIPPED_ENTRIES = 64;
const MAX_SKIPPED_BYTES = 16 * 1024 * 1024;

/** A file read out of an archive: its size and SHA-256, and its bytes when it was kept in memory. */
export type Extracted = { size: number; sha256: string; data?: Uint8Array };

type Sink = { write(chunk: Uint8Array): void; end(): Extracted };

/**
 * Writes an entry to its file. The file is left open: the caller flushes it to disk (fsync) off the event loop once
 * the archive is read, and closes it (an fsync of 80 MB held the loop for about 100 ms).
 */
function fileSink(path: string, written: number[]): Sink {
  const fd = openSync(path, "wx", 0o600);
  written.push(fd);
  const hash = createHash("sha256");
  let size = 0;
  return {
    write(chunk) {
      writeSync(fd, chunk);
      hash.update(chunk);
      size += chunk.length;
    },
    end() {
      return { size, sha256: hash.digest("hex") };
    },
  };
}

function memorySink(name: string, limit: number): Sink {
  const parts: Uint8Array[] = [];
  let size = 0;
  return {
    write(chunk) {
      size += chunk.length;
      if (size > limit) throw new ArchiveError(`The archive's ${name} is too large`);
      parts.push(Buffer.from(chunk));
    },
    end() {
      const data = Buffer.concat(parts);
      return { size, sha256: createHash("sha256").update(data).digest("hex"), data };
    },
  };
}

/**
 * Reads a .tar.gz from disk as a stream: the entries named in `toFile` are written to their paths, those in
 * `toMemory` kept, each hashed on the way, and any other entry skipped. Memory stays small whatever the archive's
 * size (a backup holds the whole database). Each kept entry's size is checked against its bound from its header,
 * before a byte is written, and skipped entries are bounded in count and bytes: an uploaded archive is data
 * from outside, and gzip of zeros unpacks a thousand times larger (a full disk, or minutes of CPU). A truncated,
 * malformed or oversized archive throws ArchiveError; the caller removes the files written.
 */
export async function extractArchive(
  path: string,
  want: {
    toFile: Record<string, { path: string; maxBytes: number }>;
    toMemory: Record<string, number>;
    /** Told each entry kept in memory as soon as it is read: it may lower the bounds of the entries after it. */
    kept?: (name: string, data: Uint8Array) => void;
  },
): Promise<Map<string, Extracted>> {
  const out = new Map<string, Extracted>();
  let pending: Buffer = Buffer.alloc(0);
  let sink: Sink | null = null;
  let name = "";
  let remaining = 0;
  let skip = 0;
  let pad = 0;
  let ended = false;
  let skippedEntries = 0;
  let skippedBytes = 0;
  /** The files written, open until they are flushed. */
  const written: number[] = [];
  const finishEntry = () => {
    const done = sink!.end();
    out.set(name, done);
    sink = null;
    skip = pad;
    if (done.data) want.kept?.(name, done.data);
  };
  try {
    for await (const chunk of createReadStream(path).pipe(createGunzip()) as AsyncIterable<Buffer>) {
      if (ended) continue; // the zero blocks that end the tar, and whatever padding follows them
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      while (!ended) {
        if (skip > 0) {
          const n = Math.min(skip, pending.length - at);
          at += n;
          skip -= n;
          if (skip > 0) break;
        } else if (sink) {
          const n = Math.min(remaining, pending.length - at);
          sink.write(pending.subarray(at, at + n));
          at += n;
          remaining -= n;
          if (remaining > 0) break;
          finishEntry();
        } else {
          if (pending.length - at < BLOCK) break;
          const h = pending.subarray(at, at + BLOCK);
          at += BLOCK;
          if (h.every((b) => b === 0)) {
            ended = true;
            break;
          }
          const field = (start: number, length: number) => h.subarray(start, start + length).toString("latin1").replace(/\0.*$/s, "").trim();
          const sum = h.reduce((a, b, i) => a + (i >= 148 && i < 156 ? 32 : b), 0);
          if (parseInt(field(148, 8), 8) !== sum) throw new ArchiveError("The archive is damaged (bad header checksum)");
          name = field(0, 100);
          const size = parseInt(field(124, 12), 8);
          if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveError("The archive is damaged (bad entry size)");
          pad = (BLOCK - (size % BLOCK)) % BLOCK;
          const type = field(156, 1);
          const regular = type === "0" || type === "";
          if (regular && out.has(name)) throw new ArchiveError(`The archive holds ${name} twice`);
          const bound = !regular ? undefined : want.toFile[name] ? want.toFile[name]!.maxBytes : want.toMemory[name];
          if (bound !== undefined && size > bound)
            throw new ArchiveError(`The archive's ${name} is ${size.toLocaleString("en-US")} bytes, more than the ${bound.toLocaleString("en-US")} it may be here`);
          if (regular && want.toFile[name]) sink = fileSink(want.toFile[name]!.path, written);
          else if (bound !== undefined) sink = memorySink(name, bound);
          if (sink) {
            remaining = size;
            if (remaining === 0) finishEntry();
          } else {
            skippedEntries++;
            skippedBytes += size;
            if (skippedEntries > MAX_SKIPPED_ENTRIES || skippedBytes > MAX_SKIPPED_BYTES)
              throw new ArchiveError(`The archive holds more than a backup does (${name} and others)`);
            skip = size + pad;
          }
        }
      }
      pending = Buffer.from(pending.subarray(at));
    }
  } catch (err) {
    for (const fd of written.splice(0)) closeSync(fd);
    if (err instanceof ArchiveError) throw err;
    // zlib's "unexpected end of file" or "incorrect header check": not the whole gzip stream.
    throw new ArchiveError("The file is not a complete .tar.gz archive");
  } finally {
    if (sink) (sink as Sink).end();
  }
  try {
    if (!ended) throw new ArchiveError("The archive ends in the middle of a file");
    for (const fd of written) await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  } finally {
    for (const fd of written) closeSync(fd);
  }
  return out;
}
