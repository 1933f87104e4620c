import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, type Config } from "../config";
import { serviceRunning } from "../cli/healthcheck";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { ArchiveError } from "./archive";
import { promptHidden } from "../cli/prompt";
import { backupsDir, createBackup, importArchive, listBackups, restoreBackup } from "./backups";
import { backupDuties, formatDuties } from "./duties";
import { decryptArchive, isEncryptedArchive } from "./encryption";

const USAGE = "Unknown backup command. Use: smsdesk backup create | smsdesk backup list | smsdesk backup restore FILE";

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * `smsdesk backup create|list|restore FILE`, on the data folder of DATA_DIR. A restore from the command line is
 * for a stopped service: it swaps the files the running server would otherwise keep open. main.ts passes the way
 * to open the data folder (server.ts's, above this layer).
 */
export async function backupCommand(args: string[], open: (config: Config) => Promise<AppContext>) {
  const [command, file] = args;
  if (command !== "create" && command !== "list" && command !== "restore") throw new ConfigError(USAGE);
  if (command === "restore" && !file) throw new ConfigError("backup restore needs the archive: smsdesk backup restore FILE");
  const config = loadConfig(process.env, args.slice(command === "restore" ? 2 : 1));
  // On PostgreSQL the data folder's backups are not the installation's: say whose backups are whose first.
  if (config.databaseUrl) console.log(formatDuties(backupDuties(config)));
  if (command === "list") {
    const backups = listBackups(config.dataDir);
    if (!backups.length) console.log("No backups yet.");
    for (const b of backups) console.log(`${b.id}  ${new Date(b.createdAt).toISOString()}  ${b.status}  ${b.status === "good" ? mb(b.size) : b.error}`);
    return;
  }
  // The running server keeps the database open: it would go on serving and writing the files swapped away.
  if (command === "restore" && (await serviceRunning(config)))
    throw new ConfigError(`smsdesk is running on port ${config.port} with this data folder: stop it first (systemctl stop smsdesk), or restore from /admin/backup-manager`);
  const ctx = await open(config);
  try {
    if (command === "create") {
      const b = await createBackup(ctx, "cli");
      console.log(`Backup ${b.id} is good (${mb(b.size)}): ${config.dataDir}/backups/${b.id}.tar.gz`);
      return;
    }
    if (!existsSync(file!)) throw new ConfigError(`No such file: ${file}`);
    let imported;
    if (isEncryptedArchive(file!)) {
      // Decrypted into the backups folder first (encryption.ts); the copy is then moved into place as an upload is.
      const plain = join(backupsDir(config.dataDir), `.upload-${randomBytes(6).toString("hex")}.tar.gz`);
      mkdirSync(backupsDir(config.dataDir), { recursive: true, mode: 0o700 });
      await decryptArchive(file!, plain, await promptHidden("Backup passphrase: "));
      imported = await importArchive(config.dataDir, plain, ctx.now(), { move: true });
    } else imported = await importArchive(config.dataDir, file!, ctx.now(), { move: false });
    // No server runs in this process: nothing to pause or start around the swap.
    const { safety } = await restoreBackup(ctx, imported.id, { pause: async () => {}, resume: () => {} });
    console.log(`Restored ${file}. The data before it is backup ${safety.id}.`);
  } catch (err) {
    if (err instanceof ArchiveError || err instanceof HttpError) throw new ConfigError(err.message);
    throw err;
  } finally {
    ctx.db.$client.close();
  }
}
