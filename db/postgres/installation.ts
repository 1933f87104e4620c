import type { SQL } from "bun";

/**
 * What every process of one PostgreSQL installation must agree on, kept in the database: the fingerprint of the
 * secret key (its instance id, src/secrets/instance.ts: one way, it reveals nothing of the key). The first process
 * (or `smsdesk migrate`) stores it; a process with another key would write credentials and sessions the others
 * cannot read, so it refuses to start and says why.
 */
export class KeyMismatchError extends Error {}

export async function checkKeyFingerprint(sql: SQL, fingerprint: string, keySource: string, now: number): Promise<"stored" | "matches"> {
  await sql.unsafe("CREATE TABLE IF NOT EXISTS smsdesk_installation (id int PRIMARY KEY CHECK (id = 1), key_fingerprint text NOT NULL, created_at bigint NOT NULL)");
  const inserted = (await sql`INSERT INTO smsdesk_installation (id, key_fingerprint, created_at) VALUES (1, ${fingerprint}, ${now})
    ON CONFLICT (id) DO NOTHING RETURNING id`) as unknown[];
  if (inserted.length) return "stored";
  const [row] = (await sql`SELECT key_fingerprint FROM smsdesk_installation WHERE id = 1`) as { key_fingerprint: string }[];
  if (row!.key_fingerprint === fingerprint) return "matches";
  throw new KeyMismatchError(
    `This process's secret key (${keySource}, instance ${fingerprint}) is not the one of the installation in this PostgreSQL ` +
      `database (instance ${row!.key_fingerprint}). Every process of one installation needs the same key: copy the ` +
      "installation's secret.key into this process's DATA_DIR, or point SECRET_KEY_FILE at it.",
  );
}
