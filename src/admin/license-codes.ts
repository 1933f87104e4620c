import { randomBytes } from "node:crypto";
import { and, count, desc, eq, isNotNull, isNull, like, or, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { licenseCodes, plans, users } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { findPlan, formatLicenseCode, normalizeLicenseCode } from "../licenses/licenses";
import type { Page } from "./paging";

/** 32 characters without the look-alikes 0/O and 1/I: a byte's low 5 bits pick one without bias. */
export const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 16;
export const MAX_CODES_PER_BATCH = 500;

export function newLicenseCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  let code = "";
  for (const b of bytes) code += CODE_ALPHABET[b & 31];
  return code;
}

export function generateLicenseCodes(ctx: AppContext, adminId: string, planId: string, durationDays: number, howMany: number) {
  if (!Number.isInteger(howMany) || howMany < 1 || howMany > MAX_CODES_PER_BATCH) {
    throw badRequest(`Choose between 1 and ${MAX_CODES_PER_BATCH} codes`);
  }
  if (!Number.isInteger(durationDays) || durationDays < 1 || durationDays > 3650) {
    throw badRequest("The duration must be between 1 and 3650 days");
  }
  const plan = findPlan(ctx, planId);
  if (!plan) throw badRequest("Unknown plan");
  const codes: string[] = [];
  ctx.db.transaction((tx) => {
    while (codes.length < howMany) {
      const code = newLicenseCode();
      const inserted = tx
        .insert(licenseCodes)
        .values({ code, planId, durationDays, createdBy: adminId, createdAt: new Date(ctx.now()) })
        .onConflictDoNothing()
        .returning({ code: licenseCodes.code })
        .get();
      if (inserted) codes.push(code);
    }
  });
  return { plan, durationDays, codes: codes.map(formatLicenseCode) };
}

export type CodeStatus = "active" | "redeemed" | "revoked";

export function listLicenseCodes(ctx: AppContext, opts: { page: number; pageSize: number; status?: CodeStatus; search?: string }): Page<unknown> {
  const redeemer = alias(users, "redeemer");
  const conditions: SQL[] = [];
  if (opts.status === "revoked") conditions.push(isNotNull(licenseCodes.revokedAt));
  if (opts.status === "redeemed") conditions.push(and(isNull(licenseCodes.revokedAt), isNotNull(licenseCodes.redeemedAt))!);
  if (opts.status === "active") conditions.push(and(isNull(licenseCodes.revokedAt), isNull(licenseCodes.redeemedAt))!);
  const search = opts.search?.trim();
  if (search) {
    const code = normalizeLicenseCode(search);
    conditions.push(or(like(licenseCodes.code, `%${code || search}%`), like(redeemer.email, `%${search.toLowerCase()}%`))!);
  }
  const where = conditions.length ? and(...conditions) : undefined;
  const total = ctx.db
    .select({ n: count() })
    .from(licenseCodes)
    .leftJoin(redeemer, eq(redeemer.id, licenseCodes.redeemedBy))
    .where(where)
    .get()!.n;
  const rows = ctx.db
    .select({ code: licenseCodes, planName: plans.name, redeemerEmail: redeemer.email })
    .from(licenseCodes)
    .innerJoin(plans, eq(plans.id, licenseCodes.planId))
    .leftJoin(redeemer, eq(redeemer.id, licenseCodes.redeemedBy))
    .where(where)
    .orderBy(desc(licenseCodes.createdAt), licenseCodes.code)
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize)
    .all();
  return {
    data: rows.map(({ code: c, planName, redeemerEmail }) => ({
      code: formatLicenseCode(c.code),
      planId: c.planId,
      planName,
      durationDays: c.durationDays,
      status: (c.revokedAt ? "revoked" : c.redeemedAt ? "redeemed" : "active") as CodeStatus,
      createdAt: c.createdAt.toISOString(),
      revokedAt: c.revokedAt?.toISOString() ?? null,
      redeemedAt: c.redeemedAt?.toISOString() ?? null,
      redeemedBy: c.redeemedBy ? { id: c.redeemedBy, email: redeemerEmail } : null,
    })),
    total,
    page: opts.page,
    pageSize: opts.pageSize,
  };
}

/** Revoking stops a code from being redeemed; a license already granted by it stays. */
export function revokeLicenseCode(ctx: AppContext, input: string) {
  const code = normalizeLicenseCode(input);
  const row = ctx.db.select().from(licenseCodes).where(eq(licenseCodes.code, code)).get();
  if (!row) throw notFound("License code not found");
  if (row.redeemedAt) throw badRequest("This license code has already been redeemed and cannot be revoked");
  if (!row.revokedAt) ctx.db.update(licenseCodes).set({ revokedAt: new Date(ctx.now()) }).where(eq(licenseCodes.code, code)).run();
  return { code: formatLicenseCode(code), status: "revoked" as const };
}
