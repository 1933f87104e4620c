import { randomBytes, randomUUID } from "node:crypto";
import { and, eq, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { authChallenges, backupCodes, userSecurity } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { tooManyRequests } from "../http/errors";
import { decryptSecret, encryptSecret } from "../secrets/encryption";
import { keyedHash, safeEqual } from "./secure-compare";
import { revokeAllSessions, revokeOtherSessions } from "./sessions";

/**
 * Two-factor authentication: TOTP (RFC 6238, 30 s steps, 6 digits, SHA-1 as every authenticator app
 * expects) plus ten single-use backup codes. The TOTP secret is stored encrypted (AES-256-GCM with
 * ctx.keys.secrets); backup codes only as keyed hashes (ctx.keys.codes).
 *
 * A secret with `totpEnabledAt` null is a pending setup: it becomes active only once the user proves
 * they hold it with a valid code (`enableTwoFactor`).
 */

export const ISSUER = "smsdesk";
export const BACKUP_CODE_COUNT = 10;
/** One step either side: a code from the previous or the next 30 s window is still accepted. */
const STEP_SECONDS = 30;
const BACKUP_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // no 0/O, 1/I: easy to copy from paper

type Otplib = typeof import("otplib");
let otplib: Otplib | null = null;
/** otplib costs about 60 ms to load: only the first 2FA call pays it, not every start. */
const otp = (): Otplib => (otplib ??= require("otplib") as Otplib);

const epochSeconds = (ctx: AppContext) => Math.floor(ctx.now() / 1000);

async function securityRow(ctx: AppContext, userId: string) {
  return await ctx.records.select().from(userSecurity).where(eq(userSecurity.userId, userId)).get();
}

export async function isTwoFactorEnabled(ctx: AppContext, userId: string): Promise<boolean> {
  await ready(ctx.db);
  const row = await securityRow(ctx, userId);
  return Boolean(row?.totpEnabledAt && row.totpSecretEncrypted);
}

/** Which of these users turned two-factor sign-in on, for lists of accounts (a page's worth of ids). */
export async function usersWithTwoFactor(ctx: AppContext, userIds: string[]): Promise<Set<string>> {
  if (!userIds.length) return new Set();
  await ready(ctx.db);
  const rows = await ctx.records
    .select({ id: userSecurity.userId })
    .from(userSecurity)
    .where(and(inArray(userSecurity.userId, userIds), isNotNull(userSecurity.totpEnabledAt)))
    .all();
  return new Set(rows.map((r) => r.id));
}

export async function backupCodesRemaining(ctx: AppContext, userId: string): Promise<number> {
  await ready(ctx.db);
  const row = await ctx.records
    .select({ n: sql<number>`count(*)` })
    .from(backupCodes)
    .where(and(eq(backupCodes.userId, userId), isNull(backupCodes.usedAt)))
    .get();
  return Number(row?.n ?? 0);
}

/** "ABCD EFGH IJKL ..." as authenticator apps show it for typing. */
export const groupInFours = (secret: string) => secret.match(/.{1,4}/g)?.join(" ") ?? secret;

/** Starts (or restarts) a setup: a new secret stored encrypted, not active until `enableTwoFactor`. */
export async function beginTwoFactorSetup(ctx: AppContext, userId: string, email: string) {
  const { generateSecret, generateURI } = otp();
  const secret = generateSecret();
  const sealed = encryptSecret(ctx.keys.secrets, secret);
  await ready(ctx.db);
  await ctx.records
    .insert(userSecurity)
    .values({ userId, totpSecretEncrypted: sealed, totpEnabledAt: null })
    .onConflictDoUpdate({ target: userSecurity.userId, set: { totpSecretEncrypted: sealed, totpEnabledAt: null } })
    .run();
  const uri = generateURI({ issuer: ISSUER, label: email, secret });
  const QRCode = (await import("qrcode")).default;
  const qrCodeUrl = await QRCode.toDataURL(uri, { errorCorrectionLevel: "M", margin: 2, width: 240 });
  return { secret, qrCodeUrl, manualEntryKey: groupInFours(secret), otpauthUrl: uri };
}

/** The pending (not yet enabled) secret, if a setup was started. */
export async function pendingSecret(ctx: AppContext, userId: string): Promise<string | null> {
  await ready(ctx.db);
  return await pendingSecretNow(ctx, userId);
}

async function pendingSecretNow(ctx: AppContext, userId: string): Promise<string | null> {
  const row = await securityRow(ctx, userId);
  if (!row?.totpSecretEncrypted || row.totpEnabledAt) return null;
  return decryptSecret(ctx.keys.secrets, row.totpSecretEncrypted);
}

/**
 * Checks a 6-digit TOTP code against a secret (±1 step), refusing a step already used by this user: the step is
 * spent in user_security (totp_last_step) by one conditional update, so a code works once across every process of
 * an installation and through a restart.
 */
async function checkTotp(ctx: AppContext, userId: string, secret: string, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const result = otp().verifySync({ secret, token: code, epoch: epochSeconds(ctx), epochTolerance: STEP_SECONDS });
  if (!result.valid) return false;
  const step = (result as { timeStep?: number }).timeStep ?? Math.floor(epochSeconds(ctx) / STEP_SECONDS);
  const spent = await ctx.records
    .update(userSecurity)
    .set({ totpLastStep: step })
    .where(and(eq(userSecurity.userId, userId), or(isNull(userSecurity.totpLastStep), lt(userSecurity.totpLastStep, step))))
    .returning({ step: userSecurity.totpLastStep })
    .get();
  return spent !== undefined;
}

const normalizeBackupCode = (code: string) => code.trim().toUpperCase().replace(/[\s-]/g, "");
const hashBackupCode = (ctx: AppContext, userId: string, code: string) =>
  keyedHash(ctx.keys.codes, `backup:${userId}:${normalizeBackupCode(code)}`);

function newBackupCode(): string {
  const bytes = randomBytes(8);
  let out = "";
  for (let i = 0; i < 8; i++) out += BACKUP_ALPHABET[bytes[i]! % BACKUP_ALPHABET.length];
  return `${out.slice(0, 4)}-${out.slice(4)}`;
}

/** Replaces every backup code of the user with 10 new ones; answers them in the clear, once. */
export async function replaceBackupCodes(ctx: AppContext, userId: string): Promise<string[]> {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
  await ctx.withTransaction(async () => {
    await ctx.records.delete(backupCodes).where(eq(backupCodes.userId, userId)).run();
    await ctx.records
      .insert(backupCodes)
      .values(codes.map((code) => ({ id: randomUUID(), userId, codeHash: hashBackupCode(ctx, userId, code) })))
      .run();
  });
  return codes;
}

/** Consumes an unused backup code. Every stored hash is compared (constant time) before deciding. */
async function consumeBackupCode(ctx: AppContext, userId: string, code: string): Promise<boolean> {
  if (!/^[A-Z0-9]{8}$/.test(normalizeBackupCode(code))) return false;
  const candidate = hashBackupCode(ctx, userId, code);
  const rows = await ctx.records
    .select({ id: backupCodes.id, codeHash: backupCodes.codeHash })
    .from(backupCodes)
    .where(and(eq(backupCodes.userId, userId), isNull(backupCodes.usedAt)))
    .all();
  let matchId: string | null = null;
  for (const row of rows) if (safeEqual(row.codeHash, candidate)) matchId = row.id;
  if (!matchId) return false;
  // The `used_at IS NULL` condition makes a race between two requests with the same code consume it once.
  const consumed = await ctx.records
    .update(backupCodes)
    .set({ usedAt: new Date(ctx.now()) })
    .where(and(eq(backupCodes.id, matchId), isNull(backupCodes.usedAt)))
    .returning({ id: backupCodes.id })
    .all();
  return consumed.length === 1;
}

/**
 * The second factor of an account with 2FA on: a current TOTP code (±1 step, each step usable once)
 * or an unused backup code ("ABCD-EFGH", dash optional), which is consumed. False when 2FA is off.
 */
export async function verifySecondFactor(ctx: AppContext, userId: string, code: string): Promise<boolean> {
  await ready(ctx.db);
  return await verifyNow(ctx, userId, code);
}

async function verifyNow(ctx: AppContext, userId: string, code: string): Promise<boolean> {
  const row = await securityRow(ctx, userId);
  if (!row?.totpEnabledAt || !row.totpSecretEncrypted) return false;
  const trimmed = code.trim();
  if (/^\d{6}$/.test(trimmed)) return await checkTotp(ctx, userId, decryptSecret(ctx.keys.secrets, row.totpSecretEncrypted), trimmed);
  return await consumeBackupCode(ctx, userId, trimmed);
}

/**
 * Which sessions survive a change of the account's second factor: the one the user made it from (their other
 * sessions end), or none (`null`, the default: an administrator's reset, where every session ends).
 */
export type KeepSession = string | null;

async function endSessions(ctx: AppContext, userId: string, keep: KeepSession) {
  if (keep) await revokeOtherSessions(ctx, userId, keep);
  else await revokeAllSessions(ctx, userId);
}

/**
 * Activates the pending secret once `code` proves the user holds it; answers the backup codes, or null.
 * Sessions other than `keep` end: one opened before 2FA was on must not outlive it.
 */
export async function enableTwoFactor(ctx: AppContext, userId: string, code: string, keep: KeepSession = null): Promise<string[] | null> {
  return ctx.withTransaction(async () => {
    const secret = await pendingSecretNow(ctx, userId);
    if (!secret || !(await checkTotp(ctx, userId, secret, code.trim()))) return null;
    await ctx.records.update(userSecurity).set({ totpEnabledAt: new Date(ctx.now()) }).where(eq(userSecurity.userId, userId)).run();
    const codes = await replaceBackupCodes(ctx, userId);
    await endSessions(ctx, userId, keep);
    return codes;
  });
}

/** Turns 2FA off: the secret and every backup code are deleted, and sessions other than `keep` end. The admin portal calls this too. */
export async function resetTwoFactor(ctx: AppContext, userId: string, keep: KeepSession = null): Promise<void> {
  await ctx.withTransaction(async () => {
    await ctx.records
      .update(userSecurity)
      .set({ totpSecretEncrypted: null, totpEnabledAt: null, failedCodes: 0, codesLockedUntil: null, totpLastStep: null })
      .where(eq(userSecurity.userId, userId))
      .run();
    await ctx.records.delete(backupCodes).where(eq(backupCodes.userId, userId)).run();
    await clearPending(ctx, userId);
    await endSessions(ctx, userId, keep);
  });
}

// ---------------------------------------------------------------------------------------------------
// The sign-in step between a correct password (or Google) and the code: a random pending-login token, answered
// once, stored only as a keyed hash in auth_challenges (kind 'login-2fa'), valid 5 minutes and for one sign-in.

export const PENDING_LOGIN_MS = 5 * 60_000;
/**
 * Google sign-in ends in a redirect, so its pending token travels in this httpOnly cookie (only sent to the code
 * step) rather than in a URL where history and logs would keep it. The password sign-in answers it in JSON.
 */
export const PENDING_LOGIN_COOKIE = "smsdesk_pending_2fa";
export const PENDING_LOGIN_COOKIE_PATH = "/api/auth/login/2fa";
/** Wrong codes allowed per pending sign-in; the 5th burns it and the password must be typed again. */
export const MAX_CODE_ATTEMPTS = 5;
/**
 * Wrong codes in a row per account, across sign-ins (a password thief can start as many as they like): the 10th
 * closes the code step of that account for 15 minutes. A right code resets the count.
 */
export const MAX_CODE_FAILURES = 10;
export const CODE_LOCK_MINUTES = 15;

const pendingId = (ctx: AppContext, token: string) => keyedHash(ctx.keys.codes, `login-2fa:${token}`);

/** Records that `userId` just passed the first step; answers the token the code step must carry. */
export async function startPendingLogin(ctx: AppContext, userId: string): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await ready(ctx.db);
  const now = ctx.now();
  await ctx.records.delete(authChallenges).where(lt(authChallenges.expiresAt, new Date(now))).run();
  await ctx.records
    .insert(authChallenges)
    .values({ id: pendingId(ctx, token), kind: "login-2fa", userId, challenge: "", expiresAt: new Date(now + PENDING_LOGIN_MS) })
    .run();
  return token;
}

/** Ends every pending sign-in of the account (2FA turned off, a burned step, credentials replaced). */
export async function clearPendingLogin(ctx: AppContext, userId: string): Promise<void> {
  await ready(ctx.db);
  await clearPending(ctx, userId);
}

async function clearPending(ctx: AppContext, userId: string) {
  await ctx.records.delete(authChallenges).where(and(eq(authChallenges.kind, "login-2fa"), eq(authChallenges.userId, userId))).run();
}

export type CodeCheck = { ok: boolean; lockedUntil?: number };

/**
 * A second-factor code offered to sign in (or to confirm who you are), counted against the account: a wrong one
 * adds to the count, the 10th in a row locks the code step for 15 minutes (and ends pending sign-ins).
 */
export async function checkAccountCode(ctx: AppContext, userId: string, code: string): Promise<CodeCheck> {
  await ready(ctx.db);
  return await checkAccountNow(ctx, userId, code);
}

async function checkAccountNow(ctx: AppContext, userId: string, code: string): Promise<CodeCheck> {
  const now = ctx.now();
  const lockedUntil = (await securityRow(ctx, userId))?.codesLockedUntil?.getTime() ?? 0;
  if (lockedUntil > now) return { ok: false, lockedUntil };
  if (await verifyNow(ctx, userId, code)) {
    await ctx.records.update(userSecurity).set({ failedCodes: 0, codesLockedUntil: null }).where(eq(userSecurity.userId, userId)).run();
    return { ok: true };
  }
  // One statement, so parallel wrong guesses each count.
  const counted = await ctx.records
    .update(userSecurity)
    .set({ failedCodes: sql`${userSecurity.failedCodes} + 1` })
    .where(eq(userSecurity.userId, userId))
    .returning({ failedCodes: userSecurity.failedCodes })
    .get();
  if ((counted?.failedCodes ?? 0) >= MAX_CODE_FAILURES) {
    const until = now + CODE_LOCK_MINUTES * 60_000;
    await ctx.records.update(userSecurity).set({ failedCodes: 0, codesLockedUntil: new Date(until) }).where(eq(userSecurity.userId, userId)).run();
    await clearPending(ctx, userId);
    ctx.log(`two-factor code step locked for user ${userId} after ${MAX_CODE_FAILURES} wrong codes`);
    return { ok: false, lockedUntil: until };
  }
  return { ok: false };
}

/** The answer for a locked code step: 429 with the wait. */
export function codesLockedError(lockedUntil: number, now: number) {
  const seconds = Math.max(1, Math.ceil((lockedUntil - now) / 1000));
  const minutes = Math.ceil(seconds / 60);
  return tooManyRequests(`Too many wrong verification codes. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, seconds);
}

export type SecondStepResult =
  | { outcome: "ok"; userId: string }
  | { outcome: "expired" }
  | { outcome: "invalid" }
  | { outcome: "locked"; lockedUntil: number };

/**
 * The code step of a sign-in: "expired" without a live pending token (a userId or a stolen code alone is
 * useless), "invalid" for a wrong code (the 5th burns the token), "locked" while the account's code step is
 * closed, "ok" once per token.
 */
export async function completeSecondStep(ctx: AppContext, pendingToken: string, code: string): Promise<SecondStepResult> {
  const id = pendingId(ctx, pendingToken);
  await ready(ctx.db);
  const row = await ctx.records.select().from(authChallenges).where(and(eq(authChallenges.id, id), eq(authChallenges.kind, "login-2fa"))).get();
  if (!row?.userId || row.expiresAt.getTime() <= ctx.now()) {
    if (row) await ctx.records.delete(authChallenges).where(eq(authChallenges.id, id)).run();
    return { outcome: "expired" };
  }
  const check = await checkAccountNow(ctx, row.userId, code);
  if (check.lockedUntil) return { outcome: "locked", lockedUntil: check.lockedUntil };
  if (!check.ok) {
    const counted = await ctx.records
      .update(authChallenges)
      .set({ attempts: sql`${authChallenges.attempts} + 1` })
      .where(eq(authChallenges.id, id))
      .returning({ attempts: authChallenges.attempts })
      .get();
    if (!counted || counted.attempts >= MAX_CODE_ATTEMPTS) await ctx.records.delete(authChallenges).where(eq(authChallenges.id, id)).run();
    return { outcome: "invalid" };
  }
  // Claimed by deleting it: of two requests racing with the same token, one signs in.
  const claimed = await ctx.records.delete(authChallenges).where(eq(authChallenges.id, id)).returning({ id: authChallenges.id }).all();
  return claimed.length === 1 ? { outcome: "ok", userId: row.userId } : { outcome: "expired" };
}
