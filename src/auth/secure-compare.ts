import { createHmac, timingSafeEqual } from "node:crypto";

/** Short-lived codes and tokens are stored as keyed hashes, never in the clear. */
export function keyedHash(key: Buffer, value: string): string {
  return createHmac("sha256", key).update(value).digest("base64url");
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
