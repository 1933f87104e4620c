import { and, desc, eq, gt, inArray, isNull, ne } from "drizzle-orm";
import { sessions } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { notFound } from "../http/errors";
import { findUserById, type User } from "../users/queries";
import { keyedHash } from "./secure-compare";
import { newSessionId, signToken, verifyToken } from "./tokens";

export const SESSION_COOKIE = "smsdesk_session";
export const SESSION_DAYS = 30;
/** lastSeenAt is written at most this often per session, so a busy session costs one write a minute, not one per call. */
export const LAST_SEEN_EVERY_MS = 60_000;

export type SessionMeta = { userAgent?: string | null; ip?: string | null };

export async function createSession(ctx: AppContext, userId: string, meta: SessionMeta = {}): Promise<{ token: string; expiresAt: Date }> {
  await ready(ctx.db);
  const sid = newSessionId();
  const issuedAt = ctx.now();
  const expiresAt = new Date(issuedAt + SESSION_DAYS * 86_400_000);
  await ctx.records
    .insert(sessions)
    .values({
      id: keyedHash(ctx.keys.sessions, sid),
      userId,
      createdAt: new Date(issuedAt),
      expiresAt,
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      ip: meta.ip ?? null,
      lastSeenAt: new Date(issuedAt),
      // confirmedAt stays empty: a sign-in is not a confirmation (src/auth/reauth.ts). A session stolen in its first
      // minutes would otherwise mint API keys and webhooks with no question asked.
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

export async function resolveSession(ctx: AppContext, token: string): Promise<ActiveSession | null> {
  if (!verifyToken(ctx.keys.sessions, token, ctx.now())) return null;
  await ready(ctx.db);
  return await resolveNow(ctx, token);
}

/**
 * The account of a session token, or null: resolveSession for the live sockets, which check a socket's session at
 * the upgrade, on its auth message, and again every few minutes while it is open.
 */
export async function liveSessionUserId(ctx: AppContext, token: string): Promise<string | null> {
  return (await resolveSession(ctx, token))?.user.id ?? null;
}

async function resolveNow(ctx: AppContext, token: string): Promise<ActiveSession | null> {
  const claims = verifyToken(ctx.keys.sessions, token, ctx.now());
  if (!claims) return null;
  const sessionId = keyedHash(ctx.keys.sessions, claims.sid);
  const row = await ctx.records.select().from(sessions).where(eq(sessions.id, sessionId)).get();
  if (!row || row.revokedAt || row.expiresAt.getTime() <= ctx.now() || row.userId !== claims.sub) return null;
  const user = await findUserById(ctx, row.userId);
  if (!user || user.disabled) return null;
  const now = ctx.now();
  if (!row.lastSeenAt || now - row.lastSeenAt.getTime() >= LAST_SEEN_EVERY_MS) {
    await ctx.records.update(sessions).set({ lastSeenAt: new Date(now) }).where(eq(sessions.id, sessionId)).run();
  }
  return { sessionId, user };
}

/** The holder of the session proved again who they are (a password, a code or a passkey): sudo mode starts now. */
export async function confirmSession(ctx: AppContext, sessionId: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.update(sessions).set({ confirmedAt: new Date(ctx.now()) }).where(eq(sessions.id, sessionId)).run();
}

/** When the session's holder last confirmed who they are (a password, a code or a passkey), or null. */
export async function sessionConfirmedAt(ctx: AppContext, sessionId: string): Promise<number | null> {
  await ready(ctx.db);
  return (await ctx.records.select({ at: sessions.confirmedAt }).from(sessions).where(eq(sessions.id, sessionId)).get())?.at?.getTime() ?? null;
}

const endedListeners = new WeakMap<AppContext, ((userId: string) => void)[]>();

/**
 * Called with the account whose sessions were revoked, after the revoking transaction (a microtask later): the
 * WebSocket hub closes that account's sockets whose session ended at once, instead of at their next push.
 */
export function onSessionsEnded(ctx: AppContext, listener: (userId: string) => void) {
  endedListeners.set(ctx, [...(endedListeners.get(ctx) ?? []), listener]);
}

function sessionsEnded(ctx: AppContext, userId: string) {
  const listeners = endedListeners.get(ctx);
  if (listeners) queueMicrotask(() => listeners.forEach((listener) => listener(userId)));
}

export async function revokeSession(ctx: AppContext, sessionId: string) {
  await ready(ctx.db);
  const ended = await ctx.records.update(sessions).set({ revokedAt: new Date(ctx.now()) }).where(eq(sessions.id, sessionId)).returning({ userId: sessions.userId }).get();
  if (ended) sessionsEnded(ctx, ended.userId);
}

/**
 * Every session of the account ends: for changes made by someone else (an administrator, the command line, Google
 * linking) and a password reset. Answers the ids of the sessions it ended.
 */
export async function revokeAllSessions(ctx: AppContext, userId: string): Promise<string[]> {
  await ready(ctx.db);
  const ended = (
    await ctx.records
      .update(sessions)
      .set({ revokedAt: new Date(ctx.now()) })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
      .returning({ id: sessions.id })
      .all()
  ).map((r) => r.id);
  sessionsEnded(ctx, userId);
  return ended;
}

/**
 * Every session but `keepSessionId` ends: for the user's own security changes, made from the session they keep.
 * Answers the ids of the sessions it ended.
 */
export async function revokeOtherSessions(ctx: AppContext, userId: string, keepSessionId: string): Promise<string[]> {
  await ready(ctx.db);
  const ended = (
    await ctx.records
      .update(sessions)
      .set({ revokedAt: new Date(ctx.now()) })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), ne(sessions.id, keepSessionId)))
      .returning({ id: sessions.id })
      .all()
  ).map((r) => r.id);
  if (ended.length) sessionsEnded(ctx, userId);
  return ended;
}

/** The ids of the sessions not revoked: a restore keeps no other session alive in the restored data. */
export async function unrevokedSessionIds(ctx: AppContext): Promise<Set<string>> {
  await ready(ctx.db);
  return new Set((await ctx.records.select({ id: sessions.id }).from(sessions).where(isNull(sessions.revokedAt)).all()).map((r) => r.id));
}

/**
 * Ends every session but those in `alive` (after a restore, the sessions not revoked before it): a backup from
 * before a sign-out, a password change or a "sign out of all other sessions" would otherwise bring back the
 * sessions they ended, a stolen one among them.
 */
export async function endSessionsExcept(ctx: AppContext, alive: Set<string>) {
  const doomed = [...(await unrevokedSessionIds(ctx))].filter((id) => !alive.has(id));
  await ready(ctx.db);
  for (let i = 0; i < doomed.length; i += 500) {
    await ctx.records.update(sessions).set({ revokedAt: new Date(ctx.now()) }).where(inArray(sessions.id, doomed.slice(i, i + 500))).run();
  }
}

/** The user's own session `sessionId` ends; another user's (or an unknown) id answers 404 like a missing one. */
export async function revokeOwnSession(ctx: AppContext, userId: string, sessionId: string) {
  await ready(ctx.db);
  const ended = await ctx.records
    .update(sessions)
    .set({ revokedAt: new Date(ctx.now()) })
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id })
    .all();
  if (ended.length === 0) throw notFound("Session not found");
  sessionsEnded(ctx, userId);
}

/**
 * The account's sessions that still work, most recently used first. The id is the row's key: a keyed hash of the
 * token's random session id, so it names a session without being able to stand in for its token.
 */
export async function listSessions(ctx: AppContext, userId: string, currentSessionId: string) {
  await ready(ctx.db);
  const rows = await ctx.records
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, new Date(ctx.now()))))
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt))
    .all();
  return rows.map((s) => ({
    id: s.id,
    device: describeDevice(s.userAgent),
    ip: s.ip,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: (s.lastSeenAt ?? s.createdAt).toISOString(),
    current: s.id === currentSessionId,
  }));
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\b(?:OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(?:Firefox|FxiOS)\//, "Firefox"],
  [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/^curl\//, "curl"],
];
const SYSTEMS: [RegExp, string][] = [
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** "Chrome on Linux" from a user agent; what cannot be told is named as such rather than guessed. */
export function describeDevice(userAgent: string | null | undefined): string {
  if (!userAgent) return "Unknown device";
  const browser = BROWSERS.find(([re]) => re.test(userAgent))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `Browser on ${system}` : "Unknown device");
}

/** Bearer header, then x-auth-token (Safari), then the httpOnly cookie. */
export function tokenFromRequest(headers: Record<string, string | undefined>, cookieToken: string | undefined) {
  const auth = headers.authorization;
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim() || undefined;
  return headers["x-auth-token"]?.trim() || cookieToken || undefined;
}

/** A cookie value that is not valid percent-encoding (`%E0%A4%A`) is no token at all, not a server error. */
function decodeCookie(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * The session token of a raw request: Bearer, x-auth-token, or the session cookie. Reads the request itself, so
 * it does not depend on which parts of the context Elysia decided to parse for a route.
 */
export function tokenOfRequest(request: Request): string | undefined {
  const cookies = request.headers.get("cookie") ?? "";
  const match = cookies.split(";").map((c) => c.trim()).find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  const cookieToken = match ? decodeCookie(match.slice(SESSION_COOKIE.length + 1)) : undefined;
  return tokenFromRequest(
    { authorization: request.headers.get("authorization") ?? undefined, "x-auth-token": request.headers.get("x-auth-token") ?? undefined },
    cookieToken || undefined,
  );
}

/**
 * Beside the httpOnly session cookie, a readable `smsdesk_signed_in=1` with the same lifetime: it holds no secret,
 * it only tells the page that a session may exist, so a visitor's page does not ask /api/auth/user (and log a 401)
 * on every load, while a session made outside the page (an API sign-in, another tab, Google) is still found.
 */
export const SIGNED_IN_COOKIE = "smsdesk_signed_in";

type CookieJar = Record<string, { set(options: Record<string, unknown>): unknown } | undefined>;

export function setSessionCookies(ctx: AppContext, cookie: CookieJar, token: string, expiresAt: Date) {
  const common = { sameSite: "lax" as const, secure: ctx.config.publicUrl.startsWith("https:"), path: "/", expires: expiresAt };
  cookie[SESSION_COOKIE]!.set({ ...common, value: token, httpOnly: true });
  cookie[SIGNED_IN_COOKIE]!.set({ ...common, value: "1", httpOnly: false });
}

export function clearSessionCookies(cookie: CookieJar) {
  cookie[SESSION_COOKIE]!.set({ value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: "lax" });
  cookie[SIGNED_IN_COOKIE]!.set({ value: "", maxAge: 0, path: "/", httpOnly: false, sameSite: "lax" });
}
