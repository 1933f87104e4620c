import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { deriveKey } from "./secret-key";

/**
 * A public name of this installation, derived from its secret key (one way: it reveals nothing of the key).
 * /api/health answers it, so `smsdesk doctor`, which reads the key from the data folder, can tell whether
 * PUBLIC_URL reaches this installation or another one.
 */
export function instanceId(secretsKey: Buffer): string {
  return createHmac("sha256", secretsKey).update("smsdesk:instance").digest("hex").slice(0, 16);
}

/**
 * The instance id of a data folder, read from its secret.key (or SECRET_KEY_FILE, `keyFile`) without creating one
 * (null: no readable key).
 */
export function dataDirInstanceId(dataDir: string, keyFile: string | null = null): string | null {
  const path = keyFile ?? join(dataDir, "secret.key");
  if (!existsSync(path)) return null;
  const master = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
  return master.length === 32 ? instanceId(deriveKey(master, "secrets")) : null;
}
