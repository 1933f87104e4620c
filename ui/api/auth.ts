/** Signing in and up, the session's user, email verification, password reset and Google: /api/auth/*. */
import { api, apiGet } from "../lib/api";
import type { Ok, Routes } from "./types";

type Auth = Routes["api"]["auth"];

/** The signed-in user as GET /api/auth/user answers. */
export type User = Ok<Auth["user"]["get"]>;

/** A sign-in's answer: a session, or (2FA on) the pending token for the second step. */
export type SessionAnswer = { token: string; user: User; requires2FA?: boolean; userId?: string; pendingToken?: string };

export type RegisterPayload = {
  email: string;
  password: string;
  confirmPassword: string;
  firstName: string;
  lastName: string;
  phone?: string;
  licenseCode?: string;
};

/** Where "Continue with Google" navigates (a full page load: the server redirects to Google). */
export const GOOGLE_SIGN_IN_URL = "/api/auth/google";

/** The session's user, or null when signed out. */
export const fetchUser = () => apiGet<User>("/api/auth/user");

export const signIn = (email: string, password: string) => api<SessionAnswer>("/api/auth/login", { body: { email, password } });

/** `pendingToken`: from the password step; Google sign-in keeps it in a cookie instead. */
export const signInSecondStep = (pendingToken: string | undefined, code: string) =>
  api<{ token: string }>("/api/auth/login/2fa", { body: { pendingToken, token: code } });

/** Every sign-up answers alike (a new address or one with an account): the emailed code's step follows. */
export type SignUpStarted = { signupToken: string; email: string; message: string };
export const signUp = (payload: RegisterPayload) => api<SignUpStarted>("/api/auth/register", { body: payload });

/** The emailed code finishes the sign-up: a session, and what the license code typed at sign-up did. */
export type SignUpFinished = { token: string; user: User; licenseRedeemed: boolean; licensePlan: string | null; licenseError?: string };
export const finishSignUp = (signupToken: string, code: string) =>
  api<SignUpFinished>("/api/auth/register/verify", { body: { signupToken, code } });
export const resendSignUpCode = (signupToken: string) =>
  api<{ retryAfter: number }>("/api/auth/register/resend", { body: { signupToken } });

export const signOut = () => api("/api/auth/logout", { method: "POST" });

/** Which sign-in providers the server has configured. */
export const fetchAuthProviders = () => api<Ok<Auth["providers"]["get"]>>("/api/auth/providers");

/** `debugToken`: the reset link's token, answered only in development mode. */
export const requestPasswordReset = (email: string) =>
  api<{ debugToken?: string }>("/api/auth/forgot-password", { body: { email } });

/** Every session ends; the API keys and webhooks they set up are revoked unless `keepCredentials`. */
export const resetPassword = (token: string, password: string, confirmPassword: string, keepCredentials: boolean) =>
  api<{ message: string }>("/api/auth/reset-password", { body: { token, password, confirmPassword, keepCredentials } });

export const sendVerificationEmail = () => api<{ retryAfter: number }>("/api/auth/verify/email/send", { method: "POST" });

export const verifyEmail = (code: string) => api<{ user: User }>("/api/auth/verify/email", { body: { code } });
