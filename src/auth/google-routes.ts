import { createHash, randomBytes } from "node:crypto";
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { clientIp } from "../http/client-ip";
import { notFound } from "../http/errors";
import {
  exchangeCode,
  findOrCreateGoogleUser,
  GOOGLE_STATE_TTL_MS,
  GoogleSignInError,
  redirectUri,
  saveGoogleState,
  takeGoogleState,
} from "./google";
import { safeEqual } from "./secure-compare";
import { createSession, setSessionCookies } from "./sessions";
import {
  isTwoFactorEnabled,
  PENDING_LOGIN_COOKIE,
  PENDING_LOGIN_COOKIE_PATH,
  PENDING_LOGIN_MS,
  startPendingLogin,
} from "./two-factor";

export const GOOGLE_STATE_COOKIE = "smsdesk_google_state";
const NOT_CONFIGURED = "Google sign-in is not configured";

/**
 * Where the browser goes after the callback: the setup wizard for a new account (as after an email's verification),
 * home for another, /auth with a readable message on failure.
 */
const failureLocation = (message: string) => `/auth?error=${encodeURIComponent(message)}`;

/** "Continue with Google" (src/auth/google.ts): whether it is offered, its start and its callback. */
export function googleRoutes(ctx: AppContext) {
  return (
    new Elysia({ prefix: "/api/auth" })
      // GET /api/auth/providers
      .get("/providers", () => ({ google: ctx.config.google !== null }))
      // GET /api/auth/google
      .get("/google", async ({ cookie, set }) => {
        const google = ctx.config.google;
        if (!google) throw notFound(NOT_CONFIGURED);
        const state = randomBytes(32).toString("base64url");
        const verifier = randomBytes(48).toString("base64url");
        await saveGoogleState(ctx, state, verifier);
        cookie[GOOGLE_STATE_COOKIE]!.set({
          value: state,
          httpOnly: true,
          sameSite: "lax",
          secure: ctx.config.publicUrl.startsWith("https:"),
          path: "/api/auth/google",
          maxAge: GOOGLE_STATE_TTL_MS / 1000,
        });
        const url = new URL(google.authUrl);
        url.search = new URLSearchParams({
          client_id: google.clientId,
          redirect_uri: redirectUri(ctx),
          response_type: "code",
          scope: "openid email profile",
          state,
          code_challenge: createHash("sha256").update(verifier).digest("base64url"),
          code_challenge_method: "S256",
          prompt: "select_account",
        }).toString();
        set.status = 302;
        set.headers.location = url.toString();
        return "";
      })
      // GET /api/auth/google/callback
      .get(
        "/google/callback",
        async ({ query, cookie, headers, request, set }) => {
          if (!ctx.config.google) throw notFound(NOT_CONFIGURED);
          const expectedState = cookie[GOOGLE_STATE_COOKIE]?.value as string | undefined;
          cookie[GOOGLE_STATE_COOKIE]!.set({ value: "", maxAge: 0, path: "/api/auth/google", httpOnly: true, sameSite: "lax" });
          set.status = 302;
          try {
            if (query.error) {
              throw new GoogleSignInError(
                query.error === "access_denied" ? "Google sign-in was cancelled." : "Google sign-in failed. Please try again.",
              );
            }
            const state = query.state ?? "";
            const row = state ? await takeGoogleState(ctx, state) : undefined;
            if (
              !row ||
              row.kind !== "google" ||
              row.expiresAt.getTime() <= ctx.now() ||
              !expectedState ||
              !safeEqual(expectedState, state)
            ) {
              throw new GoogleSignInError("Google sign-in expired or did not start here. Please try again.");
            }
            if (!query.code) throw new GoogleSignInError("Google sign-in failed. Please try again.");
            const profile = await exchangeCode(ctx, query.code, row.challenge);
            const { user, isNew } = await findOrCreateGoogleUser(ctx, profile);
            if (user.disabled) throw new GoogleSignInError("This account has been disabled. Please contact support.");
            if (await isTwoFactorEnabled(ctx, user.id)) {
              // Control of the mailbox is one factor: the code step follows, exactly as after a password.
              cookie[PENDING_LOGIN_COOKIE]!.set({
                value: await startPendingLogin(ctx, user.id),
                httpOnly: true,
                sameSite: "lax",
                secure: ctx.config.publicUrl.startsWith("https:"),
                path: PENDING_LOGIN_COOKIE_PATH,
                maxAge: PENDING_LOGIN_MS / 1000,
              });
              set.headers.location = "/auth?step=2fa";
              return "";
            }
            const session = await createSession(ctx, user.id, {
              userAgent: headers["user-agent"],
              ip: clientIp(request),
            });
            setSessionCookies(ctx, cookie, session.token, session.expiresAt);
            set.headers.location = isNew ? "/onboarding" : "/?auth=google";
          } catch (err) {
            if (!(err instanceof GoogleSignInError)) ctx.log(`google sign-in error: ${(err as Error)?.stack ?? err}`);
            set.headers.location = failureLocation(
              err instanceof GoogleSignInError ? err.message : "Google sign-in failed. Please try again.",
            );
          }
          return "";
        },
        {
          query: t.Object(
            {
              code: t.Optional(t.String({ maxLength: 2048 })),
              state: t.Optional(t.String({ maxLength: 200 })),
              error: t.Optional(t.String({ maxLength: 200 })),
              scope: t.Optional(t.String()),
              authuser: t.Optional(t.String()),
              prompt: t.Optional(t.String()),
              hd: t.Optional(t.String()),
            },
            { additionalProperties: true },
          ),
        },
      )
  );
}
