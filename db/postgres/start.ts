import { SQL } from "bun";
import { checkKeyFingerprint, KeyMismatchError } from "./installation";
import { migratePostgres, PostgresVersionError } from "./migrate";

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
