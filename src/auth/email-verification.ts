import { randomInt } from "node:crypto";
import { eq } from "drizzle-orm";
import { emailVerifications } from "../../db/schema";
import type { AppContext } from "../context";
import { HttpError, tooManyRequests } from "../http/errors";
import { verificationCodeEmail } from "../mail/templates";
import { updateUser, type User } from "../users/queries";
import { keyedHash, safeEqual } from "./secure-compare";

export const RESEND_COOLDOWN_SECONDS = 60;
export const CODE_TTL_MINUTES = 15;
export const MAX_CODE_ATTEMPTS = 5;

/** Sends a fresh 6-digit code; a second request within the cooldown answers 429 with the seconds left. */
export async function sendVerificationCode(ctx: AppContext, user: User): Promise<{ retryAfter: number }> {
  const existing = ctx.db.select().from(emailVerifications).where(eq(emailVerifications.userId, user.id)).get();
  const now = ctx.now();
  if (existing) {
    const wait = Math.ceil((existing.sentAt.getTime() + RESEND_COOLDOWN_SECONDS * 1000 - now) / 1000);
    if (wait > 0) throw tooManyRequests(`Please wait ${wait} seconds before requesting another code`, wait);
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const row = {
    userId: user.id,
    codeHash: keyedHash(ctx.keys.codes, `verify:${user.id}:${code}`),
    sentAt: new Date(now),
    expiresAt: new Date(now + CODE_TTL_MINUTES * 60_000),
    attempts: 0,
  };
  ctx.db.insert(emailVerifications).values(row).onConflictDoUpdate({ target: emailVerifications.userId, set: row }).run();
  try {
    await ctx.mailer.send(verificationCodeEmail(user.email, code, CODE_TTL_MINUTES));
  } catch (err) {
    ctx.db.delete(emailVerifications).where(eq(emailVerifications.userId, user.id)).run();
    ctx.log(`mail error: verification code to ${user.email}: ${(err as Error).message}`);
    throw new HttpError(502, "Failed to send verification email");
  }
  return { retryAfter: RESEND_COOLDOWN_SECONDS };
}

export function checkVerificationCode(ctx: AppContext, user: User, code: string): User {
  const row = ctx.db.select().from(emailVerifications).where(eq(emailVerifications.userId, user.id)).get();
  if (!row || row.expiresAt.getTime() <= ctx.now()) {
    throw new HttpError(400, "This code has expired. Please request a new one.");
  }
  if (row.attempts >= MAX_CODE_ATTEMPTS) {
    throw new HttpError(429, "Too many attempts. Please request a new code.");
  }
  const matches = safeEqual(row.codeHash, keyedHash(ctx.keys.codes, `verify:${user.id}:${code}`));
  if (!matches) {
    ctx.db.update(emailVerifications).set({ attempts: row.attempts + 1 }).where(eq(emailVerifications.userId, user.id)).run();
    throw new HttpError(400, "Invalid verification code");
  }
  ctx.db.delete(emailVerifications).where(eq(emailVerifications.userId, user.id)).run();
  return updateUser(ctx, user.id, { emailVerified: true });
}

/** Forgets the user's pending code: an address marked verified by an administrator needs none. */
export function dropVerificationCode(ctx: AppContext, userId: string): void {
  ctx.db.delete(emailVerifications).where(eq(emailVerifications.userId, userId)).run();
}
