import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { badRequest, HttpError } from "../http/errors";
import { clientIp } from "../http/client-ip";
import { findUserByEmail, findUserById, publicUser } from "../users/queries";
import { EMAIL_RE } from "./email-change";
import { checkVerificationCode, sendVerificationCode } from "./email-verification";
import { authGuard } from "./guard";
import { attemptPassword, INVALID_CREDENTIALS } from "./lockout";
import { INVALID_RESET_TOKEN, requestPasswordReset, resetPassword } from "./password-reset";
import { listPasskeys } from "./passkeys";
import { MIN_PASSWORD_LENGTH } from "./passwords";
import { finishSignUp, resendSignUpCode, SIGN_UP_EXPIRED, startSignUp, type SignUpLicense } from "./sign-up";
import { confirmIdentity, reauthFields, RECENT_CONFIRMATION_MS } from "./reauth";
import { keepCredentialsField, outcomeView, sessionsWithCredentials, signOutOtherSessions } from "./session-credentials";
import {
  createSession,
  resolveSession,
  revokeOwnSession,
  revokeSession,
  clearSessionCookies,
  setSessionCookies,
  tokenOfRequest,
} from "./sessions";
import {
  codesLockedError,
  completeSecondStep,
  isTwoFactorEnabled,
  PENDING_LOGIN_COOKIE,
  PENDING_LOGIN_COOKIE_PATH,
  startPendingLogin,
} from "./two-factor";

const SIGN_IN_EXPIRED = "Your sign-in has expired. Please sign in again.";
const optionalText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })));

/**
 * `licenseAtSignUp` starts a new account's trial or redeems the code typed at sign-up: the licenses domain's, handed
 * in by the composition (app.ts), licenses being above who is signed in.
 */
export function authRoutes(ctx: AppContext, licenseAtSignUp: (userId: string, licenseCode: string | null | undefined) => Promise<SignUpLicense>) {
  const clientMeta = (headers: Record<string, string | undefined>, ip: string | null) => ({
    userAgent: headers["user-agent"],
    ip,
  });

  return new Elysia({ prefix: "/api/auth" })
    .use(authGuard(ctx))
    // POST /api/auth/register
    .post(
      "/register",
      async ({ body, set }) => {
        const email = body.email?.trim() ?? "";
        const password = body.password ?? "";
        if (!email || !password) throw badRequest("Email and password are required");
        if (!EMAIL_RE.test(email)) throw badRequest("Please enter a valid email address");
        if (!body.confirmPassword) throw badRequest("Please confirm your password");
        if (password.length < MIN_PASSWORD_LENGTH) throw badRequest(`Password must be at least ${MIN_PASSWORD_LENGTH} characters`);
        if (password !== body.confirmPassword) throw badRequest("Passwords do not match");

        // 201 with a sign-up token for every address, known or not (sign-up.ts); the emailed code signs in.
        set.status = 201;
        const fields = { email, password, firstName: body.firstName?.trim() ?? "", lastName: body.lastName?.trim() ?? "", phone: body.phone?.trim() || null };
        return startSignUp(ctx, fields, (userId) => licenseAtSignUp(userId, body.licenseCode));
      },
      {
        body: t.Object({
          email: optionalText(254),
          password: optionalText(200),
          confirmPassword: optionalText(200),
          firstName: optionalText(100),
          lastName: optionalText(100),
          phone: optionalText(40),
          licenseCode: optionalText(40),
        }),
      },
    )
    // POST /api/auth/register/verify
    // The emailed code finishes a sign-up: the account is verified and signed in.
    .post(
      "/register/verify",
      async ({ body, headers, cookie, request }) => {
        const { user, license } = await finishSignUp(ctx, body.signupToken, body.code);
        const session = await createSession(ctx, user.id, clientMeta(headers, clientIp(request)));
        setSessionCookies(ctx, cookie, session.token, session.expiresAt);
        return { token: session.token, user: publicUser(user), ...license };
      },
      {
        body: t.Object({
          signupToken: t.String({ minLength: 1, maxLength: 100, error: SIGN_UP_EXPIRED }),
          code: t.String({ pattern: "^[0-9]{6}$", error: "Please enter a 6-digit verification code" }),
        }),
      },
    )
    // POST /api/auth/register/resend
    .post(
      "/register/resend",
      async ({ body }) => {
        const { email, retryAfter } = await resendSignUpCode(ctx, body.signupToken);
        return { success: true, message: `Verification code sent to ${email}`, retryAfter };
      },
      { body: t.Object({ signupToken: t.String({ minLength: 1, maxLength: 100, error: SIGN_UP_EXPIRED }) }) },
    )
    // POST /api/auth/login
    .post(
      "/login",
      async ({ body, headers, cookie, request }) => {
        const email = body.email?.trim() ?? "";
        const password = body.password ?? "";
        if (!email || !password) throw badRequest("Please fill in all fields");
        // No account has such an email: answered before the password check (and its hashing) costs anything.
        if (!EMAIL_RE.test(email)) throw badRequest("Please enter a valid email address");
        const user = await findUserByEmail(ctx, email);
        // Every email takes one path: the throttled argon2 check (against the decoy hash when there is no account or
        // it signs in with Google only), then the same 401. Answers and their time never tell which emails have
        // accounts or how they sign in.
        const ok = await attemptPassword(ctx, email, user?.passwordHash ?? null, password, clientIp(request));
        if (!ok || !user) throw new HttpError(401, INVALID_CREDENTIALS);
        if (user.disabled) throw new HttpError(403, "This account has been disabled. Please contact support.");
        if (await isTwoFactorEnabled(ctx, user.id)) {
          // No session yet: the code step (/login/2fa) must follow within 5 minutes, carrying this token.
          return { requires2FA: true, userId: user.id, pendingToken: await startPendingLogin(ctx, user.id) };
        }
        const session = await createSession(ctx, user.id, clientMeta(headers, clientIp(request)));
        setSessionCookies(ctx, cookie, session.token, session.expiresAt);
        return { token: session.token, user: publicUser(user), requires2FA: false };
      },
      { body: t.Object({ email: optionalText(254), password: optionalText(200) }) },
    )
    // POST /api/auth/login/2fa
    .post(
      "/login/2fa",
      async ({ body, headers, cookie, request }) => {
        const code = (body.token ?? "").trim();
        if (!/^\d{6}$/.test(code) && !/^[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}$/.test(code)) {
          throw badRequest("Please enter a valid 6-digit code");
        }
        // The JSON answer of the password step, else the cookie a Google sign-in left; a userId alone proves nothing.
        const pendingToken = body.pendingToken || (cookie[PENDING_LOGIN_COOKIE]?.value as string | undefined) || "";
        const result = pendingToken ? await completeSecondStep(ctx, pendingToken, code) : ({ outcome: "expired" } as const);
        if (result.outcome === "locked") throw codesLockedError(result.lockedUntil, ctx.now());
        if (result.outcome === "invalid") throw new HttpError(401, "Invalid verification code");
        if (result.outcome === "expired") throw new HttpError(401, SIGN_IN_EXPIRED);
        const user = await findUserById(ctx, result.userId);
        if (!user) throw new HttpError(401, SIGN_IN_EXPIRED);
        if (user.disabled) throw new HttpError(403, "This account has been disabled. Please contact support.");
        cookie[PENDING_LOGIN_COOKIE]!.set({ value: "", maxAge: 0, path: PENDING_LOGIN_COOKIE_PATH, httpOnly: true, sameSite: "lax" });
        const session = await createSession(ctx, user.id, clientMeta(headers, clientIp(request)));
        setSessionCookies(ctx, cookie, session.token, session.expiresAt);
        return { token: session.token, user: publicUser(user) };
      },
      { body: t.Object({ userId: optionalText(100), pendingToken: optionalText(100), token: optionalText(20) }) },
    )
    // POST /api/auth/logout
    .post("/logout", async ({ request, cookie }) => {
      const token = tokenOfRequest(request);
      const session = token ? await resolveSession(ctx, token) : null;
      if (session) await revokeSession(ctx, session.sessionId);
      clearSessionCookies(cookie);
      return { success: true };
    })
    // GET /api/auth/sessions
    .get("/sessions", async ({ user, sessionId }) => ({ sessions: await sessionsWithCredentials(ctx, user.id, sessionId) }), { auth: "unverified" })
    // POST /api/auth/sessions/revoke-others
    // The API keys and webhooks those sessions set up are revoked with them unless keepCredentials.
    .post(
      "/sessions/revoke-others",
      async ({ user, sessionId, body }) => {
        const outcome = await signOutOtherSessions(ctx, user.id, sessionId, body?.keepCredentials ?? false);
        return { success: true, revoked: outcome.ended, credentials: outcomeView(outcome.credentials) };
      },
      { auth: "unverified", body: t.Optional(t.Object({ keepCredentials: keepCredentialsField })) },
    )
    // DELETE /api/auth/sessions/:id
    .delete(
      "/sessions/:id",
      async ({ user, params }) => {
        await revokeOwnSession(ctx, user.id, params.id);
        return { success: true };
      },
      { auth: "unverified", params: t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) }) },
    )
    // POST /api/auth/confirm
    // Sudo mode (reauth.ts): the password or a current code proves again who holds this session.
    .post(
      "/confirm",
      async ({ user, sessionId, body, request }) => {
        // confirmIdentity lets an account with nothing to type through without confirming its session (right for a
        // change that asks every time); here that would answer a confirmation the session never got.
        if (!user.passwordHash && !(await isTwoFactorEnabled(ctx, user.id))) {
          throw badRequest(
            (await listPasskeys(ctx, user.id)).length ? "Please confirm with one of your passkeys" : "This account has no password or verification code to confirm with",
          );
        }
        await confirmIdentity(ctx, user, sessionId, body, "to confirm it's you", clientIp(request));
        return { success: true, confirmedUntil: new Date(ctx.now() + RECENT_CONFIRMATION_MS).toISOString() };
      },
      { auth: true, body: t.Object(reauthFields) },
    )
    // GET /api/auth/user
    .get("/user", ({ user }) => publicUser(user), { auth: "unverified" })
    // POST /api/auth/verify/email/send
    .post(
      "/verify/email/send",
      async ({ user }) => {
        if (user.emailVerified) throw badRequest("Your email address is already verified");
        const { retryAfter } = await sendVerificationCode(ctx, user);
        return { success: true, message: `Verification code sent to ${user.email}`, retryAfter };
      },
      { auth: "unverified" },
    )
    // POST /api/auth/verify/email
    .post(
      "/verify/email",
      async ({ user, body }) => {
        if (user.emailVerified) return { success: true, message: "Email verified successfully!", user: publicUser(user) };
        const verified = await checkVerificationCode(ctx, user, body.code);
        return { success: true, message: "Email verified successfully!", user: publicUser(verified) };
      },
      {
        auth: "unverified",
        body: t.Object({
          code: t.String({ pattern: "^[0-9]{6}$", error: "Please enter a 6-digit verification code" }),
        }),
      },
    )
    // POST /api/auth/forgot-password
    .post(
      "/forgot-password",
      async ({ body }) => {
        const email = body.email?.trim() ?? "";
        if (!email) throw badRequest("Please enter your email address");
        if (!EMAIL_RE.test(email)) throw badRequest("Please enter a valid email address");
        const token = await requestPasswordReset(ctx, email);
        return {
          success: true,
          message: "If an account exists for that email, we have sent a link to reset its password.",
          ...(ctx.config.dev && !ctx.config.smtpUrl && token ? { debugToken: token } : {}),
        };
      },
      { body: t.Object({ email: optionalText(254) }) },
    )
    // POST /api/auth/reset-password
    .post(
      "/reset-password",
      async ({ body }) => {
        if (!body.token) throw badRequest(INVALID_RESET_TOKEN);
        if (!body.password) throw badRequest("Please enter a new password");
        if (body.password.length < MIN_PASSWORD_LENGTH) throw badRequest(`Password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
        if (body.confirmPassword != null && body.confirmPassword !== body.password) throw badRequest("Passwords do not match");
        const credentials = outcomeView(await resetPassword(ctx, body.token, body.password, body.keepCredentials ?? false));
        return { success: true, message: ["Your password has been reset. You can now sign in.", credentials.summary].filter(Boolean).join(" "), credentials };
      },
      {
        body: t.Object({ token: optionalText(200), password: optionalText(200), confirmPassword: optionalText(200), keepCredentials: keepCredentialsField }),
      },
    );
}
