import { hashPassword, MIN_PASSWORD_LENGTH } from "../auth/passwords";
import type { AppContext } from "../context";
import { findUserByEmail, insertUser, updateUser, type User } from "./queries";

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Creates an administrator, or promotes the existing account with that email (setting the password
 * given). The only ways in are the command line and ADMIN_EMAIL/ADMIN_PASSWORD on first start.
 */
export async function createOrPromoteAdmin(ctx: AppContext, email: string, password: string): Promise<User> {
  if (!EMAIL_RE.test(email.trim())) throw new Error(`Not an email address: ${email}`);
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const passwordHash = await hashPassword(password);
  const existing = findUserByEmail(ctx, email);
  if (existing) return updateUser(ctx, existing.id, { role: "admin", passwordHash, emailVerified: true, disabled: false });
  return insertUser(ctx, { email, passwordHash, firstName: "Admin", lastName: "", role: "admin", emailVerified: true });
}
