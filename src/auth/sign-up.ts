import { randomBytes } from "node:crypto";
import { desc, eq, lte, sql } from "drizzle-orm";
import { pendingSignUps } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { accountExistsEmail } from "../mail/templates";
import { findUserByEmail, findUserById, insertUser, normalizeEmail, type User } from "../users/queries";
import {
  CODE_EXPIRED,
  CODE_TTL_MINUTES,
  checkVerificationCode,
  cooldownError,
  DAY_MS,
  dailyCapError,
  INVALID_CODE,
  MAX_CODE_ATTEMPTS,
  MAX_CODES_PER_DAY,
  RESEND_COOLDOWN_SECONDS,
  sendVerificationCode,
  TOO_MANY_ATTEMPTS,
} from "./email-verification";
import { hashPassword } from "./passwords";
import { keyedHash } from "./secure-compare";

/**
 * Sign-up answers alike for every email (issue 27 item 7): it answered 409 for an address with an account, so
 * anyone could list which addresses have one. Now every sign-up answers 201 with a sign-up token and "we sent a
 * code"; the account is signed in only by the emailed code (POST /register/verify). A new address gets its account
 * (unverified, as before) and a code; an address with an account gets no code and no change, and its owner is
 * emailed that someone tried. Both take the same work (an argon2 hash, one email). For the second, the token's
 * checks and resends follow the real rules (attempts, expiry, cooldown, daily cap) on a code that does not exist,
 * so nothing tells the two apart. An abandoned sign-up is finished by signing in with the password.
 *
 * Pending sign-ups are kept in the database (pending_sign_ups, by the keyed hash of their token), so the code step
 * may reach another process of the installation, or a restarted one, than the sign-up did.
 */
export const SIGN_UP_EXPIRED = "Your sign-up has expired. Please sign in to finish it.";
const PENDING_TTL_MS = DAY_MS;
const MAX_PENDING = 10_000;

/** What a sign-up's license code did (licenses/licenses.ts licenseAtSignUp, which the route hands in). */
export type SignUpLicense = { licenseRedeemed: boolean; licensePlan: string | null; licenseError?: string };
type Pending = {
  /** The account this sign-up made; null when the address already had one (nothing can finish it). */
  userId: string | null;
  email: string;
  license: SignUpLicense;
  createdAt: number;
  // The imitated code of an existing address: the same limits as a real one (email-verification.ts).
  expiresAt: number;
  attempts: number;
  sentAt: number;
  windowStartedAt: number;
  sends: number;
};

const tokenHash = (ctx: AppContext, token: string) => keyedHash(ctx.keys.codes, `sign-up:${token}`);

async function remember(ctx: AppContext, pending: Pending): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const { license, ...fields } = pending;
  await ctx.withTransaction(async () => {
    await ctx.records.insert(pendingSignUps).values({ tokenHash: tokenHash(ctx, token), license: JSON.stringify(license), ...fields }).run();
    await ctx.records.delete(pendingSignUps).where(lte(pendingSignUps.createdAt, pending.createdAt - PENDING_TTL_MS)).run();
    // Past the bound the oldest sign-up is forgotten (its account, if any, is finished by signing in).
    const oldest = await ctx.records.select({ at: pendingSignUps.createdAt }).from(pendingSignUps).orderBy(desc(pendingSignUps.createdAt)).limit(1).offset(MAX_PENDING).get();
    if (oldest) await ctx.records.delete(pendingSignUps).where(lte(pendingSignUps.createdAt, oldest.at)).run();
  });
  return token;
}

async function pendingOf(ctx: AppContext, token: string): Promise<Pending & { hash: string }> {
  const hash = tokenHash(ctx, token);
  const row = await ctx.records.select().from(pendingSignUps).where(eq(pendingSignUps.tokenHash, hash)).get();
  if (!row || row.createdAt + PENDING_TTL_MS <= ctx.now()) {
    if (row) await forget(ctx, hash);
    throw new HttpError(400, SIGN_UP_EXPIRED);
  }
  const { tokenHash: _, license, ...fields } = row;
  return { ...fields, hash, license: JSON.parse(license) as SignUpLicense };
}

async function forget(ctx: AppContext, hash: string) {
  await ctx.records.delete(pendingSignUps).where(eq(pendingSignUps.tokenHash, hash)).run();
}

export type SignUpFields = {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  phone: string | null;
};

/**
 * Starts a sign-up: answers the same token-and-message for every address (see above). `licensesOf` starts a new
 * account's trial and redeems the code it was given; its answer waits for the code step.
 */
export async function startSignUp(
  ctx: AppContext,
  fields: SignUpFields,
  licensesOf: (userId: string) => Promise<SignUpLicense>,
): Promise<{ signupToken: string; email: string; message: string }> {
  const email = normalizeEmail(fields.email);
  await ready(ctx.db);
  const existing = await findUserByEmail(ctx, email);
  // Hashed on both paths: the new account's hash is the only slow step a known address would otherwise skip.
  const passwordHash = await hashPassword(fields.password, ctx.argon2Cost);
  const now = ctx.now();
  const base = { email, createdAt: now, expiresAt: now + CODE_TTL_MINUTES * 60_000, attempts: 0, sentAt: now, windowStartedAt: now, sends: 1 };
  let signupToken: string;
  if (existing) {
    signupToken = await remember(ctx, { ...base, userId: null, license: { licenseRedeemed: false, licensePlan: null } });
    await notifyOwner(ctx, existing);
  } else {
    await ready(ctx.db);
    const user = await insertUser(ctx, { email, passwordHash, firstName: fields.firstName, lastName: fields.lastName, phone: fields.phone });
    const license = await licensesOf(user.id);
    // The account exists even if the mail server is down; the code step offers a resend.
    await sendVerificationCode(ctx, user).catch(() => undefined);
    signupToken = await remember(ctx, { ...base, userId: user.id, license });
  }
  return { signupToken, email, message: `We sent a 6-digit code to ${email}. Enter it to finish creating your account.` };
}

async function notifyOwner(ctx: AppContext, owner: User) {
  await ctx.mailer
    .send(accountExistsEmail(owner.email, ctx.config.publicUrl, !owner.passwordHash))
    .catch((err: Error) => ctx.log(`mail error: account exists notice to ${owner.email}: ${err.message}`));
}

/** The emailed code finishes the sign-up: the verified account and what its license code did. */
export async function finishSignUp(ctx: AppContext, token: string, code: string): Promise<{ user: User; license: SignUpLicense }> {
  await ready(ctx.db);
  const pending = await pendingOf(ctx, token);
  if (pending.userId === null) {
    if (pending.expiresAt <= ctx.now()) throw new HttpError(400, CODE_EXPIRED);
    if (pending.attempts >= MAX_CODE_ATTEMPTS) throw new HttpError(429, TOO_MANY_ATTEMPTS);
    // Counted by the database (+ 1 on what it holds), as a real code's wrong guesses are.
    await ctx.records.update(pendingSignUps).set({ attempts: sql`${pendingSignUps.attempts} + 1` }).where(eq(pendingSignUps.tokenHash, pending.hash)).run();
    throw new HttpError(400, INVALID_CODE);
  }
  const user = await findUserById(ctx, pending.userId);
  if (!user) throw new HttpError(400, SIGN_UP_EXPIRED);
  const verified = await checkVerificationCode(ctx, user, code);
  await ready(ctx.db);
  await forget(ctx, pending.hash);
  return { user: verified, license: pending.license };
}

/** A new code for the sign-up (the owner's notice again for an address with an account), under the same limits. */
export async function resendSignUpCode(ctx: AppContext, token: string): Promise<{ email: string; retryAfter: number }> {
  await ready(ctx.db);
  const pending = await pendingOf(ctx, token);
  if (pending.userId !== null) {
    const user = await findUserById(ctx, pending.userId);
    if (!user) throw new HttpError(400, SIGN_UP_EXPIRED);
    return { email: pending.email, ...(await sendVerificationCode(ctx, user)) };
  }
  const now = ctx.now();
  // The cooldown and the day's count checked by the update that counts the send, on the row the database holds (as
  // a real code's, email-verification.ts): two resends at once, on two processes, cannot both pass.
  const windowOpen = `window_started_at > ?`;
  const [counted] = await ctx.records.$rows(
      `UPDATE pending_sign_ups SET
         window_started_at = CASE WHEN ${windowOpen} THEN window_started_at ELSE ? END,
         sends = CASE WHEN ${windowOpen} THEN sends + 1 ELSE 1 END,
         sent_at = ?, expires_at = ?, attempts = 0
       WHERE token_hash = ? AND sent_at <= ? AND NOT (${windowOpen} AND sends >= ?)
       RETURNING sends`,
      [now - DAY_MS, now, now - DAY_MS, now, now + CODE_TTL_MINUTES * 60_000, pending.hash, now - RESEND_COOLDOWN_SECONDS * 1000, now - DAY_MS, MAX_CODES_PER_DAY],
  );
  if (!counted) {
    const held = await pendingOf(ctx, token);
    const wait = Math.ceil((held.sentAt + RESEND_COOLDOWN_SECONDS * 1000 - now) / 1000);
    if (wait > 0) throw cooldownError(wait);
    throw dailyCapError(Math.ceil((held.windowStartedAt + DAY_MS - now) / 1000));
  }
  const owner = await findUserByEmail(ctx, pending.email);
  if (owner) await notifyOwner(ctx, owner);
  return { email: pending.email, retryAfter: RESEND_COOLDOWN_SECONDS };
}
