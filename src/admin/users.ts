import { revokeAllSessions } from "../auth/sessions";
import { resetTwoFactor, usersWithTwoFactor } from "../auth/two-factor";
import { ACCOUNT_DISABLED, stopAccountSendingNow } from "../campaigns/lifecycle";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { currentLicense } from "../licenses/licenses";
import { findUserById, searchUsers, updateUser, type User } from "../users/queries";
import type { Page } from "./paging";

async function adminUserView(ctx: AppContext, user: User, twoFactor: boolean) {
  const license = await currentLicense(ctx, user);
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    disabled: user.disabled,
    emailVerified: user.emailVerified,
    authProvider: user.authProvider,
    twoFactorEnabled: twoFactor,
    plan: license ? { id: license.plan.id, name: license.plan.name, source: license.source, expiresAt: license.expiresAt?.toISOString() ?? null } : null,
    createdAt: user.createdAt.toISOString(),
  };
}

export type AdminUserView = Awaited<ReturnType<typeof adminUserView>>;

/** Users matching `search` in email, first or last name (or "first last"), newest first. */
export async function listUsers(ctx: AppContext, opts: { page: number; pageSize: number; search?: string }): Promise<Page<AdminUserView>> {
  const { rows, total } = await searchUsers(ctx, opts);
  const withTwoFactor = await usersWithTwoFactor(ctx, rows.map((r) => r.id));
  return { data: await Promise.all(rows.map((u) => adminUserView(ctx, u, withTwoFactor.has(u.id)))), total, page: opts.page, pageSize: opts.pageSize };
}

export type UserAction = "disable" | "enable" | "make-admin" | "remove-admin" | "reset-2fa";

/**
 * One of the admin portal's user actions; an administrator cannot disable or demote themselves. `beforeChange` runs
 * (and may refuse) once the action would be applied: the route's check that the administrator confirmed, so nobody
 * is asked for a password only to be told the action is refused.
 */
export async function applyUserAction(ctx: AppContext, adminId: string, userId: string, action: UserAction, beforeChange?: () => Promise<void>) {
  // One transaction: the role read is the one changed, and a disabled account never stays signed in, or keeps
  // sending, after it reads as disabled.
  return ctx.withTransaction(async () => userAction(ctx, adminId, userId, action, beforeChange));
}

async function userAction(ctx: AppContext, adminId: string, userId: string, action: UserAction, beforeChange?: () => Promise<void>) {
  const target = await findUserById(ctx, userId);
  if (!target) throw notFound("User not found");
  const self = target.id === adminId;
  if (self && action === "disable") throw badRequest("You cannot disable your own account");
  if (self && action === "remove-admin") throw badRequest("You cannot remove your own administrator role");
  await beforeChange?.();
  switch (action) {
    case "disable":
      await updateUser(ctx, target.id, { disabled: true });
      await stopAccountSendingNow(ctx, target.id, ACCOUNT_DISABLED);
      await revokeAllSessions(ctx, target.id);
      break;
    case "enable":
      await updateUser(ctx, target.id, { disabled: false });
      break;
    // A change of role made by someone else ends every session of the account: access comes back only through
    // a new sign-in under the new role.
    case "make-admin":
      if (target.role !== "admin") {
        await updateUser(ctx, target.id, { role: "admin" });
        await revokeAllSessions(ctx, target.id);
      }
      break;
    case "remove-admin":
      if (target.role !== "user") {
        await updateUser(ctx, target.id, { role: "user" });
        await revokeAllSessions(ctx, target.id);
      }
      break;
    case "reset-2fa":
      // Every session ends, the administrator's own included when they reset themselves: a reset is for an
      // account whose second factor can no longer be trusted.
      await resetTwoFactor(ctx, target.id, null);
      break;
  }
  const fresh = (await findUserById(ctx, target.id))!;
  return adminUserView(ctx, fresh, (await usersWithTwoFactor(ctx, [fresh.id])).has(fresh.id));
}
