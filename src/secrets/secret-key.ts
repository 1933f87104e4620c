import { createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The installation's master secret, kept in the data folder and never in the database, so a stolen
 * database file alone cannot forge sessions or decrypt credentials.
 */
export function loadOrCreateSecretKey(dataDir: string): Buffer {
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
