import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import { attemptPassword } from "../auth/lockout";
import { requireRecentConfirmation } from "../auth/reauth";
import { createSession, setSessionCookies } from "../auth/sessions";
import { checkAccountCode, codesLockedError, isTwoFactorEnabled } from "../auth/two-factor";
import type { AppContext } from "../context";
import { listErrorReports } from "../error-reports/reports";
import { clientIp } from "../http/client-ip";
import { badRequest, HttpError, notFound } from "../http/errors";
import { findPlan, grantLicense } from "../licenses/licenses";
import { listContactMessages, markContactMessageHandled } from "../support/messages";
import { findUserByEmail, findUserById, publicUser } from "../users/queries";
import { adminHealth } from "./health";
import { generateLicenseCodes, listLicenseCodes, MAX_CODES_PER_BATCH, revokeLicenseCode } from "./license-codes";
import { pageQuery, paging } from "./paging";
import { markEmailVerified, sendPasswordResetFor } from "./account-help";
import { MAX_ALLOW_LIST, setWebhookAllowList, webhookAllowList } from "./networks";
import { RETENTION_BOUNDS, systemSettings, updateSystemSettings } from "./settings";
import { editPlan, planList } from "./plans";
import { applyUserAction, listUsers, type UserAction } from "./users";

export const INVALID_ADMIN = "Invalid admin credentials";
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })));

/** What the confirm question says each user action is for ("Please confirm it's you to ..."). */
const ACTION_PURPOSES: Record<UserAction, string> = {
  disable: "to disable an account",
  enable: "to enable an account",
  "make-admin": "to make someone an administrator",
  "remove-admin": "to remove an administrator",
  "reset-2fa": "to reset an account's two-factor authentication",
};

/**
 * The administrator portal's calls. Everything but the login needs the admin role (403 for a user,
 * 401 signed out); the public POST /api/admin/report-error lives in error-reports.
 */
export function adminRoutes(ctx: AppContext) {
  const startedAt = ctx.now();
  // POST /api/admin/auth/login
  const login = new Elysia().post(
    "/api/admin/auth/login",
    async ({ body, headers, cookie, request }) => {
      const email = body.email?.trim() ?? "";
      const password = body.password ?? "";
      if (!email || !password) throw badRequest("Please enter both email and password");
      // No account has such an email: answered before the password check (and its hashing) costs anything.
      if (!EMAIL_RE.test(email)) throw badRequest("Please enter a valid email address");
      // Unknown, non-admin and disabled emails go through the same throttled check against the decoy hash,
      // so status, message, blocking and timing never tell which emails are administrators.
      const found = await findUserByEmail(ctx, email);
      const user = found && found.role === "admin" && !found.disabled && found.passwordHash ? found : null;
      const ok = await attemptPassword(ctx, email, user?.passwordHash ?? null, password, clientIp(request));
      if (!ok || !user) throw new HttpError(401, INVALID_ADMIN);
      if (await isTwoFactorEnabled(ctx, user.id)) {
        const code = body.twoFactorCode?.trim();
        if (!code) return { requires2FA: true, userId: user.id };
        // Counted with the user sign-in's wrong codes: knowing the password must not buy unlimited guesses here.
        const check = await checkAccountCode(ctx, user.id, code);
        if (check.lockedUntil) throw codesLockedError(check.lockedUntil, ctx.now());
        if (!check.ok) throw new HttpError(401, "Invalid verification code");
      }
      const session = await createSession(ctx, user.id, {
        userAgent: headers["user-agent"],
        ip: clientIp(request),
      });
      setSessionCookies(ctx, cookie, session.token, session.expiresAt);
      return { token: session.token, user: publicUser(user), requires2FA: false };
    },
    { body: t.Object({ email: optionalText(254), password: optionalText(200), twoFactorCode: optionalText(20) }) },
  );

  const portal = new Elysia({ prefix: "/api/admin" })
    .use(authGuard(ctx))
    // GET /api/admin/settings
    .get("/settings", () => systemSettings(ctx), { auth: "admin" })
    // PATCH /api/admin/settings
    .patch(
      "/settings",
      // A shorter retention deletes the event log's older events for good: sudo mode (auth/reauth.ts) first.
      ({ user, sessionId, body }) =>
        updateSystemSettings(ctx, body, () => requireRecentConfirmation(ctx, user, sessionId, "to shorten the event retention")),
      {
        auth: "admin",
        body: t.Object({
          eventRetentionDays: t.Optional(
            t.Integer({ ...RETENTION_BOUNDS, error: `Event retention must be a whole number of days from ${RETENTION_BOUNDS.minimum} to ${RETENTION_BOUNDS.maximum}` }),
          ),
        }),
      },
    )
    // GET /api/admin/settings/webhook-allow-list
    .get("/settings/webhook-allow-list", async () => ({ entries: await webhookAllowList(ctx) }), { auth: "admin" })
    // PUT /api/admin/settings/webhook-allow-list
    .put(
      "/settings/webhook-allow-list",
      // Opening networks to every account's webhooks is asked for in sudo mode; narrowing the list is not.
      async ({ user, sessionId, body }) => ({
        entries: await setWebhookAllowList(ctx, body.entries, () => requireRecentConfirmation(ctx, user, sessionId, "to let webhooks call more networks")),
      }),
      {
        auth: "admin",
        body: t.Object({
          entries: t.Array(t.String({ maxLength: 253, error: "Each entry is a CIDR or a host name of at most 253 characters" }), {
            maxItems: MAX_ALLOW_LIST,
            error: `entries is a list of at most ${MAX_ALLOW_LIST} networks or host names`,
          }),
        }),
      },
    )
    // Users
    // GET /api/admin/users
    .get("/users", async ({ query }) => await listUsers(ctx, { ...paging(query), search: query.search }), {
      auth: "admin",
      query: t.Object({ ...pageQuery, search: t.Optional(t.String({ maxLength: 200 })) }),
    })
    // POST /api/admin/users/:id/verify-email
    .post("/users/:id/verify-email", async ({ user, params }) => ({ success: true, data: await markEmailVerified(ctx, user, params.id) }), {
      auth: "admin",
      params: t.Object({ id: t.String({ maxLength: 100 }) }),
    })
    // POST /api/admin/users/:id/send-password-reset
    .post(
      "/users/:id/send-password-reset",
      async ({ user, sessionId, params }) => ({
        success: true,
        ...(await sendPasswordResetFor(ctx, user, params.id, () => requireRecentConfirmation(ctx, user, sessionId, "to get a password reset link"))),
      }),
      { auth: "admin", params: t.Object({ id: t.String({ maxLength: 100 }) }) },
    )
    // POST /api/admin/users/:id/:action
    .post(
      "/users/:id/:action",
      // Every action changes who can do what (or sign in at all): sudo mode (auth/reauth.ts), asked once it would apply.
      async ({ user, sessionId, params }) => ({
        success: true,
        data: await applyUserAction(ctx, user.id, params.id, params.action, () =>
          requireRecentConfirmation(ctx, user, sessionId, ACTION_PURPOSES[params.action]),
        ),
      }),
      {
        auth: "admin",
        params: t.Object({
          id: t.String({ maxLength: 100 }),
          action: t.Union([t.Literal("disable"), t.Literal("enable"), t.Literal("make-admin"), t.Literal("remove-admin"), t.Literal("reset-2fa")], {
            error: "Unknown action",
          }),
        }),
      },
    )
    // POST /api/admin/users/:id/license
    .post(
      "/users/:id/license",
      async ({ user, sessionId, params, body }) => {
        const target = await findUserById(ctx, params.id);
        if (!target) throw notFound("User not found");
        const plan = await findPlan(ctx, body.planId);
        if (!plan) throw badRequest("Unknown plan");
        await requireRecentConfirmation(ctx, user, sessionId, "to change a user's plan");
        const license = await grantLicense(ctx, target.id, plan.id, body.durationDays);
        return { success: true, data: { planName: plan.name, expiresAt: license.expiresAt?.toISOString() ?? null } };
      },
      {
        auth: "admin",
        params: t.Object({ id: t.String({ maxLength: 100 }) }),
        body: t.Object({
          planId: t.String({ maxLength: 100 }),
          durationDays: t.Integer({ minimum: 1, maximum: 3650, error: "The duration must be between 1 and 3650 days" }),
        }),
      },
    )
    // License codes
    // GET /api/admin/license-codes
    .get("/license-codes", async ({ query }) => await listLicenseCodes(ctx, { ...paging(query), status: query.status, search: query.search }), {
      auth: "admin",
      query: t.Object({
        ...pageQuery,
        status: t.Optional(t.Union([t.Literal("active"), t.Literal("redeemed"), t.Literal("revoked")], { error: "status must be active, redeemed or revoked" })),
        search: t.Optional(t.String({ maxLength: 200 })),
      }),
    })
    // POST /api/admin/license-codes
    .post(
      "/license-codes",
      async ({ user, sessionId, body, set }) => {
        // Each code is a plan anyone holding it can take: minting them is asked for in sudo mode (auth/reauth.ts).
        const result = await generateLicenseCodes(ctx, user.id, body.planId, body.durationDays, body.count ?? 1, () =>
          requireRecentConfirmation(ctx, user, sessionId, "to generate license codes"),
        );
        set.status = 201;
        return { success: true, data: { planId: result.plan.id, planName: result.plan.name, durationDays: result.durationDays, codes: result.codes } };
      },
      {
        auth: "admin",
        body: t.Object({
          planId: t.String({ maxLength: 100, error: "Choose a plan" }),
          durationDays: t.Integer({ minimum: 1, maximum: 3650, error: "The duration must be between 1 and 3650 days" }),
          count: t.Optional(
            t.Integer({ minimum: 1, maximum: MAX_CODES_PER_BATCH, error: `Choose between 1 and ${MAX_CODES_PER_BATCH} codes` }),
          ),
        }),
      },
    )
    // POST /api/admin/license-codes/:code/revoke
    .post("/license-codes/:code/revoke", async ({ params }) => ({ success: true, data: await revokeLicenseCode(ctx, params.code) }), {
      auth: "admin",
      params: t.Object({ code: t.String({ maxLength: 64 }) }),
    })
    // Plans
    // GET /api/admin/plans
    .get("/plans", async () => ({ data: await planList(ctx) }), { auth: "admin" })
    // PUT /api/admin/plans/:id
    .put(
      "/plans/:id",
      async ({ user, sessionId, params, body }) => ({
        success: true,
        data: await editPlan(ctx, params.id, body, () => requireRecentConfirmation(ctx, user, sessionId, "to change a plan")),
      }),
      {
        auth: "admin",
        params: t.Object({ id: t.String({ maxLength: 100 }) }),
        body: t.Object({
          name: t.Optional(t.String({ maxLength: 100 })),
          price: t.Optional(t.Integer({ minimum: 0, maximum: 100_000_000, error: "The price must be a whole number of cents, 0 or more" })),
          monthlyContacts: t.Optional(t.Integer({ minimum: -1, error: "Limits must be whole numbers; -1 means unlimited" })),
          monthlyMessages: t.Optional(t.Integer({ minimum: -1, error: "Limits must be whole numbers; -1 means unlimited" })),
          phoneNumbers: t.Optional(t.Integer({ minimum: -1, error: "Limits must be whole numbers; -1 means unlimited" })),
          features: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 50, error: "Features must be a list of names" })),
        }),
      },
    )
    // Error reports and contact-form messages
    // GET /api/admin/error-reports
    .get(
      "/error-reports",
      ({ query }) => listErrorReports(ctx, paging(query)),
      { auth: "admin", query: t.Object(pageQuery) },
    )
    // GET /api/admin/contact-messages
    .get(
      "/contact-messages",
      ({ query }) => listContactMessages(ctx, { ...paging(query), status: query.status }),
      {
        auth: "admin",
        query: t.Object({ ...pageQuery, status: t.Optional(t.Union([t.Literal("open"), t.Literal("handled")], { error: "status must be open or handled" })) }),
      },
    )
    // POST /api/admin/contact-messages/:id/handled
    .post(
      "/contact-messages/:id/handled",
      async ({ params, body }) => ({ success: true, data: await markContactMessageHandled(ctx, params.id, body?.handled ?? true) }),
      { auth: "admin", params: t.Object({ id: t.String({ maxLength: 100 }) }), body: t.Optional(t.Object({ handled: t.Optional(t.Boolean()) })) },
    )
    // Health
    // GET /api/admin/health
    .get("/health", async () => ({ data: await adminHealth(ctx, startedAt) }), { auth: "admin" });

  return new Elysia().use(login).use(portal);
}
