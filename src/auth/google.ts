/**
 * "Continue with Google": OAuth 2.0 authorization code flow with PKCE (S256) and state. The state and the code
 * verifier live in auth_challenges (kind 'google', 10 minutes, used once); the state is also kept in a short
 * cookie so a callback only completes in the browser that started it (no login CSRF). The routes are in
 * google-routes.ts.
 */
import { eq, lt, type SQL } from "drizzle-orm";
import { authChallenges, userSecurity } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { findUserByEmail, findUserById, insertUser, updateUser, type User } from "../users/queries";
import { keyedHash } from "./secure-compare";
import { revokeAllSessions } from "./sessions";
import { clearPendingLogin } from "./two-factor";

export const GOOGLE_STATE_TTL_MS = 10 * 60_000;

/** A sign-in failure whose message the user may read (the callback shows it on /auth). */
export class GoogleSignInError extends Error {}

type GoogleProfile = {
  sub: string;
  email: string;
  email_verified?: boolean | string;
  given_name?: string;
  family_name?: string;
  name?: string;
  picture?: string;
};

export const redirectUri = (ctx: AppContext) => `${ctx.config.publicUrl}/api/auth/google/callback`;

export async function exchangeCode(ctx: AppContext, code: string, verifier: string): Promise<GoogleProfile> {
  const google = ctx.config.google!;
  const tokenRes = await fetch(google.tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri(ctx),
      client_id: google.clientId,
      client_secret: google.clientSecret,
      code_verifier: verifier,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const tokens = (await tokenRes.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
  if (!tokenRes.ok || !tokens.access_token) {
    ctx.log(`google token exchange failed: ${tokenRes.status} ${tokens.error ?? ""} ${tokens.error_description ?? ""}`);
    throw new GoogleSignInError("Google sign-in failed. Please try again.");
  }
  const infoRes = await fetch(google.userinfoUrl, {
    headers: { authorization: `Bearer ${tokens.access_token}`, accept: "application/json" },
    signal: AbortSignal.timeout(10_000),
  });
  const profile = (await infoRes.json().catch(() => ({}))) as Partial<GoogleProfile>;
  if (!infoRes.ok || typeof profile.sub !== "string" || !profile.sub || typeof profile.email !== "string" || !profile.email) {
    ctx.log(`google userinfo failed: ${infoRes.status}`);
    throw new GoogleSignInError("Google sign-in failed. Please try again.");
  }
  if (profile.email_verified !== true && profile.email_verified !== "true") {
    throw new GoogleSignInError("Your Google account's email address is not verified.");
  }
  return profile as GoogleProfile;
}

async function linkSubject(ctx: AppContext, userId: string, subject: string) {
  await ready(ctx.db);
  await ctx.records
    .insert(userSecurity)
    .values({ userId, googleSubject: subject })
    .onConflictDoUpdate({ target: userSecurity.userId, set: { googleSubject: subject } })
    .run();
}

/** Keeps a sign-in's state (by its keyed hash) and PKCE verifier for GOOGLE_STATE_TTL_MS; expired ones go. */
export async function saveGoogleState(ctx: AppContext, state: string, verifier: string): Promise<void> {
  await ready(ctx.db);
  const now = ctx.now();
  await ctx.records.delete(authChallenges).where(lt(authChallenges.expiresAt, new Date(now))).run();
  await ctx.records
    .insert(authChallenges)
    .values({
      id: keyedHash(ctx.keys.codes, `google:${state}`),
      kind: "google",
      userId: null,
      challenge: verifier,
      expiresAt: new Date(now + GOOGLE_STATE_TTL_MS),
    })
    .run();
}

/**
 * The challenge stored for this state, removed as it is read (a state is used once: one DELETE answers it, so two
 * callbacks with the same state cannot both have it); the caller checks kind and expiry.
 */
export async function takeGoogleState(ctx: AppContext, state: string) {
  await ready(ctx.db);
  return ctx.records.delete(authChallenges).where(eq(authChallenges.id, keyedHash(ctx.keys.codes, `google:${state}`))).returning().get();
}

/** Unlinks the account's Google identity: "Continue with Google" no longer signs in to it. */
export async function unlinkGoogle(ctx: AppContext, userId: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.update(userSecurity).set({ googleSubject: null }).where(eq(userSecurity.userId, userId)).run();
}

/**
 * The account of this Google identity: already linked, else the same verified email (linked now), else new.
 *
 * An existing account whose email was never verified may have been registered by someone else to wait for the
 * owner (pre-registration takeover): Google's proof of the mailbox makes this user the owner, so that account's
 * password is dropped and every session it has ends before the owner's session is created. An account with 2FA
 * is linked too, but its sign-in still asks for the code (see the callback).
 * `isNew`: the account starts with this sign-in (made now, or claimed unverified: its owner never got past the
 * verification the setup wizard follows), so the wizard comes next, as after an email's verification.
 */
export async function findOrCreateGoogleUser(ctx: AppContext, profile: GoogleProfile): Promise<{ user: User; isNew: boolean }> {
  return ctx.withTransaction(async () => linkedOrNew(ctx, profile));
}

async function securityWhere(ctx: AppContext, where: SQL) {
  await ready(ctx.db);
  return ctx.records.select().from(userSecurity).where(where).get();
}

async function linkedOrNew(ctx: AppContext, profile: GoogleProfile): Promise<{ user: User; isNew: boolean }> {
  const linked = await securityWhere(ctx, eq(userSecurity.googleSubject, profile.sub));
  if (linked) {
    const user = await findUserById(ctx, linked.userId);
    if (user) return { user, isNew: false };
  }
  const existing = await findUserByEmail(ctx, profile.email);
  if (existing) {
    const security = await securityWhere(ctx, eq(userSecurity.userId, existing.id));
    if (security?.googleSubject && security.googleSubject !== profile.sub) {
      throw new GoogleSignInError("This account is linked to a different Google account.");
    }
    await linkSubject(ctx, existing.id, profile.sub);
    if (existing.emailVerified) return { user: existing, isNew: false };
    const claimed = await updateUser(ctx, existing.id, { emailVerified: true, passwordHash: null, authProvider: "google" });
    await revokeAllSessions(ctx, existing.id);
    await clearPendingLogin(ctx, existing.id);
    ctx.log(`google sign-in claimed unverified account ${existing.email}: its password was removed and its sessions ended`);
    return { user: claimed, isNew: true };
  }
  const user = await insertUser(ctx, {
    email: profile.email,
    passwordHash: null,
    authProvider: "google",
    emailVerified: true,
    firstName: (profile.given_name ?? profile.name ?? "").trim().slice(0, 100),
    lastName: (profile.family_name ?? "").trim().slice(0, 100),
    profileImageUrl: profile.picture?.startsWith("https://") ? profile.picture.slice(0, 500) : null,
  });
  await linkSubject(ctx, user.id, profile.sub);
  return { user, isNew: true };
}
