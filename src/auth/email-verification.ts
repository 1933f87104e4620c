import { randomInt } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { emailVerifications } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { HttpError, tooManyRequests } from "../http/errors";
import { verificationCodeEmail } from "../mail/templates";
import { updateUser, type User } from "../users/queries";
import { keyedHash, safeEqual } from "./secure-compare";

export const RESEND_COOLDOWN_SECONDS = 60;
export const CODE_TTL_MINUTES = 15;
export const MAX_CODE_ATTEMPTS = 5;
/** Codes one account may be sent per 24 hours: a resend each minute mailed an address 1,440 a day. */
export const MAX_CODES_PER_DAY = 10;
export const DAY_MS = 24 * 60 * 60_000;
export const INVALID_CODE = "Invalid verification code";
export const CODE_EXPIRED = "This code has expired. Please request a new one.";
export const TOO_MANY_ATTEMPTS = "Too many attempts. Please request a new code.";

/** The 429 of a resend within the cooldown. */
export const cooldownError = (wait: number) => tooManyRequests(`Please wait ${wait} seconds before requesting another code`, wait);

/** The 429 past the day's codes: `wait` seconds until the window that began with the first code ends. */
export function dailyCapError(wait: number) {
  const hours = Math.ceil(wait / 3600);
  return tooManyRequests(
    `You have been sent ${MAX_CODES_PER_DAY} verification codes in the last 24 hours. Please use the newest one, or try again in ${hours} hour${hours === 1 ? "" : "s"}.`,
    wait,
  );
}

const windowOpen = `email_verifications.window_started_at > ?`;
/**
 * A code written unless the cooldown or the day's cap refuses it: parameters user id, code hash, now, its expiry, now,
 * then now - a day (twice), now - the cooldown, now - a day, the day's cap. Answers the row's sends, or no row when
 * refused. The same text runs on PostgreSQL (tests/api/shared-limits-postgres.test.ts).
 */
export const WRITE_CODE_SQL = `INSERT INTO email_verifications (user_id, code_hash, sent_at, expires_at, attempts, window_started_at, sends_in_window)
 VALUES (?, ?, ?, ?, 0, ?, 1)
 ON CONFLICT (user_id) DO UPDATE SET
   code_hash = excluded.code_hash, sent_at = excluded.sent_at, expires_at = excluded.expires_at, attempts = 0,
   window_started_at = CASE WHEN ${windowOpen} THEN email_verifications.window_started_at ELSE excluded.window_started_at END,
   sends_in_window = CASE WHEN ${windowOpen} THEN email_verifications.sends_in_window + 1 ELSE 1 END
 WHERE email_verifications.sent_at <= ? AND NOT (${windowOpen} AND email_verifications.sends_in_window >= ?)
 RETURNING sends_in_window`;

/**
 * Sends a fresh 6-digit code; a second request within the cooldown answers 429 with the seconds left, and so does
 * the 11th in a 24-hour window (which starts with its first code).
 *
 * The cooldown and the day's count are checked by the statement that writes the code (one conditional upsert on the
 * row the database holds), so two requests at once, on two processes of an installation, cannot both pass: one
 * writes and mails, the other answers 429. The row is read only to say why a request was refused.
 */
export async function sendVerificationCode(ctx: AppContext, user: User): Promise<{ retryAfter: number }> {
  await ready(ctx.db);
  const now = ctx.now();
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const codeHash = keyedHash(ctx.keys.codes, `verify:${user.id}:${code}`);
  const [written] = await ctx.records.$rows(WRITE_CODE_SQL, [
    user.id, codeHash, now, now + CODE_TTL_MINUTES * 60_000, now, now - DAY_MS, now - DAY_MS, now - RESEND_COOLDOWN_SECONDS * 1000, now - DAY_MS, MAX_CODES_PER_DAY,
  ]);
  if (!written) {
    const existing = await ctx.records.select().from(emailVerifications).where(eq(emailVerifications.userId, user.id)).get();
    const wait = existing ? Math.ceil((existing.sentAt.getTime() + RESEND_COOLDOWN_SECONDS * 1000 - now) / 1000) : 1;
    if (wait > 0 || !existing) throw cooldownError(Math.max(1, wait));
    throw dailyCapError(Math.ceil((existing.windowStartedAt.getTime() + DAY_MS - now) / 1000));
  }
  try {
    await ctx.mailer.send(verificationCodeEmail(user.email, code, CODE_TTL_MINUTES));
  } catch (err) {
    // Nothing was sent: no cooldown and no count, and no code that could verify (an expired row answers as none).
    // Only this request's code is taken back (a code written since by another request is left as it is).
    await ready(ctx.db);
    await ctx.records.$run(
      `UPDATE email_verifications SET sent_at = 0, expires_at = 0,
         sends_in_window = CASE WHEN sends_in_window > 0 THEN sends_in_window - 1 ELSE 0 END
       WHERE user_id = ? AND code_hash = ?`,
      [user.id, codeHash],
    );
    ctx.log(`mail error: verification code to ${user.email}: ${(err as Error).message}`);
    throw new HttpError(502, "Failed to send verification email");
  }
  return { retryAfter: RESEND_COOLDOWN_SECONDS };
}

/** The emailed code checked: the account verified, or a wrong guess counted (by the database, + 1 on what it holds). */
export async function checkVerificationCode(ctx: AppContext, user: User, code: string): Promise<User> {
  await ready(ctx.db);
  const row = await ctx.records.select().from(emailVerifications).where(eq(emailVerifications.userId, user.id)).get();
  if (!row || row.expiresAt.getTime() <= ctx.now()) {
    throw new HttpError(400, CODE_EXPIRED);
  }
  if (row.attempts >= MAX_CODE_ATTEMPTS) {
    throw new HttpError(429, TOO_MANY_ATTEMPTS);
  }
  const matches = safeEqual(row.codeHash, keyedHash(ctx.keys.codes, `verify:${user.id}:${code}`));
  if (!matches) {
    await ctx.records.update(emailVerifications).set({ attempts: sql`${emailVerifications.attempts} + 1` }).where(eq(emailVerifications.userId, user.id)).run();
    throw new HttpError(400, INVALID_CODE);
  }
  await ctx.records.delete(emailVerifications).where(eq(emailVerifications.userId, user.id)).run();
  return await updateUser(ctx, user.id, { emailVerified: true });
}

/** Forgets the user's pending code: an address marked verified by an administrator needs none. */
export async function dropVerificationCode(ctx: AppContext, userId: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.delete(emailVerifications).where(eq(emailVerifications.userId, userId)).run();
}
