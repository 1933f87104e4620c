import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, type Config } from "../config";
import { lockDataFolder } from "../data-lock";
import { dataDirInstanceId } from "../secrets/instance";

/** What the copy answers (db/postgres/copy.ts, handed in by src/main.ts: the command line does not open databases). */
export type CopyResult = { tables: { table: string; rows: number; checksum: string }[]; rows: number; database: string };
export type CopyDatabase = (
  config: Config,
  url: string,
  key: { fingerprint: string; source: string },
  log: (line: string) => void,
) => Promise<CopyResult>;

export const MIGRATE_USAGE = "smsdesk migrate --to postgres://user:password@host:5432/database";

/** A URL as it may be printed: without its password. */
const withoutPassword = (url: string) => {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
};

/**
 * `smsdesk migrate --to postgres://...`: the data folder's SQLite database copied into an empty PostgreSQL database
 * and verified, with the server of that folder stopped (its lock is taken for the copy, so nothing changes during it),
 * then what to change printed. The SQLite database is left as it was: the way back.
 */
export async function migrateCommand(args: string[], copy: CopyDatabase, print: (line: string) => void = console.log): Promise<void> {
  const i = args.findIndex((a) => a === "--to" || a.startsWith("--to="));
  if (i < 0) throw new ConfigError(`migrate needs the target: ${MIGRATE_USAGE}`);
  const [arg] = args.splice(i, 1) as [string];
  const url = arg.includes("=") ? arg.slice("--to=".length) : args.splice(i, 1)[0];
  if (!url || !/^postgres(ql)?:\/\/\S+$/.test(url)) throw new ConfigError(`migrate --to needs a postgres:// URL: ${MIGRATE_USAGE}`);
  const config = loadConfig(process.env, args);
  const dbPath = join(config.dataDir, "smsdesk.db");
  if (!existsSync(dbPath)) throw new ConfigError(`There is no smsdesk database in ${config.dataDir} to copy (DATA_DIR or --data-dir names the data folder)`);
  const keySource = config.secretKeyFile ?? join(config.dataDir, "secret.key");
  const fingerprint = dataDirInstanceId(config.dataDir, config.secretKeyFile);
  if (!fingerprint) throw new ConfigError(`The installation's secret key ${keySource} is missing or damaged: the copy's credentials could not be read with another`);
  const lock = lockDataFolder(config.dataDir);
  try {
    print(`smsdesk migrate: copying ${dbPath} into ${withoutPassword(url)}`);
    const result = await copy(config, url, { fingerprint, source: keySource }, print);
    const width = Math.max(...result.tables.map((t) => t.table.length));
    print(`Verified: ${result.tables.length} tables, ${result.rows.toLocaleString("en-US")} rows; each table's row count and checksum are the same in SQLite and PostgreSQL.`);
    for (const t of result.tables) print(`  ${t.table.padEnd(width)}  ${t.rows.toLocaleString("en-US").padStart(11)}  ${t.checksum.slice(0, 16)}`);
    print(
      [
        "",
        "What to change (once smsdesk serves from PostgreSQL: this version migrates and checks a DATABASE_URL, then refuses",
        'to start with it, as README "PostgreSQL mode" says; keep running on SQLite until then):',
        `  1. Every process of the installation: DATABASE_URL=${withoutPassword(url)} (with its password).`,
        `  2. The secret key: copy ${keySource} into each process's DATA_DIR as secret.key, or point SECRET_KEY_FILE at a copy;`,
        `     the database knows its fingerprint (instance ${fingerprint}) and a process with another key refuses to start.`,
        `  3. ${dbPath} is unchanged: the way back. What it records after this copy is not in PostgreSQL: copy again, into a`,
        "     new empty database, right before switching.",
      ].join("\n"),
    );
  } finally {
    lock.release();
  }
}
