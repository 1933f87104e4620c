import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { ArchiveError } from "./archive";

/**
 * The pictures and files of MMS (DATA_DIR/media/<user>/<id>, issue 33) in a backup. The archive holds them as
 * media/<user>/<id> entries after media.json, which lists each with its size and SHA-256; the manifest (the
 * archive's first entry) holds media.json's own size and hash. So a reader knows every entry's size from what came
 * before it: the manifest bounds media.json, media.json bounds each file (issue 27's manifest-first bounds).
 */

export const MEDIA_LIST = "media.json";
const MEDIA_DIR = "media";
/** An entry name of a media file: media/<user>/<id>, ids of letters, digits and dashes (no path can escape). */
const MEDIA_ENTRY = /^media\/[A-Za-z0-9-]{1,64}\/[A-Za-z0-9-]{1,64}$/;
/** media.json's size at most: about 180 bytes an item, so some 180,000 items. */
export const MAX_MEDIA_LIST_BYTES = 32 * 1024 * 1024;

/** What media.json holds: each entry's [size, sha256]. */
export type MediaList = Record<string, [number, string]>;

function digest(path: string): [number, string] {
  const hash = createHash("sha256");
  const fd = openSync(path, "r");
  const piece = Buffer.allocUnsafe(1024 * 1024);
  let size = 0;
  try {
    for (let n; (n = readSync(fd, piece, 0, piece.length, size)) > 0; size += n) hash.update(piece.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return [size, hash.digest("hex")];
}

/** The data folder's media files, each as its entry name and path, with the list of their sizes and hashes. */
export function mediaToArchive(dataDir: string): { list: MediaList; entries: { name: string; file: string }[] } {
  const root = join(dataDir, MEDIA_DIR);
  const list: MediaList = {};
  const entries: { name: string; file: string }[] = [];
  if (!existsSync(root)) return { list, entries };
  for (const user of readdirSync(root, { withFileTypes: true })) {
    if (!user.isDirectory()) continue;
    for (const item of readdirSync(join(root, user.name), { withFileTypes: true })) {
      const name = `${MEDIA_DIR}/${user.name}/${item.name}`;
      // A half-written upload (.part) is no item yet.
      if (!item.isFile() || !MEDIA_ENTRY.test(name)) continue;
      const file = join(root, user.name, item.name);
      list[name] = digest(file);
      entries.push({ name, file });
    }
  }
  return { list, entries };
}

/** Parses media.json read from an archive: ArchiveError for anything but a list of media entries. */
export function parseMediaList(bytes: Uint8Array): MediaList {
  let list: unknown;
  try {
    list = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new ArchiveError("The archive's media.json is not valid JSON");
  }
  if (typeof list !== "object" || list === null || Array.isArray(list)) throw new ArchiveError("The archive's media.json is not a list of media files");
  for (const [name, v] of Object.entries(list)) {
    if (!MEDIA_ENTRY.test(name) || !Array.isArray(v) || !Number.isSafeInteger(v[0]) || v[0] < 0 || typeof v[1] !== "string" || !/^[0-9a-f]{64}$/.test(v[1]))
      throw new ArchiveError(`The archive's media.json names an entry it may not (${name.slice(0, 80)})`);
  }
  return list as MediaList;
}

/**
 * Registers each listed file to be unpacked into `stagingDir`/media/<user>/<id>, bounded by its listed size, once
 * their total fits in `room` bytes of disk. Answers the staging media folder.
 */
export function stageMedia(list: MediaList, stagingDir: string, room: number, toFile: Record<string, { path: string; maxBytes: number }>): string {
  const total = Object.values(list).reduce((sum, [size]) => sum + size, 0);
  if (total > room) throw new ArchiveError(`The archive's pictures and files take ${total.toLocaleString("en-US")} bytes, more than the disk has free`);
  const dir = join(stagingDir, MEDIA_DIR);
  mkdirSync(dir, { mode: 0o700 });
  for (const [name, [size]] of Object.entries(list)) {
    const user = name.split("/")[1]!;
    mkdirSync(join(dir, user), { recursive: true, mode: 0o700 });
    toFile[name] = { path: join(stagingDir, name), maxBytes: size };
  }
  return dir;
}

/** Every listed file was unpacked with its listed size and hash: ArchiveError naming the first that was not. */
export function checkMedia(list: MediaList, found: Map<string, { size: number; sha256: string }>) {
  for (const [name, [size, sha256]] of Object.entries(list)) {
    const got = found.get(name);
    if (!got) throw new ArchiveError(`The archive has no ${name}, which its media.json lists`);
    if (got.size !== size || got.sha256 !== sha256) throw new ArchiveError(`${name} does not match media.json's SHA-256: the archive was changed or damaged`);
  }
}

export const mediaDirOf = (dataDir: string) => join(dataDir, MEDIA_DIR);
