import { t } from "elysia";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import type { User } from "../users/queries";
import { attemptPassword } from "./lockout";
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
  proof: ReauthProof | null | undefined,
  purpose: string,
  address: string,
) {
  const token = proof?.token?.trim();
  const password = proof?.password;
  const twoFactor = isTwoFactorEnabled(ctx, user.id);
  if (token && twoFactor) {
    const check = checkAccountCode(ctx, user.id, token);
    if (check.lockedUntil) throw codesLockedError(check.lockedUntil, ctx.now());
    if (!check.ok) throw badRequest(INVALID_CODE);
    return;
  }
  if (password && user.passwordHash) {
    if (!(await attemptPassword(ctx, user.email, user.passwordHash, password, address))) throw badRequest(INCORRECT_PASSWORD);
    return;
  }
  if (!user.passwordHash && !twoFactor) return;
  const asked = user.passwordHash && twoFactor ? "a verification code or your password" : user.passwordHash ? "your password" : "a verification code";
  throw badRequest(`Please enter ${asked} ${purpose}`, { reauthRequired: true });
}
