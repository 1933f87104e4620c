import { eq } from "drizzle-orm";
import { t } from "elysia";
import { passkeys } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, HttpError } from "../http/errors";
import type { User } from "../users/queries";
import { attemptPassword } from "./lockout";
import { confirmSession, sessionConfirmedAt } from "./sessions";
import { checkAccountCode, codesLockedError, isTwoFactorEnabled } from "./two-factor";

export const INCORRECT_PASSWORD = "Incorrect password";
export const INVALID_CODE = "Invalid verification code. Please try again.";

/** The proof a sensitive change carries: the account password, or a current 2FA code (a backup code counts). */
export const reauthFields = {
  password: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
  token: t.Optional(t.Nullable(t.String({ maxLength: 20 }))),
};
export type ReauthProof = { password?: string | null; token?: string | null };

/**
 * Asks a signed-in user to prove again who they are before a change that would let a stolen session keep the
 * account (a new passkey, new backup codes, 2FA off). A code is checked against the account's wrong-code count,
 * like a sign-in. `purpose` completes "Please enter your password or a verification code ...".
 *
 * A password is checked through the sign-in's throttle (per account and address), so a stolen session cannot
 * guess it at full speed here either.
 *
 * An account with neither a password nor 2FA (Google only) has nothing to be asked for: its only other proof
 * would be a fresh Google sign-in, which is how its session was opened in the first place, so it is let through.
 */
export async function confirmIdentity(
  ctx: AppContext,
  user: User,
  sessionId: string,
  proof: ReauthProof | null | undefined,
  purpose: string,
  address: string,
) {
  const token = proof?.token?.trim();
  const password = proof?.password;
  const twoFactor = await isTwoFactorEnabled(ctx, user.id);
  if (token && twoFactor) {
    const check = await checkAccountCode(ctx, user.id, token);
    if (check.lockedUntil) throw codesLockedError(check.lockedUntil, ctx.now());
    if (!check.ok) throw badRequest(INVALID_CODE);
    // A proof given counts for the changes that ask for a recent one (requireRecentConfirmation) too.
    return await confirmSession(ctx, sessionId);
  }
  if (password && user.passwordHash) {
    if (!(await attemptPassword(ctx, user.email, user.passwordHash, password, address))) throw badRequest(INCORRECT_PASSWORD);
    return await confirmSession(ctx, sessionId);
  }
  if (!user.passwordHash && !twoFactor) return;
  const asked = user.passwordHash && twoFactor ? "a verification code or your password" : user.passwordHash ? "your password" : "a verification code";
  throw badRequest(`Please enter ${asked} ${purpose}`, { reauthRequired: true });
}

/** How long a confirmation lets the session make sensitive changes without asking again. */
export const RECENT_CONFIRMATION_MS = 10 * 60_000;
/** The machine code of the 403 a sensitive change answers when the session's last confirmation is too old. */
export const REAUTH_REQUIRED = "reauth_required";

/**
 * "Sudo mode": a change that would outlive the session (a new API key, where webhooks send the account's data, a
 * passkey removed, 2FA set up) needs its holder to have confirmed their password, a code or a passkey within
 * RECENT_CONFIRMATION_MS. Signing in does not count (confirmed_at is empty at sign-in): a session stolen in its first
 * minutes would otherwise mint keys and webhooks with no question asked. A stolen session token alone can then mint
 * nothing that keeps working after the owner changes the password. Otherwise 403 `reauth_required`, with the
 * ways this account can confirm (POST /api/auth/confirm, or POST /api/webauthn/confirm), and the UI asks and retries.
 * An account with none of them (Google only, no passkey) has nothing to be asked for, as in confirmIdentity.
 */
export async function requireRecentConfirmation(ctx: AppContext, user: User, sessionId: string, purpose: string): Promise<void> {
  const confirmedAt = await sessionConfirmedAt(ctx, sessionId);
  if (confirmedAt !== null && ctx.now() - confirmedAt < RECENT_CONFIRMATION_MS) return;
  const twoFactor = await isTwoFactorEnabled(ctx, user.id);
  await ready(ctx.db);
  const passkey = await ctx.records.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, user.id)).limit(1).get();
  const methods = [...(user.passwordHash ? ["password"] : []), ...(twoFactor ? ["code"] : []), ...(passkey ? ["passkey"] : [])];
  if (methods.length === 0) return;
  throw new HttpError(403, `Please confirm it's you ${purpose}`, { code: REAUTH_REQUIRED, methods });
}
