import { and, eq, isNull } from "drizzle-orm";
import { sessions } from "../../db/schema";
import type { AppContext } from "../context";
import { findUserById, type User } from "../users/queries";
import { keyedHash } from "./secure-compare";
import { newSessionId, signToken, verifyToken } from "./tokens";

export const SESSION_COOKIE = "smsdesk_session";
export const SESSION_DAYS = 30;

export type SessionMeta = { userAgent?: string | null; ip?: string | null };

export function createSession(ctx: AppContext, userId: string, meta: SessionMeta = {}): { token: string; expiresAt: Date } {
  const sid = newSessionId();
  const issuedAt = ctx.now();
  const expiresAt = new Date(issuedAt + SESSION_DAYS * 86_400_000);
  ctx.db
    .insert(sessions)
    .values({
      id: keyedHash(ctx.keys.sessions, sid),
      userId,
      expiresAt,
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      ip: meta.ip ?? null,
    })
    .run();
  const token = signToken(ctx.keys.sessions, {
    sid,
    sub: userId,
    iat: Math.floor(issuedAt / 1000),
    exp: Math.floor(expiresAt.getTime() / 1000),
  });
  return { token, expiresAt };
}

export type ActiveSession = { sessionId: string; user: User };

export function resolveSession(ctx: AppContext, token: string): ActiveSession | null {
  const claims = verifyToken(ctx.keys.sessions, token, ctx.now());
  if (!claims) return null;
  const sessionId = keyedHash(ctx.keys.sessions, claims.sid);
  const row = ctx.db.select().from(sessions).where(eq(sessions.id, sessionId)).get();
  if (!row || row.revokedAt || row.expiresAt.getTime() <= ctx.now() || row.userId !== claims.sub) return null;
  const user = findUserById(ctx, row.userId);
  if (!user || user.disabled) return null;
  return { sessionId, user };
}

export function revokeSession(ctx: AppContext, sessionId: string) {
  ctx.db.update(sessions).set({ revokedAt: new Date(ctx.now()) }).where(eq(sessions.id, sessionId)).run();
}

export function revokeAllSessions(ctx: AppContext, userId: string) {
  ctx.db
    .update(sessions)
    .set({ revokedAt: new Date(ctx.now()) })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    .run();
}

/** Bearer header, then x-auth-token (Safari), then the httpOnly cookie. */
export function tokenFromRequest(headers: Record<string, string | undefined>, cookieToken: string | undefined) {
  const auth = headers.authorization;
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim() || undefined;
  return headers["x-auth-token"]?.trim() || cookieToken || undefined;
}

/**
 * The session token of a raw request: Bearer, x-auth-token, or the session cookie. Reads the request itself, so
 * it does not depend on which parts of the context Elysia decided to parse for a route.
 */
export function tokenOfRequest(request: Request): string | undefined {
  const cookies = request.headers.get("cookie") ?? "";
  const match = cookies.split(";").map((c) => c.trim()).find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  const cookieToken = match ? decodeURIComponent(match.slice(SESSION_COOKIE.length + 1)) : undefined;
  return tokenFromRequest(
    { authorization: request.headers.get("authorization") ?? undefined, "x-auth-token": request.headers.get("x-auth-token") ?? undefined },
    cookieToken || undefined,
  );
}

export function sessionCookie(ctx: AppContext, token: string, expiresAt: Date) {
  return {
    value: token,
    httpOnly: true,
    sameSite: "lax" as const,
    secure: ctx.config.publicUrl.startsWith("https:"),
    path: "/",
    expires: expiresAt,
  };
}
