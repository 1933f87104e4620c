import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { badRequest, HttpError } from "../http/errors";
import { findUserById } from "../users/queries";
import { authGuard } from "./guard";
import { verifyPassword } from "./passwords";
import { safeEqual } from "./secure-compare";
import {
  backupCodesRemaining,
  beginTwoFactorSetup,
  enableTwoFactor,
  isTwoFactorEnabled,
  pendingSecret,
  replaceBackupCodes,
  resetTwoFactor,
  verifySecondFactor,
} from "./two-factor";

export const INVALID_2FA_CODE = "Invalid verification code. Please try again.";
const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })));

/**
 * The signed-in user's 2FA settings (/settings/security). The sign-in step itself
 * (POST /api/auth/login/2fa) lives with the login in routes.ts.
 *
 * Disabling needs proof beyond the session: a current code from the app (or an unused backup code) in
 * `token`, or the account password in `password`. A stolen session alone cannot turn 2FA off.
 */
export function twoFactorRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/auth/2fa" })
    .use(authGuard(ctx))
    .get("/status", ({ user }) => {
      const enabled = isTwoFactorEnabled(ctx, user.id);
      return { enabled, backupCodesCount: enabled ? backupCodesRemaining(ctx, user.id) : 0 };
    }, { auth: true })
    .post(
      "/setup",
      async ({ user }) => {
        if (isTwoFactorEnabled(ctx, user.id)) throw badRequest("Two-factor authentication is already enabled");
        const { secret, qrCodeUrl, manualEntryKey } = await beginTwoFactorSetup(ctx, user.id, user.email);
        return { secret, qrCodeUrl, manualEntryKey };
      },
      { auth: true },
    )
    .post(
      "/enable",
      ({ user, body }) => {
        const token = (body.token ?? "").trim();
        if (!/^\d{6}$/.test(token)) throw badRequest("Please enter the 6-digit verification code");
        if (isTwoFactorEnabled(ctx, user.id)) throw badRequest("Two-factor authentication is already enabled");
        const pending = pendingSecret(ctx, user.id);
        if (!pending) throw badRequest("Please start the two-factor setup first");
        // The secret shown at setup may come back; it must be the one stored, never a replacement.
        if (body.secret && !safeEqual(body.secret.replace(/\s/g, "").toUpperCase(), pending)) {
          throw badRequest("This setup has been replaced. Please start the two-factor setup again.");
        }
        const backupCodes = enableTwoFactor(ctx, user.id, token);
        if (!backupCodes) throw badRequest(INVALID_2FA_CODE);
        return { success: true, backupCodes };
      },
      { auth: true, body: t.Object({ token: optionalText(20), secret: optionalText(200) }) },
    )
    .post(
      "/disable",
      async ({ user, body }) => {
        if (!isTwoFactorEnabled(ctx, user.id)) throw badRequest("Two-factor authentication is not enabled");
        const token = body?.token?.trim();
        const password = body?.password;
        if (token) {
          if (!verifySecondFactor(ctx, user.id, token)) throw badRequest(INVALID_2FA_CODE);
        } else if (password) {
          const hash = findUserById(ctx, user.id)?.passwordHash;
          if (!hash || !(await verifyPassword(password, hash))) throw new HttpError(400, "Incorrect password");
        } else {
          throw badRequest("Please enter a verification code or your password to disable two-factor authentication");
        }
        resetTwoFactor(ctx, user.id);
        return { success: true, enabled: false };
      },
      { auth: true, body: t.Optional(t.Object({ token: optionalText(20), password: optionalText(200) })) },
    )
    .post(
      "/regenerate-backup-codes",
      ({ user }) => {
        if (!isTwoFactorEnabled(ctx, user.id)) throw badRequest("Two-factor authentication is not enabled");
        return { success: true, backupCodes: replaceBackupCodes(ctx, user.id) };
      },
      { auth: true },
    );
}
