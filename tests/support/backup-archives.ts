// Backup archives made by hand from a real one: what an attacker (or an older version) would upload.
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractArchive, writeArchive } from "../../src/backups/archive";
import { recordBackup, type BackupInfo, type Manifest } from "../../src/backups/backups";

const digest = (data: Uint8Array) => ({ size: data.length, sha256: createHash("sha256").update(data).digest("hex") });

/**
 * The archive at `source` with `sql` run on its database, its manifest made to match again (as anyone can), packed
 * manifest first (the current format) or last (format 1, older versions). Answers the bytes and the manifest.
 */
export async function alteredArchive(source: string, sql: string[], format: 1 | 2 = 2): Promise<{ bytes: Uint8Array; manifest: Manifest }> {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-altered-"));
  try {
    const files = await extractArchive(source, {
      toFile: { "smsdesk.db": { path: join(dir, "smsdesk.db"), maxBytes: 1 << 30 } },
      toMemory: { "manifest.json": 1 << 20, "secret.key": 1024 },
    });
    const db = new Database(join(dir, "smsdesk.db"));
    for (const statement of sql) db.exec(statement);
    db.close();
    const data = readFileSync(join(dir, "smsdesk.db"));
    const key = files.get("secret.key")!.data!;
    const manifest: Manifest = {
      ...(JSON.parse(Buffer.from(files.get("manifest.json")!.data!).toString()) as Manifest),
      format,
      files: { "smsdesk.db": digest(data), "secret.key": digest(key) },
    };
    const entries = [
      { name: "smsdesk.db", data },
      { name: "secret.key", data: key },
    ];
    const manifestEntry = { name: "manifest.json", data: Buffer.from(JSON.stringify(manifest)) };
    writeArchive(join(dir, "out.tar.gz"), format === 2 ? [manifestEntry, ...entries] : [...entries, manifestEntry], Date.now());
    return { bytes: readFileSync(join(dir, "out.tar.gz")), manifest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Puts an archive among a data folder's backups as if it had been stored before its checks existed. */
export async function plantBackup(dataDir: string, id: string, archive: { bytes: Uint8Array; manifest: Manifest }): Promise<BackupInfo> {
  await Bun.write(join(dataDir, "backups", `${id}.tar.gz`), archive.bytes);
  return recordBackup(dataDir, { id, size: archive.bytes.length, createdAt: Date.now(), reason: "uploaded", status: "good", error: null, manifest: archive.manifest });
}

/** The SQL that made a restored appliance keep revoked sessions forever: sign-out stops working. */
export const KEEP_SESSIONS_ALIVE = [
  "CREATE TRIGGER keep_sessions BEFORE UPDATE OF revoked_at ON sessions BEGIN SELECT RAISE(IGNORE); END",
  "CREATE VIEW every_session AS SELECT id, user_id FROM sessions",
];
