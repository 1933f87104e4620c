import type { Config } from "../config";

/**
 * Which backups are the backup manager's job and which the database's (issue 31 item 3), answered with the backup
 * list (GET /api/admin/backups), shown on the Backups screen and printed by `smsdesk backup list|create`. On SQLite
 * the data folder is the whole installation and its backups hold everything; on PostgreSQL (DATABASE_URL) the
 * records live in the database, whose own backups keep them, and the manager's part is a logical dump, which this
 * version does not make yet, since it does not serve from PostgreSQL (README "PostgreSQL mode").
 */
export type BackupDuties = {
  engine: "sqlite" | "postgresql";
  /** What the backups listed here are for, and what they hold. */
  ours: string;
  /** What the database's own backups must cover. */
  database: string;
};

/** host:port/database of a postgres:// URL, never its user or password. */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "the DATABASE_URL database";
  }
}

export function backupDuties(config: Pick<Config, "databaseUrl">): BackupDuties {
  if (!config.databaseUrl)
    return {
      engine: "sqlite",
      ours:
        "Everything of this installation: the database (SQLite, in the data folder), secret.key and the MMS pictures and files. A restore here brings all of it back.",
      database: "Nothing apart: the database is a file of the data folder, and these backups hold it.",
    };
  return {
    engine: "postgresql",
    ours:
      "An encrypted logical dump of the installation's PostgreSQL data, with secret.key and the MMS pictures and files, to move or restore a whole installation. " +
      "This version does not make it yet: it does not serve from PostgreSQL (README, \"PostgreSQL mode\"). The backups listed here hold this process's data folder only, not the PostgreSQL data.",
    database:
      `Keeping the data safe where it lives (${where(config.databaseUrl)}): continuous archiving with point-in-time recovery (WAL archiving with base backups, e.g. pgBackRest or pg_basebackup) ` +
      "or your managed service's automated backups, and a standby for failover. smsdesk neither makes nor checks them: test their restores with your database's tools.",
  };
}

/** The duties as the command line prints them. */
export function formatDuties(d: BackupDuties): string {
  return [`Backups on ${d.engine === "sqlite" ? "SQLite" : "PostgreSQL"}:`, `  smsdesk's job: ${d.ours}`, `  the database's job: ${d.database}`].join("\n");
}
