import { and, count, desc, eq, inArray, isNotNull, isNull, like, or, type SQL } from "drizzle-orm";
import { licenseCodes, plans } from "../../db/schema";
import type { AppContext } from "../context";
import { userIdsWithEmailLike } from "../users/queries";

/**
 * The license_codes table as the admin portal manages it (src/admin/license-codes.ts makes the codes and the
 * views); redeeming a code is in licenses.ts.
 */

export type LicenseCodeRow = typeof licenseCodes.$inferSelect;
export type CodeStatus = "active" | "redeemed" | "revoked";

/** Stores `howMany` new codes in one transaction; a code that collides with an existing one is drawn again. */
export function insertLicenseCodes(
  ctx: AppContext,
  fields: { planId: string; durationDays: number; createdBy: string },
  howMany: number,
  newCode: () => string,
): string[] {
  const codes: string[] = [];
  ctx.db.transaction((tx) => {
    while (codes.length < howMany) {
      const code = newCode();
      const inserted = tx
        .insert(licenseCodes)
        .values({ code, ...fields, createdAt: new Date(ctx.now()) })
        .onConflictDoNothing()
        .returning({ code: licenseCodes.code })
        .get();
      if (inserted) codes.push(code);
    }
  });
  return codes;
}

/**
 * One page of codes, newest first, with their plan's name. `search` matches part of the code or part of the
 * redeemer's email.
 */
export function listLicenseCodeRows(
  ctx: AppContext,
  opts: { page: number; pageSize: number; status?: CodeStatus; search?: { code: string; email: string } },
) {
  const conditions: SQL[] = [];
  if (opts.status === "revoked") conditions.push(isNotNull(licenseCodes.revokedAt));
  if (opts.status === "redeemed") conditions.push(and(isNull(licenseCodes.revokedAt), isNotNull(licenseCodes.redeemedAt))!);
  if (opts.status === "active") conditions.push(and(isNull(licenseCodes.revokedAt), isNull(licenseCodes.redeemedAt))!);
  if (opts.search) {
    const { code, email } = opts.search;
    conditions.push(
      or(like(licenseCodes.code, `%${code}%`), inArray(licenseCodes.redeemedBy, userIdsWithEmailLike(ctx, `%${email}%`)))!,
    );
  }
  const where = conditions.length ? and(...conditions) : undefined;
  const total = ctx.db.select({ n: count() }).from(licenseCodes).where(where).get()!.n;
  const rows = ctx.db
    .select({ code: licenseCodes, planName: plans.name })
    .from(licenseCodes)
    .innerJoin(plans, eq(plans.id, licenseCodes.planId))
    .where(where)
    .orderBy(desc(licenseCodes.createdAt), licenseCodes.code)
    .limit(opts.pageSize)
    .offset((opts.page - 1) * opts.pageSize)
    .all();
  return { rows, total };
}

export function findLicenseCode(ctx: AppContext, code: string): LicenseCodeRow | undefined {
  return ctx.db.select().from(licenseCodes).where(eq(licenseCodes.code, code)).get();
}

export function markLicenseCodeRevoked(ctx: AppContext, code: string): void {
  ctx.db
    .update(licenseCodes)
    .set({ revokedAt: new Date(ctx.now()) })
    .where(eq(licenseCodes.code, code))
    .run();
}

/** Codes neither redeemed nor revoked. */
export function countActiveLicenseCodes(ctx: AppContext): number {
  return ctx.db
    .select({ n: count() })
    .from(licenseCodes)
    .where(and(isNull(licenseCodes.redeemedAt), isNull(licenseCodes.revokedAt)))
    .get()!.n;
}
