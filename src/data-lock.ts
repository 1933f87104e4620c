import { dlopen, FFIType } from "bun:ffi";
import { closeSync, openSync, readFileSync, writeFileSync, ftruncateSync } from "node:fs";
import { join } from "node:path";

/**
 * One serving process per data folder in SQLite mode (issue 31 item 2). A second server on the same folder would
 * run a second sending engine on the same outbox and jobs (each sure it alone claims them) and each would keep its
 * own socket hub; SQLite's locks keep the file sound but not that. So a server holds an OS lock (flock, exclusive)
 * on DATA_DIR/smsdesk.lock while it runs and writes its pid there; another one refuses to start and says which
 * process holds it. The lock goes with the process (a SIGKILL included): no stale lock file to remove by hand.
 * The commands that open the database beside a running server (doctor, admin create, backup create) take no lock.
 */

export const LOCK_FILE = "smsdesk.lock";

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

let libc: { symbols: { flock: (fd: number, op: number) => number } } | null = null;
function flock(fd: number, op: number): number {
  libc ??= dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", {
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  });
  return libc.symbols.flock(fd, op);
}

export class DataFolderBusyError extends Error {}

export type DataFolderLock = { release: () => void };

export function lockDataFolder(dataDir: string): DataFolderLock {
  const path = join(dataDir, LOCK_FILE);
  const fd = openSync(path, "a+", 0o600);
  if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const holder = readFileSync(path, "utf8").trim();
    closeSync(fd);
    throw new DataFolderBusyError(
      `Another smsdesk process${holder ? ` (pid ${holder})` : ""} is serving the data folder ${dataDir}. ` +
        "On SQLite one process serves a data folder: stop that one first, or run several processes on PostgreSQL (DATABASE_URL, see README).",
    );
  }
  ftruncateSync(fd, 0);
  writeFileSync(fd, `${process.pid}\n`);
  let held = true;
  return {
    release: () => {
      if (!held) return;
      held = false;
      ftruncateSync(fd, 0);
      flock(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}
