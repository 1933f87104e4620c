import { createHmac, randomBytes } from "node:crypto";
import { safeEqual } from "./secure-compare";

/**
 * Session tokens are HS256 JWTs (three dot-separated segments, as the UI expects) whose `sid` names a
 * row in the sessions table: the signature rejects forgeries without a query, the row makes logout real.
 */
const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

export type TokenClaims = { sid: string; sub: string; iat: number; exp: number };

export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

export function signToken(key: Buffer, claims: TokenClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const signature = createHmac("sha256", key).update(`${HEADER}.${payload}`).digest("base64url");
  return `${HEADER}.${payload}.${signature}`;
}

export function verifyToken(key: Buffer, token: string, nowMs: number): TokenClaims | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [header, payload, signature] = parts as [string, string, string];
  const expected = createHmac("sha256", key).update(`${header}.${payload}`).digest("base64url");
  if (!safeEqual(signature, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as TokenClaims;
    if (typeof claims.sid !== "string" || typeof claims.sub !== "string" || claims.exp * 1000 <= nowMs) return null;
    return claims;
  } catch {
    return null;
  }
}
