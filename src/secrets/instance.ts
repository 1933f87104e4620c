import { createHmac } from "node:crypto";

/**
 * A public name of this installation, derived from its secret key (one way: it reveals nothing of the key).
 * /api/health answers it, so `smsdesk doctor`, which reads the key from the data folder, can tell whether
 * PUBLIC_URL reaches this installation or another one.
 */
export function instanceId(secretsKey: Buffer): string {
  return createHmac("sha256", secretsKey).update("smsdesk:instance").digest("hex").slice(0, 16);
}
