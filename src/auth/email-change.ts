import { randomInt } from "node:crypto";
import { eq, lte, sql } from "drizzle-orm";
import { emailChanges } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, conflict, HttpError, tooManyRequests } from "../http/errors";
import { emailChangeCodeEmail, emailChangedNotice } from "../mail/templates";
import { findUserByEmail, normalizeEmail, updateUser, type User } from "../users/queries";
import { CODE_TTL_MINUTES, MAX_CODE_ATTEMPTS, RESEND_COOLDOWN_SECONDS } from "./email-verification";
import { keyedHash, safeEqual } from "./secure-compare";

export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TAKEN = "An account with this email already exists";

const codeHash = (ctx: AppContext, user: User, email: string, code: string) => keyedHash(ctx.keys.codes, `email-change:${user.id}:${email}:${code}`);

async function emailChangeOf(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  return ctx.records.select().from(emailChanges).where(eq(emailChanges.userId, userId)).get();
}

/** The address an email change waits to confirm, if one does (and has not expired). */
export async function pendingEmailOf(ctx: AppContext, user: User): Promise<string | null> {
  const row = await emailChangeOf(ctx, user.id);
  return row && row.expiresAt.getTime() > ctx.now() ? row.newEmail : null;
}

/**
 * Starts changing the account's email: a 6-digit code goes to the new address, and the email changes only when it
 * comes back (confirmEmailChange), so a typo or someone else's address never becomes the sign-in. A Google account's
 * email is Google's to change.
 */
export async function requestEmailChange(ctx: AppContext, user: User, input: string): Promise<{ pendingEmail: string; retryAfter: number }> {
  if (user.authProvider === "google") throw badRequest("Your account signs in with Google: its email is the one of your Google account");
  const email = normalizeEmail(input);
  if (!EMAIL_RE.test(email)) throw badRequest("Please enter a valid email address");
  if (email === user.email) throw badRequest("This is already your email address");
  if (await findUserByEmail(ctx, email)) throw conflict(TAKEN);
  await ready(ctx.db);
  const now = ctx.now();
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const row = {
    userId: user.id,
    newEmail: email,
    codeHash: codeHash(ctx, user, email, code),
    sentAt: new Date(now),
    expiresAt: new Date(now + CODE_TTL_MINUTES * 60_000),
    attempts: 0,
  };
  // The cooldown is checked by the statement that writes the code (the row the database holds), so two requests at
  // once, on two processes, cannot both send one; the row is read again only to say how long to wait.
  await ready(ctx.db);
  const written = await ctx.records
    .insert(emailChanges)
    .values(row)
    .onConflictDoUpdate({ target: emailChanges.userId, set: row, setWhere: lte(emailChanges.sentAt, new Date(now - RESEND_COOLDOWN_SECONDS * 1000)) })
    .returning({ userId: emailChanges.userId })
    .get();
  if (!written) {
    const existing = await emailChangeOf(ctx, user.id);
    const wait = Math.max(1, existing ? Math.ceil((existing.sentAt.getTime() + RESEND_COOLDOWN_SECONDS * 1000 - now) / 1000) : 1);
    throw tooManyRequests(`Please wait ${wait} seconds before requesting another code`, wait);
  }
  try {
    await ctx.mailer.send(emailChangeCodeEmail(email, code, CODE_TTL_MINUTES));
  } catch (err) {
    await ready(ctx.db);
    await ctx.records.delete(emailChanges).where(eq(emailChanges.userId, user.id)).run();
    ctx.log(`mail error: email change code to ${email}: ${(err as Error).message}`);
    throw new HttpError(502, "Failed to send the verification email");
  }
  return { pendingEmail: email, retryAfter: RESEND_COOLDOWN_SECONDS };
}

/** The code from the new address: the account's email becomes it, and the old address is told. */
export async function confirmEmailChange(ctx: AppContext, user: User, code: string): Promise<User> {
  const row = await emailChangeOf(ctx, user.id);
  if (!row) throw badRequest("There is no email change to confirm");
  if (row.expiresAt.getTime() <= ctx.now()) throw badRequest("This code has expired. Please request a new one.");
  if (row.attempts >= MAX_CODE_ATTEMPTS) throw new HttpError(429, "Too many attempts. Please request a new code.");
  if (!safeEqual(row.codeHash, codeHash(ctx, user, row.newEmail, code))) {
    await ready(ctx.db);
    await ctx.records.update(emailChanges).set({ attempts: sql`${emailChanges.attempts} + 1` }).where(eq(emailChanges.userId, user.id)).run();
    throw badRequest("Invalid verification code");
  }
  const changed = await ctx.withTransaction(async () => {
    // Another account may have taken the address since the code was sent.
    if (await findUserByEmail(ctx, row.newEmail)) throw conflict(TAKEN);
    await ctx.records.delete(emailChanges).where(eq(emailChanges.userId, user.id)).run();
    // The code reached the new address: it is verified.
    return await updateUser(ctx, user.id, { email: row.newEmail, emailVerified: true });
  });
  await ctx.mailer.send(emailChangedNotice(user.email, row.newEmail)).catch((err: Error) => ctx.log(`mail error: email changed notice to ${user.email}: ${err.message}`));
  return changed;
}

/** Forgets a pending email change; the account keeps its email. */
export async function cancelEmailChange(ctx: AppContext, userId: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.delete(emailChanges).where(eq(emailChanges.userId, userId)).run();
}
