/**
 * Passkeys (WebAuthn). The relying party is PUBLIC_URL: its hostname is the RP id, its origin the expected origin.
 * @simplewebauthn/server costs ~160 ms to import, so it is loaded on the first ceremony, not at start.
 * Challenges live in auth_challenges (5 minutes, consumed once) and are found again from the challenge the
 * browser signed, so no extra cookie is needed between begin and complete.
 */
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, eq, lt } from "drizzle-orm";
import { ready } from "../../db/transaction";
import { isIP } from "node:net";
import { authChallenges, passkeys } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest, HttpError, notFound } from "../http/errors";
import { findUserById, type User } from "../users/queries";

export const CHALLENGE_TTL_MS = 5 * 60_000;
export const DEFAULT_PASSKEY_NAME = "My Device";
export const NO_PASSKEY = "No passkey found for this account";
export const ALREADY_REGISTERED = "This device is already registered";

/**
 * @simplewebauthn/server pulls in @peculiar/x509, whose tsyringe throws at load unless the `reflect-metadata`
 * polyfill ran first; the library's own helpers import it on their first line for that. Bun's bundler wraps a
 * dynamically imported module in a lazy initialiser that runs its ES-module imports first and its CommonJS ones
 * (reflect-metadata is CommonJS) after them, so in the built executable tsyringe loaded before the polyfill and
 * every ceremony answered 500. Loading the polyfill ourselves, before the library, does not depend on that order
 * (it is the library's own dependency, which npm installs at the top of node_modules).
 */
const loadServerLib = () => import("reflect-metadata").then(() => import("@simplewebauthn/server"));

type Passkey = typeof passkeys.$inferSelect;
type ChallengeKind = "webauthn-register" | "webauthn-login";

/**
 * Browsers accept a relying party only on a domain name, and over plain http only on localhost: anything else
 * fails in the browser with an error that names neither, so every ceremony says so up front.
 */
export function relyingParty(ctx: AppContext) {
  const url = new URL(ctx.config.publicUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) !== 0 || (url.protocol !== "https:" && host !== "localhost")) {
    throw badRequest(
      `Passkeys need the appliance to be reached at localhost or over HTTPS on a domain name (PUBLIC_URL is ${ctx.config.publicUrl})`,
    );
  }
  return { rpID: url.hostname, origin: url.origin, rpName: "smsdesk" };
}

/** A ceremony failure: `{verified: false, error, message}` with the status. */
const ceremonyError = (status: number, message: string) => new HttpError(status, message, { verified: false, error: message });

async function storeChallenge(ctx: AppContext, kind: ChallengeKind, userId: string | null, challenge: string) {
  await ready(ctx.db);
  const now = ctx.now();
  await ctx.records.delete(authChallenges).where(lt(authChallenges.expiresAt, new Date(now))).run();
  await ctx.records
    .insert(authChallenges)
    .values({ id: crypto.randomUUID(), kind, userId, challenge, expiresAt: new Date(now + CHALLENGE_TTL_MS) })
    .run();
}

/** The challenge the browser signed, read from clientDataJSON (verified again by the library). */
function signedChallenge(credential: { response?: { clientDataJSON?: unknown } }): string {
  try {
    const raw = credential.response?.clientDataJSON;
    if (typeof raw !== "string") throw new Error("no clientDataJSON");
    const data = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as { challenge?: unknown };
    if (typeof data.challenge !== "string" || !data.challenge) throw new Error("no challenge");
    return data.challenge;
  } catch {
    throw ceremonyError(400, "Invalid passkey response");
  }
}

/**
 * Finds and deletes (single use) the pending challenge; undefined when unknown or expired. One DELETE answers it, so
 * two completions of one ceremony (on two processes) cannot both have it.
 */
async function consumeChallenge(ctx: AppContext, kind: ChallengeKind, challenge: string, userId?: string) {
  await ready(ctx.db);
  const row = await ctx.records
    .delete(authChallenges)
    .where(and(eq(authChallenges.kind, kind), eq(authChallenges.challenge, challenge)))
    .returning()
    .get();
  if (!row) return undefined;
  if (row.expiresAt.getTime() <= ctx.now()) return undefined;
  if (userId !== undefined && row.userId !== userId) return undefined;
  return row;
}

async function userPasskeys(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  return ctx.records.select().from(passkeys).where(eq(passkeys.userId, userId)).all();
}

async function passkeyExists(ctx: AppContext, id: string): Promise<boolean> {
  await ready(ctx.db);
  return (await ctx.records.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.id, id)).get()) !== undefined;
}

const transportsOf = (p: Passkey) => (p.transports ?? []) as AuthenticatorTransport[];

export async function beginRegistration(ctx: AppContext, user: User) {
  const { rpID, rpName } = relyingParty(ctx);
  const { generateRegistrationOptions } = await loadServerLib();
  const options = await generateRegistrationOptions({
    rpName,
    rpID,
    userName: user.email,
    userDisplayName: [user.firstName, user.lastName].filter(Boolean).join(" ") || user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: (await userPasskeys(ctx, user.id)).map((p) => ({ id: p.id, transports: transportsOf(p) })),
    // Discoverable ("resident") only: sign-in names no account, so the authenticator must find the passkey itself.
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    timeout: CHALLENGE_TTL_MS,
  });
  await storeChallenge(ctx, "webauthn-register", user.id, options.challenge);
  return options;
}

export async function completeRegistration(
  ctx: AppContext,
  user: User,
  credential: RegistrationResponseJSON,
  friendlyName: string | null | undefined,
) {
  const { rpID, origin } = relyingParty(ctx);
  const challenge = signedChallenge(credential);
  const pending = await consumeChallenge(ctx, "webauthn-register", challenge, user.id);
  if (!pending) throw ceremonyError(400, "Registration expired or was not started. Please try again.");

  if (typeof credential.id === "string" && (await passkeyExists(ctx, credential.id))) {
    throw ceremonyError(409, ALREADY_REGISTERED);
  }
  const { verifyRegistrationResponse } = await loadServerLib();
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: credential,
      expectedChallenge: pending.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
  } catch (err) {
    throw ceremonyError(400, `Failed to register passkey: ${(err as Error).message}`);
  }
  if (!result.verified || !result.registrationInfo) throw ceremonyError(400, "Failed to register passkey");
  const info = result.registrationInfo;
  await ready(ctx.db);
  // The credential's id is the key: a registration of the same device completed meanwhile (by another request, or
  // another process) inserts nothing here.
  const row = await ctx.records
    .insert(passkeys)
    .values({
      id: info.credential.id,
      userId: user.id,
      publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
      counter: info.credential.counter,
      transports: credential.response.transports ?? info.credential.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      name: friendlyName?.trim().slice(0, 100) || DEFAULT_PASSKEY_NAME,
    })
    .onConflictDoNothing({ target: passkeys.id })
    .returning()
    .get();
  if (!row) throw ceremonyError(409, ALREADY_REGISTERED);
  return { verified: true, authenticator: describePasskey(row) };
}

/**
 * Request options for a usernameless sign-in: no email, no credential list; the browser offers the passkeys it
 * holds for this site and the answer names the credential (and its account). Options listing an email's
 * credentials, or a 404 for an email without any, told anyone which emails have accounts and passkeys.
 */
export async function beginAuthentication(ctx: AppContext) {
  const { rpID } = relyingParty(ctx);
  const { generateAuthenticationOptions } = await loadServerLib();
  const options = await generateAuthenticationOptions({
    rpID,
    allowCredentials: [],
    userVerification: "required",
    timeout: CHALLENGE_TTL_MS,
  });
  await storeChallenge(ctx, "webauthn-login", null, options.challenge);
  return options;
}

async function passkeyById(ctx: AppContext, id: string): Promise<Passkey | undefined> {
  await ready(ctx.db);
  return ctx.records.select().from(passkeys).where(eq(passkeys.id, id)).get();
}

/** The user handle a passkey of this account carries: the user id's bytes, as registration set them. */
const userHandleOf = (userId: string) => Buffer.from(userId, "utf8").toString("base64url");

/**
 * Verifies the assertion against the stored key and counter; the account is the key's (its user handle must agree).
 * A passkey with user verification is a strong factor on its own, so a 2FA account signs in directly.
 */
export async function completeAuthentication(ctx: AppContext, credential: AuthenticationResponseJSON): Promise<User> {
  const { rpID, origin } = relyingParty(ctx);
  const challenge = signedChallenge(credential);
  const pending = await consumeChallenge(ctx, "webauthn-login", challenge);
  if (!pending) throw ceremonyError(400, "Sign-in expired or was not started. Please try again.");
  const key = typeof credential.id === "string" ? await passkeyById(ctx, credential.id) : undefined;
  if (!key) throw ceremonyError(404, NO_PASSKEY);
  const handle = credential.response.userHandle;
  if (handle && handle !== userHandleOf(key.userId)) throw ceremonyError(404, NO_PASSKEY);

  const { verifyAuthenticationResponse } = await loadServerLib();
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: pending.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: key.id,
        publicKey: new Uint8Array(Buffer.from(key.publicKey, "base64url")),
        counter: key.counter,
        transports: transportsOf(key),
      },
      requireUserVerification: true,
    });
  } catch (err) {
    ctx.log(`passkey sign-in rejected for user ${key.userId}: ${(err as Error).message}`);
    throw ceremonyError(401, "Failed to authenticate with passkey");
  }
  if (!result.verified) throw ceremonyError(401, "Failed to authenticate with passkey");
  const user = await findUserById(ctx, key.userId);
  if (!user) throw ceremonyError(404, NO_PASSKEY);
  if (user.disabled) throw new HttpError(403, "This account has been disabled. Please contact support.", { verified: false });
  await ready(ctx.db);
  await ctx.records
    .update(passkeys)
    .set({
      counter: result.authenticationInfo.newCounter,
      backedUp: result.authenticationInfo.credentialBackedUp,
      lastUsedAt: new Date(ctx.now()),
    })
    .where(eq(passkeys.id, key.id))
    .run();
  return user;
}

export function describePasskey(p: Passkey) {
  return {
    id: p.id,
    name: p.name,
    credentialDeviceType: p.deviceType,
    transports: p.transports ?? [],
    credentialBackedUp: p.backedUp,
    createdAt: p.createdAt.toISOString(),
    lastUsed: p.lastUsedAt?.toISOString() ?? null,
  };
}

export async function listPasskeys(ctx: AppContext, userId: string) {
  return (await userPasskeys(ctx, userId))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .map(describePasskey);
}

/** Owner only: another user's passkey answers 404 like a missing one. */
export async function deletePasskey(ctx: AppContext, userId: string, id: string) {
  await ready(ctx.db);
  const deleted = await ctx.records
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning({ id: passkeys.id })
    .all();
  if (deleted.length === 0) throw notFound("Passkey not found");
}
