import { eq, sql } from "drizzle-orm";
import { userSecurity } from "../../db/schema";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import type { User } from "../users/queries";
import { verifyPassword } from "./passwords";

export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_MINUTES = 15;

export const INVALID_CREDENTIALS = "Invalid credentials";

function lockedError(untilMs: number, now: number) {
  const minutes = Math.max(1, Math.ceil((untilMs - now) / 60_000));
  const seconds = Math.max(1, Math.ceil((untilMs - now) / 1000));
  return new HttpError(
    423,
    `Account locked: too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    { lockedUntil: new Date(untilMs).toISOString() },
    { "retry-after": String(seconds) },
  );
}

/**
 * The password step of every sign-in (user and admin). Throws 423 'Account locked: ...' while the account
 * is locked, even for the right password; 401 'Invalid credentials' for a wrong one. The 5th wrong password
 * in a row locks the account for 15 minutes (and answers 423 at once); a right one resets the count.
 */
export async function verifyLoginPassword(ctx: AppContext, user: User, password: string): Promise<void> {
  const row = ctx.db
    .select({ lockedUntil: userSecurity.lockedUntil })
    .from(userSecurity)
    .where(eq(userSecurity.userId, user.id))
    .get();
  const lockedUntil = row?.lockedUntil?.getTime() ?? 0;
  if (lockedUntil > ctx.now()) throw lockedError(lockedUntil, ctx.now());

  const ok = user.passwordHash ? await verifyPassword(password, user.passwordHash) : false;
  const now = ctx.now();
  if (ok) {
    ctx.db.update(userSecurity).set({ failedLogins: 0, lockedUntil: null }).where(eq(userSecurity.userId, user.id)).run();
    return;
  }

  // One statement, so parallel wrong guesses each count.
  const counted = ctx.db
    .insert(userSecurity)
    .values({ userId: user.id, failedLogins: 1 })
    .onConflictDoUpdate({ target: userSecurity.userId, set: { failedLogins: sql`${userSecurity.failedLogins} + 1` } })
    .returning({ failedLogins: userSecurity.failedLogins })
    .get();
  if ((counted?.failedLogins ?? 0) >= MAX_FAILED_LOGINS) {
    const until = now + LOCKOUT_MINUTES * 60_000;
    ctx.db.update(userSecurity).set({ failedLogins: 0, lockedUntil: new Date(until) }).where(eq(userSecurity.userId, user.id)).run();
    ctx.log(`account locked: ${user.email} after ${MAX_FAILED_LOGINS} failed sign-ins`);
    throw lockedError(until, now);
  }
  throw new HttpError(401, INVALID_CREDENTIALS);
}

/** Lifts a lock and clears the count (an administrator's action, or after a password reset). */
export function clearLockout(ctx: AppContext, userId: string): void {
  ctx.db.update(userSecurity).set({ failedLogins: 0, lockedUntil: null }).where(eq(userSecurity.userId, userId)).run();
}
