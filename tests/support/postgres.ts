/**
 * Throwaway PostgreSQL databases on the local server (127.0.0.1:5432, trust authentication; CI starts it if it is
 * down): each test makes its own, smsdesk_test_<random>, and drops it after.
 *
 *   const pg = await throwawayDatabase();   // pg.url, pg.sql (a client on it)
 *   afterAll(() => pg.drop());
 */
import { SQL } from "bun";
import { randomBytes } from "node:crypto";
import { migratePostgres } from "../../db/postgres/migrate";

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

/**
 * A migrated database with one account ('u1'), its Twilio account ('a1') and the sender numbers given (id to phone):
 * what the engine's PostgreSQL statements (claims, pace) need to run against real foreign keys.
 */
export async function migratedWithSender(numbers: Record<string, string>): Promise<ThrowawayDatabase> {
  const pg = await throwawayDatabase();
  await migratePostgres(pg.sql);
  await pg.sql.unsafe(`INSERT INTO users (id, email, created_at, updated_at) VALUES ('u1', 'pat@example.com', 0, 0)`);
  await pg.sql.unsafe(`INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, created_at) VALUES ('a1', 'u1', 'twilio', 'Twilio', '', 0)`);
  for (const [id, phone] of Object.entries(numbers))
    await pg.sql`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, created_at) VALUES (${id}, 'u1', 'a1', ${phone}, 0)`;
  return pg;
}
