import { dropVerificationCode } from "../auth/email-verification";
import { requestPasswordReset, RESET_TTL_MINUTES } from "../auth/password-reset";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { findUserById, updateUser, type User } from "../users/queries";

/**
 * What an administrator does for a user when email cannot reach them (no SMTP_URL, or a lost mailbox): mark the
 * address verified, or hand over a password-reset link. Each is written to the log with who did it.
 */

async function target(ctx: AppContext, userId: string): Promise<User> {
  const user = await findUserById(ctx, userId);
  if (!user) throw notFound("User not found");
  return user;
}

export async function markEmailVerified(ctx: AppContext, admin: User, userId: string) {
  const { user, marked } = await ctx.withTransaction(async () => {
    const user = await target(ctx, userId);
    if (user.emailVerified) return { user, marked: false };
    await updateUser(ctx, user.id, { emailVerified: true });
    // A code still on its way must not matter any more.
    await dropVerificationCode(ctx, user.id);
    return { user, marked: true };
  });
  if (marked) ctx.log(`administrator ${admin.email} marked the email of ${user.email} verified`);
  return { id: user.id, email: user.email, emailVerified: true };
}

/**
 * Starts a password reset for the user. With SMTP the link goes to their mailbox; without it the link is the
 * answer, for the administrator to pass on (it is never written to the log). `beforeLink` runs (and may refuse)
 * before such a link is made: whoever holds it can take the account, so the route asks the administrator to confirm.
 */
export async function sendPasswordResetFor(ctx: AppContext, admin: User, userId: string, beforeLink?: () => Promise<void>) {
  const user = await target(ctx, userId);
  if (user.disabled) throw badRequest("This account is disabled. Enable it before sending a reset link.");
  if (!user.passwordHash) throw badRequest("This account signs in with Google and has no password to reset.");
  if (!ctx.config.smtpUrl) await beforeLink?.();
  const token = await requestPasswordReset(ctx, user.email);
  if (!token) throw badRequest("A reset link cannot be sent to this account.");
  ctx.log(`administrator ${admin.email} started a password reset for ${user.email}`);
  if (ctx.config.smtpUrl) {
    return { message: `A password reset link was emailed to ${user.email}.`, data: { emailed: true, link: null, expiresInMinutes: RESET_TTL_MINUTES } };
  }
  return {
    message: `Email is not configured. Give this link to ${user.email}: it works once and expires in ${RESET_TTL_MINUTES} minutes.`,
    data: { emailed: false, link: `${ctx.config.publicUrl}/auth/reset-password?token=${token}`, expiresInMinutes: RESET_TTL_MINUTES },
  };
}
