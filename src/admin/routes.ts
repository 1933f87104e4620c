import { statSync } from "node:fs";
import { clientIp } from "../http/client-ip";
import { join } from "node:path";
import { and, count, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { errorReports, licenseCodes, plans, supportMessages, users } from "../../db/schema";
import { authGuard } from "../auth/guard";
import { attemptPassword } from "../auth/lockout";
import { createSession, SESSION_COOKIE, sessionCookie } from "../auth/sessions";
import { checkAccountCode, codesLockedError, isTwoFactorEnabled } from "../auth/two-factor";
import type { AppContext } from "../context";
import { badRequest, HttpError, notFound } from "../http/errors";
import { findPlan, grantLicense, planView } from "../licenses/licenses";
import { findUserByEmail, findUserById, publicUser } from "../users/queries";
import { VERSION } from "../version";
import { generateLicenseCodes, listLicenseCodes, MAX_CODES_PER_BATCH, revokeLicenseCode } from "./license-codes";
import { pageQuery, paging } from "./paging";
import { markEmailVerified, sendPasswordResetFor } from "./account-help";
import { RETENTION_BOUNDS, systemSettings, updateSystemSettings } from "./settings";
import { applyUserAction, listUsers } from "./users";

export const INVALID_ADMIN = "Invalid admin credentials";
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })));

function databaseSize(ctx: AppContext): number {
  const pages = ctx.db.$client.query("PRAGMA page_count").get() as { page_count: number };
  const size = ctx.db.$client.query("PRAGMA page_size").get() as { page_size: number };
  let bytes = pages.page_count * size.page_size;
  try {
    bytes = Math.max(bytes, statSync(join(ctx.config.dataDir, "smsdesk.db")).size);
    bytes += statSync(join(ctx.config.dataDir, "smsdesk.db-wal")).size;
  } catch {
    // No WAL file yet, or an in-memory database.
  }
  return bytes;
}

/**
 * The administrator portal's calls. Everything but the login needs the admin role (403 for a user,
 * 401 signed out); the public POST /api/admin/report-error lives in error-reports.
 */
export function adminRoutes(ctx: AppContext) {
  const startedAt = ctx.now();
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
      const found = findUserByEmail(ctx, email);
      const user = found && found.role === "admin" && !found.disabled && found.passwordHash ? found : null;
      const ok = await attemptPassword(ctx, email, user?.passwordHash ?? null, password, clientIp(request));
      if (!ok || !user) throw new HttpError(401, INVALID_ADMIN);
      if (isTwoFactorEnabled(ctx, user.id)) {
        const code = body.twoFactorCode?.trim();
        if (!code) return { requires2FA: true, userId: user.id };
        // Counted with the user sign-in's wrong codes: knowing the password must not buy unlimited guesses here.
        const check = checkAccountCode(ctx, user.id, code);
        if (check.lockedUntil) throw codesLockedError(check.lockedUntil, ctx.now());
        if (!check.ok) throw new HttpError(401, "Invalid verification code");
      }
      const session = createSession(ctx, user.id, {
        userAgent: headers["user-agent"],
        ip: clientIp(request),
      });
      cookie[SESSION_COOKIE]!.set(sessionCookie(ctx, session.token, session.expiresAt));
      return { token: session.token, user: publicUser(user), requires2FA: false };
    },
    { body: t.Object({ email: optionalText(254), password: optionalText(200), twoFactorCode: optionalText(20) }) },
  );

  const portal = new Elysia({ prefix: "/api/admin" })
    .use(authGuard(ctx))
    // GET /api/admin/settings
    .get("/settings", () => systemSettings(ctx), { auth: "admin" })
    // PATCH /api/admin/settings
    .patch("/settings", ({ body }) => updateSystemSettings(ctx, body), {
      auth: "admin",
      body: t.Object({
        eventRetentionDays: t.Optional(
          t.Integer({ ...RETENTION_BOUNDS, error: `Event retention must be a whole number of days from ${RETENTION_BOUNDS.minimum} to ${RETENTION_BOUNDS.maximum}` }),
        ),
      }),
    })
    // Users
    .get("/users", ({ query }) => listUsers(ctx, { ...paging(query), search: query.search }), {
      auth: "admin",
      query: t.Object({ ...pageQuery, search: t.Optional(t.String({ maxLength: 200 })) }),
    })
    // POST /api/admin/users/:id/verify-email
    .post("/users/:id/verify-email", ({ user, params }) => ({ success: true, data: markEmailVerified(ctx, user, params.id) }), {
      auth: "admin",
      params: t.Object({ id: t.String({ maxLength: 100 }) }),
    })
    // POST /api/admin/users/:id/send-password-reset
    .post(
      "/users/:id/send-password-reset",
      async ({ user, params }) => ({ success: true, ...(await sendPasswordResetFor(ctx, user, params.id)) }),
      { auth: "admin", params: t.Object({ id: t.String({ maxLength: 100 }) }) },
    )
    .post(
      "/users/:id/:action",
      ({ user, params }) => ({ success: true, data: applyUserAction(ctx, user.id, params.id, params.action) }),
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
    .post(
      "/users/:id/license",
      ({ params, body }) => {
        const target = findUserById(ctx, params.id);
        if (!target) throw notFound("User not found");
        const plan = findPlan(ctx, body.planId);
        if (!plan) throw badRequest("Unknown plan");
        const license = grantLicense(ctx, target.id, plan.id, body.durationDays);
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
    .get("/license-codes", ({ query }) => listLicenseCodes(ctx, { ...paging(query), status: query.status, search: query.search }), {
      auth: "admin",
      query: t.Object({
        ...pageQuery,
        status: t.Optional(t.Union([t.Literal("active"), t.Literal("redeemed"), t.Literal("revoked")], { error: "status must be active, redeemed or revoked" })),
        search: t.Optional(t.String({ maxLength: 200 })),
      }),
    })
    .post(
      "/license-codes",
      ({ user, body, set }) => {
        const result = generateLicenseCodes(ctx, user.id, body.planId, body.durationDays, body.count ?? 1);
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
    .post("/license-codes/:code/revoke", ({ params }) => ({ success: true, data: revokeLicenseCode(ctx, params.code) }), {
      auth: "admin",
      params: t.Object({ code: t.String({ maxLength: 64 }) }),
    })
    // Plans
    .get("/plans", () => ({ data: ctx.db.select().from(plans).orderBy(plans.sortOrder).all().map(planView) }), { auth: "admin" })
    .put(
      "/plans/:id",
      ({ params, body }) => {
        if (!findPlan(ctx, params.id)) throw notFound("Plan not found");
        const name = body.name?.trim();
        if (body.name !== undefined && !name) throw badRequest("The plan needs a name");
        const features = body.features?.map((f) => f.trim()).filter(Boolean);
        const updated = ctx.db
          .update(plans)
          .set({
            ...(name ? { name } : {}),
            ...(body.price !== undefined ? { price: body.price } : {}),
            ...(body.monthlyContacts !== undefined ? { monthlyContacts: body.monthlyContacts } : {}),
            ...(body.monthlyMessages !== undefined ? { monthlyMessages: body.monthlyMessages } : {}),
            ...(body.phoneNumbers !== undefined ? { phoneNumbers: body.phoneNumbers } : {}),
            ...(features ? { features } : {}),
            updatedAt: new Date(ctx.now()),
          })
          .where(eq(plans.id, params.id))
          .returning()
          .get()!;
        return { success: true, data: planView(updated) };
      },
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
    .get(
      "/error-reports",
      ({ query }) => {
        const { page, pageSize } = paging(query);
        const total = ctx.db.select({ n: count() }).from(errorReports).get()!.n;
        const rows = ctx.db
          .select({ report: errorReports, email: users.email })
          .from(errorReports)
          .leftJoin(users, eq(users.id, errorReports.userId))
          .orderBy(desc(errorReports.createdAt), desc(errorReports.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize)
          .all();
        const data = rows.map(({ report: r, email }) => ({
          id: r.id,
          type: r.type,
          message: r.message,
          stack: r.stack,
          componentStack: r.componentStack,
          url: r.url,
          userAgent: r.userAgent,
          occurredAt: r.occurredAt,
          user: r.userId ? { id: r.userId, email } : null,
          createdAt: r.createdAt.toISOString(),
        }));
        return { data, total, page, pageSize };
      },
      { auth: "admin", query: t.Object(pageQuery) },
    )
    .get(
      "/contact-messages",
      ({ query }) => {
        const { page, pageSize } = paging(query);
        const where =
          query.status === "open" ? isNull(supportMessages.handledAt) : query.status === "handled" ? isNotNull(supportMessages.handledAt) : undefined;
        const total = ctx.db.select({ n: count() }).from(supportMessages).where(where).get()!.n;
        const rows = ctx.db
          .select()
          .from(supportMessages)
          .where(where)
          .orderBy(desc(supportMessages.createdAt), desc(supportMessages.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize)
          .all();
        const data = rows.map((m) => ({
          ...m,
          createdAt: m.createdAt.toISOString(),
          handledAt: m.handledAt?.toISOString() ?? null,
        }));
        return { data, total, page, pageSize };
      },
      {
        auth: "admin",
        query: t.Object({ ...pageQuery, status: t.Optional(t.Union([t.Literal("open"), t.Literal("handled")], { error: "status must be open or handled" })) }),
      },
    )
    .post(
      "/contact-messages/:id/handled",
      ({ params, body }) => {
        const handled = body?.handled ?? true;
        const row = ctx.db
          .update(supportMessages)
          .set({ handledAt: handled ? new Date(ctx.now()) : null })
          .where(eq(supportMessages.id, params.id))
          .returning()
          .get();
        if (!row) throw notFound("Message not found");
        return { success: true, data: { id: row.id, handledAt: row.handledAt?.toISOString() ?? null } };
      },
      { auth: "admin", params: t.Object({ id: t.String({ maxLength: 100 }) }), body: t.Optional(t.Object({ handled: t.Optional(t.Boolean()) })) },
    )
    // Health
    .get(
      "/health",
      () => {
        const n = (q: { n: number } | undefined) => q?.n ?? 0;
        return {
          data: {
            version: VERSION,
            uptimeSeconds: Math.floor((ctx.now() - startedAt) / 1000),
            startedAt: new Date(startedAt).toISOString(),
            databaseBytes: databaseSize(ctx),
            users: n(ctx.db.select({ n: count() }).from(users).get()),
            admins: n(ctx.db.select({ n: count() }).from(users).where(eq(users.role, "admin")).get()),
            disabledUsers: n(ctx.db.select({ n: count() }).from(users).where(eq(users.disabled, true)).get()),
            activeLicenseCodes: n(
              ctx.db.select({ n: count() }).from(licenseCodes).where(and(isNull(licenseCodes.redeemedAt), isNull(licenseCodes.revokedAt))).get(),
            ),
            errorReports: n(ctx.db.select({ n: count() }).from(errorReports).get()),
            openContactMessages: n(ctx.db.select({ n: count() }).from(supportMessages).where(isNull(supportMessages.handledAt)).get()),
          },
        };
      },
      { auth: "admin" },
    );

  return new Elysia().use(login).use(portal);
}
