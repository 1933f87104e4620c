import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { clientIp } from "../http/client-ip";
import { badRequest } from "../http/errors";
import { authGuard } from "./guard";
import { confirmIdentity, INVALID_CODE, reauthFields, requireRecentConfirmation } from "./reauth";
import { safeEqual } from "./secure-compare";
import {
  backupCodesRemaining,
  beginTwoFactorSetup,
  enableTwoFactor,
  isTwoFactorEnabled,
  pendingSecret,
  replaceBackupCodes,
  resetTwoFactor,
} from "./two-factor";

const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })));

/**
 * The signed-in user's 2FA settings (/settings/security). The sign-in step itself
 * (POST /api/auth/login/2fa) lives with the login in routes.ts.
 *
 * Disabling and new backup codes need proof beyond the session: a current code from the app (or an unused backup
 * code) in `token`, or the account password in `password`. A stolen session alone cannot turn 2FA off or read
 * fresh codes. Turning 2FA on or off ends the account's other sessions.
 */
export function twoFactorRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/auth/2fa" })
    .use(authGuard(ctx))
    // GET /api/auth/2fa/status
    .get("/status", async ({ user }) => {
      const enabled = await isTwoFactorEnabled(ctx, user.id);
      return { enabled, backupCodesCount: enabled ? await backupCodesRemaining(ctx, user.id) : 0 };
    }, { auth: true })
    // POST /api/auth/2fa/setup
    .post(
      "/setup",
      async ({ user, sessionId }) => {
        if (await isTwoFactorEnabled(ctx, user.id)) throw badRequest("Two-factor authentication is already enabled");
        // A second factor the owner does not hold would lock them out of their own account.
        await requireRecentConfirmation(ctx, user, sessionId, "to set up two-factor authentication");
        const { secret, qrCodeUrl, manualEntryKey } = await beginTwoFactorSetup(ctx, user.id, user.email);
        return { secret, qrCodeUrl, manualEntryKey };
      },
      { auth: true },
    )
    // POST /api/auth/2fa/enable
    .post(
      "/enable",
      async ({ user, sessionId, body }) => {
        const token = (body.token ?? "").trim();
        if (!/^\d{6}$/.test(token)) throw badRequest("Please enter the 6-digit verification code");
        if (await isTwoFactorEnabled(ctx, user.id)) throw badRequest("Two-factor authentication is already enabled");
        const pending = await pendingSecret(ctx, user.id);
        if (!pending) throw badRequest("Please start the two-factor setup first");
        // The secret shown at setup may come back; it must be the one stored, never a replacement.
        if (body.secret && !safeEqual(body.secret.replace(/\s/g, "").toUpperCase(), pending)) {
          throw badRequest("This setup has been replaced. Please start the two-factor setup again.");
        }
        const backupCodes = await enableTwoFactor(ctx, user.id, token, sessionId);
        if (!backupCodes) throw badRequest(INVALID_CODE);
        return { success: true, backupCodes };
      },
      { auth: true, body: t.Object({ token: optionalText(20), secret: optionalText(200) }) },
    )
    // POST /api/auth/2fa/disable
    .post(
      "/disable",
      async ({ user, sessionId, body, request }) => {
        if (!(await isTwoFactorEnabled(ctx, user.id))) throw badRequest("Two-factor authentication is not enabled");
        await confirmIdentity(ctx, user, sessionId, body, "to disable two-factor authentication", clientIp(request));
        await resetTwoFactor(ctx, user.id, sessionId);
        return { success: true, enabled: false };
      },
      { auth: true, body: t.Optional(t.Object(reauthFields)) },
    )
    // POST /api/auth/2fa/regenerate-backup-codes
    .post(
      "/regenerate-backup-codes",
      async ({ user, sessionId, body, request }) => {
        if (!(await isTwoFactorEnabled(ctx, user.id))) throw badRequest("Two-factor authentication is not enabled");
        await confirmIdentity(ctx, user, sessionId, body, "to create new backup codes", clientIp(request));
        return { success: true, backupCodes: await replaceBackupCodes(ctx, user.id) };
      },
      { auth: true, body: t.Optional(t.Object(reauthFields)) },
    );
}
