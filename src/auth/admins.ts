import { ready } from "../../db/transaction";
import { unlinkGoogle } from "./google";
import { clearLockout } from "./lockout";
import { deletePasskey, listPasskeys } from "./passkeys";
import { hashPassword, MIN_PASSWORD_LENGTH } from "./passwords";
import { revokeAllSessions } from "./sessions";
import { resetTwoFactor } from "./two-factor";
import type { AppContext } from "../context";
import { findUserByEmail, insertUser, updateUser, type User } from "../users/queries";

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Creates an administrator, or promotes the existing account with that email. The only ways in are the command
 * line and ADMIN_EMAIL/ADMIN_PASSWORD on first start.
 *
 * An existing account may have been registered by someone else, waiting for this email to be promoted: its sign-in
 * is reset to the password given here alone. Every session ends, and its second factor, passkeys and Google link
 * go, so nothing its previous holder set up still opens it.
 */
export async function createOrPromoteAdmin(ctx: AppContext, email: string, password: string): Promise<User> {
  if (!EMAIL_RE.test(email.trim())) throw new Error(`Not an email address: ${email}`);
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const passwordHash = await hashPassword(password, ctx.argon2Cost);
  await ready(ctx.db);
  const existing = await findUserByEmail(ctx, email);
  if (!existing) {
    return await insertUser(ctx, { email, passwordHash, firstName: "Admin", lastName: "", role: "admin", emailVerified: true });
  }
  // One transaction: the account is the administrator's, with nothing else left to sign in with, or unchanged.
  return ctx.withTransaction(async () => {
    const admin = await updateUser(ctx, existing.id, { role: "admin", passwordHash, authProvider: "password", emailVerified: true, disabled: false });
    await resetTwoFactor(ctx, admin.id, null);
    for (const passkey of await listPasskeys(ctx, admin.id)) await deletePasskey(ctx, admin.id, passkey.id);
    await unlinkGoogle(ctx, admin.id);
    await clearLockout(ctx, admin.id);
    await revokeAllSessions(ctx, admin.id);
    return admin;
  });
}
