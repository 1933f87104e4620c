import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { passwordResets } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { passwordResetEmail, type PasskeyListing } from "../mail/templates";
import { findUserByEmail, findUserById, updateUser, type User } from "../users/queries";
import { attemptPassword, clearLockout } from "./lockout";
import { hashPassword } from "./passwords";
import { listPasskeys } from "./passkeys";
import { keyedHash } from "./secure-compare";
import { type CredentialOutcome, endCredentialsOfSessions } from "./session-credentials";
import { revokeAllSessions, revokeOtherSessions } from "./sessions";
import { clearPendingLogin } from "./two-factor";

export const RESET_TTL_MINUTES = 60;
export const INVALID_RESET_TOKEN = "Invalid reset token. Please request a new password reset.";

/**
 * Answers the same, in the same time, whether or not the email has an account. The token itself is returned only so the
 * caller can expose it in development mode without SMTP (the spec's 'Demo Mode' link).
 */
export async function requestPasswordReset(ctx: AppContext, email: string): Promise<string | null> {
  await ready(ctx.db);
  const user = await findUserByEmail(ctx, email);
  if (!user || user.disabled || !user.passwordHash) return null;
  const passkeys = await passkeyListing(ctx, user);
  const token = randomBytes(32).toString("base64url");
  const now = ctx.now();
  await ctx.records
    .insert(passwordResets)
    .values({ tokenHash: keyedHash(ctx.keys.codes, `reset:${token}`), userId: user.id, expiresAt: new Date(now + RESET_TTL_MINUTES * 60_000) })
    .run();
  const link = `${ctx.config.publicUrl}/auth/reset-password?token=${token}`;
  // Not awaited: a slow or failing mail server must not reveal which emails have accounts.
  ctx.mailer
    .send(passwordResetEmail(user.email, link, RESET_TTL_MINUTES, passkeys))
    .catch((err: Error) => ctx.log(`mail error: password reset to ${user.email}: ${err.message}`));
  return token;
}

/** The account's passkeys, newest first, each added-at in the account's locale and time zone. */
async function passkeyListing(ctx: AppContext, user: User): Promise<PasskeyListing> {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat(user.locale, { dateStyle: "medium", timeStyle: "short", timeZone: user.timezone });
  } catch {
    format = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  }
  const timeZone = format.resolvedOptions().timeZone;
  // A name is the user's own text: no line breaks that could forge lines of the email.
  const oneLine = (name: string) => name.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();
  return { timeZone, passkeys: (await listPasskeys(ctx, user.id)).map((p) => ({ name: oneLine(p.name), added: format.format(new Date(p.createdAt)) })) };
}

/**
 * Sets the new password and ends every session; the API keys and webhooks those sessions set up end too unless
 * `keepCredentials` (the reset screen's choice): whoever had the old password may have made them.
 */
export async function resetPassword(ctx: AppContext, token: string, password: string, keepCredentials = false): Promise<CredentialOutcome> {
  const tokenHash = keyedHash(ctx.keys.codes, `reset:${token}`);
  await ready(ctx.db);
  const row = await ctx.records.select().from(passwordResets).where(eq(passwordResets.tokenHash, tokenHash)).get();
  if (!row || row.usedAt || row.expiresAt.getTime() <= ctx.now()) throw new HttpError(400, INVALID_RESET_TOKEN);
  const user = await findUserById(ctx, row.userId);
  if (!user || user.disabled) throw new HttpError(400, INVALID_RESET_TOKEN);
  const passwordHash = await hashPassword(password, ctx.argon2Cost);
  // One transaction from the token's claim to the sessions' end. Claimed only while unused, so two concurrent
  // resets cannot both use it.
  return ctx.withTransaction(async () => {
    const claimed = await ctx.records
      .update(passwordResets)
      .set({ usedAt: new Date(ctx.now()) })
      .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt)))
      .returning()
      .get();
    if (!claimed) throw new HttpError(400, INVALID_RESET_TOKEN);
    // Any other link sent to this account stops working once the password has changed.
    await ctx.records
      .update(passwordResets)
      .set({ usedAt: new Date(ctx.now()) })
      .where(and(eq(passwordResets.userId, user.id), isNull(passwordResets.usedAt)))
      .run();
    await updateUser(ctx, user.id, { passwordHash, emailVerified: true });
    // Whoever guessed enough to lock the account does not know the new password.
    await clearLockout(ctx, user.id);
    await clearPendingLogin(ctx, user.id);
    const ended = await revokeAllSessions(ctx, user.id);
    return endCredentialsOfSessions(ctx, user.id, ended, keepCredentials, "the password was reset");
  });
}

/**
 * The signed-in user's own change of password: the current one must be right (a stolen session alone cannot
 * change it), and every other session ends; the one it was made from stays signed in. The API keys and webhooks
 * the ended sessions set up end with them unless `keep.credentials`.
 */
export async function changePassword(
  ctx: AppContext,
  user: User,
  passwords: { current: string; next: string },
  keep: { sessionId: string; address: string; credentials?: boolean },
): Promise<CredentialOutcome> {
  // Through the sign-in's throttle: a stolen session must not be able to guess the current password at full speed.
  if (!user.passwordHash || !(await attemptPassword(ctx, user.email, user.passwordHash, passwords.current, keep.address))) {
    throw new HttpError(400, "Your current password is incorrect");
  }
  const passwordHash = await hashPassword(passwords.next, ctx.argon2Cost);
  return ctx.withTransaction(async () => {
    await updateUser(ctx, user.id, { passwordHash });
    await ctx.records
      .update(passwordResets)
      .set({ usedAt: new Date(ctx.now()) })
      .where(and(eq(passwordResets.userId, user.id), isNull(passwordResets.usedAt)))
      .run();
    await clearPendingLogin(ctx, user.id);
    const ended = await revokeOtherSessions(ctx, user.id, keep.sessionId);
    return endCredentialsOfSessions(ctx, user.id, ended, keep.credentials ?? false, "the password was changed");
  });
}
