import { createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The installation's master secret, kept in the data folder and never in the database, so a stolen
 * database file alone cannot forge sessions or decrypt credentials. With SECRET_KEY_FILE (`keyFile`) it is read from
 * that file instead, never created there: several processes of one installation share one key, which the operator
 * hands each of them (a mounted secret), and a missing one is an error rather than a new key.
 */
export function loadOrCreateSecretKey(dataDir: string, keyFile: string | null = null): Buffer {
  if (keyFile) return readKeyFile(keyFile);
  const path = join(dataDir, "secret.key");
  if (existsSync(path)) {
    // A key an older version (or a restore) left readable by others.
    chmodSync(path, 0o600);
    const key = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
    if (key.length !== 32) throw new Error(`${path} is damaged: expected 32 bytes of base64`);
    return key;
  }
  const key = randomBytes(32);
  writeFileSync(path, key.toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  return key;
}

/** A separate key per purpose, so one use can never be replayed as another. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return createHmac("sha256", master).update(`smsdesk:${purpose}`).digest();
}

/** The key of SECRET_KEY_FILE: 32 bytes in base64. Its mode is left alone (a mounted secret may be read-only). */
function readKeyFile(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new SecretKeyError(`SECRET_KEY_FILE ${path} cannot be read: ${(err as Error).message}`);
  }
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new SecretKeyError(`SECRET_KEY_FILE ${path} is not a secret key: expected 32 bytes of base64 (a data folder's secret.key)`);
  return key;
}

/** A key the operator pointed at that cannot be used: the message says which file and why. */
export class SecretKeyError extends Error {}
