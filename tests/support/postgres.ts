/**
 * Throwaway PostgreSQL databases on the local server (127.0.0.1:5432, trust authentication; CI starts it if it is
 * down): each test makes its own, smsdesk_test_<random>, and drops it after.
 *
 *   const pg = await throwawayDatabase();   // pg.url, pg.sql (a client on it)
 *   afterAll(() => pg.drop());
 */
import { SQL } from "bun";
import { randomBytes } from "node:crypto";

export const POSTGRES_SERVER = process.env.SMSDESK_TEST_POSTGRES ?? "postgres://postgres@127.0.0.1:5432";

export type ThrowawayDatabase = { name: string; url: string; sql: SQL; drop: () => Promise<void> };

export async function throwawayDatabase(): Promise<ThrowawayDatabase> {
  const name = `smsdesk_test_${randomBytes(6).toString("hex")}`;
  const admin = new SQL(`${POSTGRES_SERVER}/postgres`, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = `${POSTGRES_SERVER}/${name}`;
  const sql = new SQL(url, { max: 4 });
  return {
    name,
    url,
    sql,
    drop: async () => {
      await sql.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}
