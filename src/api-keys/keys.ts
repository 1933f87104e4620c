import { createHash, randomBytes } from "node:crypto";
import { and, count, desc, eq, gt, inArray, isNull, or } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { type CredentialHolder, noticeCredentialMade } from "../auth/session-credentials";
import { forbidden, HttpError, notFound, unauthorized } from "../http/errors";
import { currentLicense } from "../licenses/licenses";
import { NO_LICENSE } from "../licenses/limits";
import { findUserById, holdAccount } from "../users/queries";

/** What a key may do on /api/v1; each route names the one it needs. */
export const API_SCOPES = [
  "contacts:read",
  "contacts:write",
  "messages:send",
  "messages:read",
  "campaigns:read",
  "campaigns:write",
  "segments:read",
  "keywords:read",
  "events:write",
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** The plan feature that sells "API access" (Professional and Enterprise in the seeded plans). */
export const API_FEATURE = "api_access";

const KEY_START = "sk_live_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 32;
const CHECK_CHARS = 6;
/** The visible part kept beside the hash: the fixed start and the first characters of the random part. */
const PREFIX_CHARS = KEY_START.length + 6;
/** Last-used times are written at most this often per key, so a busy key does not write on every call. */
export const LAST_USED_EVERY_MS = 60_000;

function base62(bytes: Uint8Array, length: number): string {
  let out = "";
  for (const b of bytes) {
    // 248 = 4 * 62: rejecting the top bytes keeps every character equally likely.
    if (b < 248) out += BASE62[b % 62];
    if (out.length === length) break;
  }
  return out;
}

/** Six base62 characters of the CRC-32 of the random part: a typo is caught without a database look-up. */
function checksum(random: string): string {
  let n = Bun.hash.crc32(random);
  let out = "";
  for (let i = 0; i < CHECK_CHARS; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function newKey(): string {
  let random = "";
  while (random.length < RANDOM_CHARS) random += base62(randomBytes(64), RANDOM_CHARS - random.length);
  return `${KEY_START}${random}${checksum(random)}`;
}

const hashOf = (key: string) => createHash("sha256").update(key).digest("hex");

/** Whether a string has the shape and checksum of a key this appliance issued. */
export function isWellFormedKey(key: string): boolean {
  if (!key.startsWith(KEY_START) || key.length !== KEY_START.length + RANDOM_CHARS + CHECK_CHARS) return false;
  const body = key.slice(KEY_START.length);
  if (![...body].every((c) => BASE62.includes(c))) return false;
  return checksum(body.slice(0, RANDOM_CHARS)) === body.slice(RANDOM_CHARS);
}

type ApiKeyRow = typeof apiKeys.$inferSelect;

export function apiKeyView(k: ApiKeyRow, now: number) {
  return {
    id: k.id,
    name: k.name,
    service: k.service,
    /** The key as the list shows it: its visible start, the rest masked. */
    maskedKey: `${k.prefix}${"•".repeat(8)}`,
    permissions: k.permissions,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
    status: k.revokedAt !== null ? "revoked" : k.expiresAt !== null && k.expiresAt <= now ? "expired" : "active",
  };
}
export type ApiKeyView = ReturnType<typeof apiKeyView>;

export async function listApiKeys(ctx: AppContext, userId: string): Promise<ApiKeyView[]> {
  await ready(ctx.db);
  const now = ctx.now();
  const rows = await ctx.records.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).all();
  return rows.map((k) => apiKeyView(k, now));
}

export type NewApiKey = { name: string; service?: string; permissions: ApiScope[]; expiresAt?: number | null };

/** 402 unless the account's plan includes API access. */
async function assertPlanHasApi(ctx: AppContext, userId: string) {
  const license = await currentLicense(ctx, userId);
  if (!license) throw new HttpError(402, NO_LICENSE, { feature: API_FEATURE });
  // An administrator without a license of their own runs on the unlimited "admin" plan, which lists no features.
  if (license.plan.id === "admin" || license.plan.features.includes(API_FEATURE)) return;
  throw new HttpError(
    402,
    `Your ${license.plan.name} plan does not include API access. Upgrade to a plan with API access or redeem a license code.`,
    { feature: API_FEATURE },
  );
}

/** Keys neither revoked nor expired per account: each key has its own rate limit, so their number bounds the account's. */
export const MAX_WORKING_KEYS = 25;

/**
 * Creates a key and answers it once, in full (`key`); only its hash and visible start are kept. `beforeCreate` runs
 * (and may refuse) once the key would be made: the route's check that the caller confirmed, so nobody is asked for
 * a password only to be told the plan has no API access. `sessionId` is the session making it: the key ends with
 * it when the owner ends that session by a password change (src/auth/session-credentials.ts), and the owner is
 * told by email where it was made.
 */
export async function createApiKey(
  ctx: AppContext,
  userId: string,
  sessionId: string,
  input: NewApiKey,
  beforeCreate?: () => Promise<void>,
): Promise<ApiKeyView & { key: string }> {
  const now = ctx.now();
  // The plan, the cap and the confirmation (sudo mode, which awaits its records) are read in the transaction that
  // writes the key: two creates at once cannot both pass the cap.
  const { row, key } = await ctx.withTransaction(async () => {
    // On PostgreSQL two transactions count at once: the account's row held first makes the second count after the
    // first's key is written.
    await holdAccount(ctx, userId);
    await assertPlanHasApi(ctx, userId);
    const name = input.name.trim();
    if (!name) throw new HttpError(400, "Please name the key");
    if (input.expiresAt != null && input.expiresAt <= now) throw new HttpError(400, "The expiry must be in the future");
    const working = (await ctx.records
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))))
      .get())!.n;
    if (working >= MAX_WORKING_KEYS)
      throw new HttpError(400, `An account can have at most ${MAX_WORKING_KEYS} working API keys: revoke one you no longer use`);
    await beforeCreate?.();
    const key = newKey();
    const row = await ctx.records
      .insert(apiKeys)
      .values({
        id: Bun.randomUUIDv7(),
        userId,
        name,
        service: input.service?.trim() ?? "",
        prefix: key.slice(0, PREFIX_CHARS),
        keyHash: hashOf(key),
        permissions: [...new Set(input.permissions)],
        createdAt: now,
        expiresAt: input.expiresAt ?? null,
        createdBySession: sessionId,
      })
      .returning()
      .get();
    return { row, key };
  });
  await noticeCredentialMade(ctx, {
    userId,
    sessionId,
    what: "API key",
    details: [
      `API key: ${row.name}${row.service ? ` (${row.service})` : ""}, ${row.prefix}${"•".repeat(8)}`,
      `Permissions: ${row.permissions.join(", ")}`,
      `Expires: ${row.expiresAt === null ? "never" : new Date(row.expiresAt).toISOString()}`,
    ],
    at: now,
  });
  return { ...apiKeyView(row, now), key };
}

async function ownKey(ctx: AppContext, userId: string, id: string): Promise<ApiKeyRow> {
  await ready(ctx.db);
  const row = await ctx.records.select().from(apiKeys).where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id))).get();
  if (!row) throw notFound("API key not found");
  return row;
}

/** Revokes a key for good (kept in the list, marked revoked); revoking it again changes nothing. */
export async function revokeApiKey(ctx: AppContext, userId: string, id: string): Promise<ApiKeyView> {
  await ready(ctx.db);
  const now = ctx.now();
  // Revoked only if it is not yet: the first revocation's time stays, whichever process revokes it again.
  const updated = await ctx.records
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning()
    .get();
  return apiKeyView(updated ?? (await ownKey(ctx, userId, id)), now);
}

/** The ids of the keys not revoked: a restore keeps no other key working in the restored data. */
export async function unrevokedApiKeyIds(ctx: AppContext): Promise<Set<string>> {
  await ready(ctx.db);
  return new Set((await ctx.records.select({ id: apiKeys.id }).from(apiKeys).where(isNull(apiKeys.revokedAt)).all()).map((r) => r.id));
}

/** Revokes every key but those in `alive` (after a restore: a key revoked or deleted since the backup stays dead). */
export async function revokeApiKeysExcept(ctx: AppContext, alive: Set<string>) {
  const doomed = [...(await unrevokedApiKeyIds(ctx))].filter((id) => !alive.has(id));
  await ready(ctx.db);
  for (let i = 0; i < doomed.length; i += 500) await ctx.records.update(apiKeys).set({ revokedAt: ctx.now() }).where(inArray(apiKeys.id, doomed.slice(i, i + 500))).run();
}

/** API keys as credentials their sessions made: revoked with those sessions (src/auth/session-credentials.ts). */
export const apiKeyHolder: CredentialHolder = {
  kind: "api_key",
  async madeBy(ctx, userId, sessionIds) {
    await ready(ctx.db);
    const now = ctx.now();
    const rows = await ctx.records
      .select({ id: apiKeys.id, name: apiKeys.name, sessionId: apiKeys.createdBySession })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.userId, userId),
          inArray(apiKeys.createdBySession, sessionIds),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
        ),
      )
      .orderBy(apiKeys.createdAt, apiKeys.id)
      .all();
    return rows.map((k) => ({ kind: "api_key" as const, id: k.id, name: k.name, sessionId: k.sessionId! }));
  },
  async end(ctx, userId, ids) {
    await ready(ctx.db);
    await ctx.records
      .update(apiKeys)
      .set({ revokedAt: ctx.now() })
      .where(and(eq(apiKeys.userId, userId), inArray(apiKeys.id, ids), isNull(apiKeys.revokedAt)))
      .run();
  },
};

export async function deleteApiKey(ctx: AppContext, userId: string, id: string): Promise<void> {
  await ready(ctx.db);
  const deleted = await ctx.records.delete(apiKeys).where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id))).returning({ id: apiKeys.id }).get();
  if (!deleted) throw notFound("API key not found");
}

export type ApiCaller = { keyId: string; userId: string; permissions: string[] };

/**
 * The caller of a public API request from its `Authorization: Bearer sk_live_...` header: 401 for a missing,
 * mistyped, unknown, revoked or expired key or a disabled account's (each with its own message), and the key's
 * last use noted.
 */
export async function authenticateApiKey(ctx: AppContext, authorization: string | null): Promise<ApiCaller> {
  await ready(ctx.db);
  const key = authorization?.startsWith("Bearer ") ? authorization.slice(7).trim() : "";
  if (!key) throw unauthorized("Send your API key as 'Authorization: Bearer sk_live_...'");
  if (!isWellFormedKey(key)) throw unauthorized("This is not a valid API key (check it was copied whole)");
  const row = await ctx.records.select().from(apiKeys).where(eq(apiKeys.keyHash, hashOf(key))).get();
  if (!row) throw unauthorized("Unknown API key");
  const now = ctx.now();
  if (row.revokedAt !== null) throw unauthorized("This API key has been revoked");
  if (row.expiresAt !== null && row.expiresAt <= now) throw unauthorized("This API key has expired");
  // Disabling an account ends its sessions; its keys are refused as long as it stays disabled.
  if ((await findUserById(ctx, row.userId))?.disabled !== false) throw unauthorized("This API key's account is disabled");
  // The plan is checked at each call, not only when the key was made: a license that ran out ends API access.
  await assertPlanHasApi(ctx, row.userId);
  await ready(ctx.db);
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_EVERY_MS) {
    await ctx.records.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id)).run();
  }
  return { keyId: row.id, userId: row.userId, permissions: row.permissions };
}

/** 403 naming the scope a route needs when the key lacks it. */
export function assertScope(caller: ApiCaller, scope: ApiScope) {
  if (!caller.permissions.includes(scope)) {
    throw forbidden(`This API key lacks the '${scope}' permission. Create a key with it under Integrations.`);
  }
}
