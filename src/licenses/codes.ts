import { and, count, desc, eq, inArray, isNotNull, isNull, like, or, type SQL } from "drizzle-orm";
import { licenseCodes, plans } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { userIdsWithEmailLike } from "../users/queries";

/**
 * The license_codes table as the admin portal manages it (src/admin/license-codes.ts makes the codes and the
 * views); redeeming a code is in licenses.ts.
 */

export type CodeStatus = "active" | "redeemed" | "revoked";

/** Stores `howMany` new codes in one transaction; a code that collides with an existing one is drawn again. */
export async function insertLicenseCodes(
  ctx: AppContext,
  fields: { planId: string; durationDays: number; createdBy: string },
  howMany: number,
  newCode: () => string,
): Promise<string[]> {
  const codes: string[] = [];
  await ctx.withTransaction(async () => {
    while (codes.length < howMany) {
      const code = newCode();
      const inserted = await ctx.records
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
export async function listLicenseCodeRows(
  ctx: AppContext,
  opts: { page: number; pageSize: number; status?: CodeStatus; search?: { code: string; email: string } },
) {
  await ready(ctx.db);
  const conditions: SQL[] = [];
  if (opts.status === "revoked") conditions.push(isNotNull(licenseCodes.revokedAt));
  if (opts.status === "redeemed") conditions.push(and(isNull(licenseCodes.revokedAt), isNotNull(licenseCodes.redeemedAt))!);
  if (opts.status === "active") conditions.push(and(isNull(licenseCodes.revokedAt), isNull(licenseCodes.redeemedAt))!);
  if (opts.search) {
    const { code, email } = opts.search;
    conditions.push(
      or(like(licenseCodes.code, `%${code}%`), inArray(licenseCodes.redeemedBy, userIdsWithEmailLike(`%${email}%`)))!,
    );
  }
  const where = conditions.length ? and(...conditions) : undefined;
  const total = (await ctx.records.select({ n: count() }).from(licenseCodes).where(where).get())!.n;
  const rows = await ctx.records
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

/**
 * Revokes a code not redeemed: "revoked" (also when it was already, keeping the first revocation's time),
 * "redeemed" when a redemption came first, "missing" for an unknown code. The update is conditional, so a
 * redemption running at the same time (licenses.ts, itself conditional on the code being neither) and the
 * revocation cannot both win.
 */
export async function revokeUnredeemedCode(ctx: AppContext, code: string): Promise<"revoked" | "redeemed" | "missing"> {
  await ready(ctx.db);
  const revoked = await ctx.records
    .update(licenseCodes)
    .set({ revokedAt: new Date(ctx.now()) })
    .where(and(eq(licenseCodes.code, code), isNull(licenseCodes.redeemedAt), isNull(licenseCodes.revokedAt)))
    .returning({ code: licenseCodes.code })
    .get();
  if (revoked) return "revoked";
  const row = await ctx.records.select().from(licenseCodes).where(eq(licenseCodes.code, code)).get();
  return !row ? "missing" : row.redeemedAt ? "redeemed" : "revoked";
}

/** Codes neither redeemed nor revoked. */
export async function countActiveLicenseCodes(ctx: AppContext): Promise<number> {
  await ready(ctx.db);
  const row = await ctx.records
    .select({ n: count() })
    .from(licenseCodes)
    .where(and(isNull(licenseCodes.redeemedAt), isNull(licenseCodes.revokedAt)))
    .get();
  return row!.n;
}
