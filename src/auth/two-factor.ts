import { randomBytes, randomUUID } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { backupCodes, userSecurity } from "../../db/schema";
import type { AppContext } from "../context";
import { decryptSecret, encryptSecret } from "../secrets/encryption";
import { keyedHash, safeEqual } from "./secure-compare";

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

/** Replay protection: the last accepted TOTP time step per user (a code works once). */
const lastUsedStep = new WeakMap<AppContext, Map<string, number>>();
const usedSteps = (ctx: AppContext) => {
  let map = lastUsedStep.get(ctx);
  if (!map) lastUsedStep.set(ctx, (map = new Map()));
  return map;
};

const epochSeconds = (ctx: AppContext) => Math.floor(ctx.now() / 1000);

function securityRow(ctx: AppContext, userId: string) {
  return ctx.db.select().from(userSecurity).where(eq(userSecurity.userId, userId)).get();
}

export function isTwoFactorEnabled(ctx: AppContext, userId: string): boolean {
  const row = securityRow(ctx, userId);
  return Boolean(row?.totpEnabledAt && row.totpSecretEncrypted);
}

export function backupCodesRemaining(ctx: AppContext, userId: string): number {
  const row = ctx.db
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
  ctx.db
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
export function pendingSecret(ctx: AppContext, userId: string): string | null {
  const row = securityRow(ctx, userId);
  if (!row?.totpSecretEncrypted || row.totpEnabledAt) return null;
  return decryptSecret(ctx.keys.secrets, row.totpSecretEncrypted);
}

/** Checks a 6-digit TOTP code against a secret (±1 step), refusing a step already used by this user. */
function checkTotp(ctx: AppContext, userId: string, secret: string, code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const result = otp().verifySync({ secret, token: code, epoch: epochSeconds(ctx), epochTolerance: STEP_SECONDS });
  if (!result.valid) return false;
  const step = (result as { timeStep?: number }).timeStep ?? Math.floor(epochSeconds(ctx) / STEP_SECONDS);
  const used = usedSteps(ctx);
  if (step <= (used.get(userId) ?? -1)) return false;
  used.set(userId, step);
  return true;
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
export function replaceBackupCodes(ctx: AppContext, userId: string): string[] {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
  ctx.db.transaction((tx) => {
    tx.delete(backupCodes).where(eq(backupCodes.userId, userId)).run();
    tx.insert(backupCodes)
      .values(codes.map((code) => ({ id: randomUUID(), userId, codeHash: hashBackupCode(ctx, userId, code) })))
      .run();
  });
  return codes;
}

/** Consumes an unused backup code. Every stored hash is compared (constant time) before deciding. */
function consumeBackupCode(ctx: AppContext, userId: string, code: string): boolean {
  if (!/^[A-Z0-9]{8}$/.test(normalizeBackupCode(code))) return false;
  const candidate = hashBackupCode(ctx, userId, code);
  const rows = ctx.db
    .select({ id: backupCodes.id, codeHash: backupCodes.codeHash })
    .from(backupCodes)
    .where(and(eq(backupCodes.userId, userId), isNull(backupCodes.usedAt)))
    .all();
  let matchId: string | null = null;
  for (const row of rows) if (safeEqual(row.codeHash, candidate)) matchId = row.id;
  if (!matchId) return false;
  // The `used_at IS NULL` condition makes a race between two requests with the same code consume it once.
  const consumed = ctx.db
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
export function verifySecondFactor(ctx: AppContext, userId: string, code: string): boolean {
  const row = securityRow(ctx, userId);
  if (!row?.totpEnabledAt || !row.totpSecretEncrypted) return false;
  const trimmed = code.trim();
  if (/^\d{6}$/.test(trimmed)) return checkTotp(ctx, userId, decryptSecret(ctx.keys.secrets, row.totpSecretEncrypted), trimmed);
  return consumeBackupCode(ctx, userId, trimmed);
}

/** Activates the pending secret once `code` proves the user holds it; answers the backup codes, or null. */
export function enableTwoFactor(ctx: AppContext, userId: string, code: string): string[] | null {
  const secret = pendingSecret(ctx, userId);
  if (!secret || !checkTotp(ctx, userId, secret, code.trim())) return null;
  ctx.db.update(userSecurity).set({ totpEnabledAt: new Date(ctx.now()) }).where(eq(userSecurity.userId, userId)).run();
  return replaceBackupCodes(ctx, userId);
}

/** Turns 2FA off: the secret and every backup code are deleted. The admin portal calls this too. */
export function resetTwoFactor(ctx: AppContext, userId: string): void {
  ctx.db.transaction((tx) => {
    tx.update(userSecurity).set({ totpSecretEncrypted: null, totpEnabledAt: null }).where(eq(userSecurity.userId, userId)).run();
    tx.delete(backupCodes).where(eq(backupCodes.userId, userId)).run();
  });
  usedSteps(ctx).delete(userId);
  clearPendingLogin(ctx, userId);
}

// ---------------------------------------------------------------------------------------------------
// The sign-in step between a correct password and the code. Kept in memory: it lives 5 minutes, and a
// restart only means typing the password again.

export const PENDING_LOGIN_MS = 5 * 60_000;
/** Wrong codes allowed per password step; then the password must be typed again. */
export const MAX_CODE_ATTEMPTS = 5;

type PendingLogin = { expiresAt: number; attempts: number };
const pendingLogins = new WeakMap<AppContext, Map<string, PendingLogin>>();
const pendingFor = (ctx: AppContext) => {
  let map = pendingLogins.get(ctx);
  if (!map) pendingLogins.set(ctx, (map = new Map()));
  return map;
};

/** Records that `userId` just passed the password step; the code step must follow within 5 minutes. */
export function markPasswordVerified(ctx: AppContext, userId: string): void {
  const map = pendingFor(ctx);
  const now = ctx.now();
  for (const [id, p] of map) if (p.expiresAt <= now) map.delete(id);
  map.set(userId, { expiresAt: now + PENDING_LOGIN_MS, attempts: 0 });
}

export function clearPendingLogin(ctx: AppContext, userId: string): void {
  pendingFor(ctx).delete(userId);
}

export type SecondStepResult = "ok" | "expired" | "invalid";

/**
 * The code step of a sign-in: "expired" without a recent password step for this user (a stolen code
 * alone is useless), "invalid" for a wrong code (after 5 the password step is void), "ok" once.
 */
export function completeSecondStep(ctx: AppContext, userId: string, code: string): SecondStepResult {
  const map = pendingFor(ctx);
  const pending = map.get(userId);
  if (!pending || pending.expiresAt <= ctx.now()) {
    map.delete(userId);
    return "expired";
  }
  if (!verifySecondFactor(ctx, userId, code)) {
    if (++pending.attempts >= MAX_CODE_ATTEMPTS) map.delete(userId);
    return "invalid";
  }
  map.delete(userId);
  return "ok";
}
