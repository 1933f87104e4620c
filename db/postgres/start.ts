import { SQL } from "bun";
import { checkKeyFingerprint, KeyMismatchError } from "./installation";
import { migratePostgres, postgresMigrations, PostgresVersionError } from "./migrate";

/** A postgres:// URL without its password, to name the database in messages and logs. */
export function describeDatabase(url: string): string {
  const u = new URL(url);
  return `${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`;
}

/**
 * What a process does on PostgreSQL before it serves: the schema migrated (one process at a time, db/postgres/
 * migrate.ts) and this process's key checked against the installation's (db/postgres/installation.ts).
 */
export async function preparePostgres(
  url: string,
  key: { fingerprint: string; source: string },
  now: number,
  log: (line: string) => void,
): Promise<void> {
  const sql = new SQL(url, { max: 1, connectionTimeout: 10 });
  try {
    await sql`SELECT 1`.catch((err: Error) => {
      throw new PostgresStartError(`Cannot reach the PostgreSQL database of DATABASE_URL (${describeDatabase(url)}): ${err.message}`);
    });
    const applied = await migratePostgres(sql, log);
    if (applied.length) log(`PostgreSQL: ${applied.length} migration(s) applied to ${describeDatabase(url)}`);
    const key_ = await checkKeyFingerprint(sql, key.fingerprint, key.source, now);
    if (key_ === "stored") log(`PostgreSQL: this installation's key fingerprint (instance ${key.fingerprint}) stored`);
  } catch (err) {
    if (err instanceof PostgresVersionError || err instanceof KeyMismatchError) throw new PostgresStartError(err.message);
    throw err;
  } finally {
    await sql.close();
  }
}

/** What the operator must change before this process can start on PostgreSQL: the message says what. */
export class PostgresStartError extends Error {}

/** What `smsdesk doctor` reads of the installation's PostgreSQL database, changing nothing (src/cli/doctor.ts). */
export type PostgresReport =
  | { reachable: false; database: string; error: string }
  | {
      reachable: true;
      database: string;
      /** PostgreSQL's server_version. */
      version: string;
      /** This version's migrations, those not applied yet, and applied ones this version does not know (a newer one's). */
      migrations: string[];
      pending: string[];
      unknown: string[];
      /** The installation's key fingerprint, null when no process stored it yet. */
      keyFingerprint: string | null;
      /** Connections open to the server (every database) and its max_connections. */
      connections: number;
      maxConnections: number;
    };

export async function readPostgresReport(url: string): Promise<PostgresReport> {
  const database = describeDatabase(url);
  const sql = new SQL(url, { max: 1, connectionTimeout: 5 });
  try {
    const [server] = (await sql`SELECT current_setting('server_version') AS version, current_setting('max_connections')::int AS max,
      (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') AS open,
      to_regclass('smsdesk_migrations') IS NOT NULL AS migrated, to_regclass('smsdesk_installation') IS NOT NULL AS keyed`) as {
      version: string;
      max: number;
      open: number;
      migrated: boolean;
      keyed: boolean;
    }[];
    const applied = server!.migrated ? ((await sql`SELECT tag FROM smsdesk_migrations`) as { tag: string }[]).map((r) => r.tag) : [];
    const known = postgresMigrations().map((m) => m.tag);
    const [key] = server!.keyed ? ((await sql`SELECT key_fingerprint FROM smsdesk_installation WHERE id = 1`) as { key_fingerprint: string }[]) : [];
    return {
      reachable: true,
      database,
      version: server!.version,
      migrations: known,
      pending: known.filter((tag) => !applied.includes(tag)),
      unknown: applied.filter((tag) => !known.includes(tag)),
      keyFingerprint: key?.key_fingerprint ?? null,
      connections: server!.open,
      maxConnections: server!.max,
    };
  } catch (err) {
    return { reachable: false, database, error: (err as Error).message };
  } finally {
    await sql.close();
  }
}
