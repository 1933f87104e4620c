import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { licenseCodes, licenses, plans } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest, HttpError } from "../http/errors";
import { findUserById, holdAccount, type User } from "../users/queries";

export type Plan = typeof plans.$inferSelect;
export type LicenseRow = typeof licenses.$inferSelect;

export const TRIAL_DAYS = 14;
export const TRIAL_PLAN_ID = "starter";
const DAY_MS = 86_400_000;

/** An administrator without a license of their own is never limited. */
const ADMIN_PLAN: Plan = {
  id: "admin",
  name: "Administrator",
  price: 0,
  monthlyContacts: -1,
  monthlyMessages: -1,
  phoneNumbers: -1,
  features: [],
  sortOrder: 0,
  updatedAt: new Date(0),
};

export type PlanView = ReturnType<typeof planView>;

export function planView(plan: Plan) {
  return {
    id: plan.id,
    name: plan.name,
    price: plan.price,
    monthlyContacts: plan.monthlyContacts,
    monthlyMessages: plan.monthlyMessages,
    phoneNumbers: plan.phoneNumbers,
    features: plan.features,
  };
}

export async function listPlans(ctx: AppContext): Promise<Plan[]> {
  await ready(ctx.db);
  return ctx.records.select().from(plans).orderBy(asc(plans.sortOrder), asc(plans.price)).all();
}

export async function findPlan(ctx: AppContext, id: string): Promise<Plan | undefined> {
  await ready(ctx.db);
  return ctx.records.select().from(plans).where(eq(plans.id, id)).get();
}

/** "abcd-efgh ijkl" → "ABCDEFGHIJKL": how codes are stored and compared. */
export function normalizeLicenseCode(input: string | null | undefined): string {
  return (input ?? "").trim().toUpperCase().replace(/[-\s]/g, "");
}

/** "ABCDEFGHJKLMNPQR" → "ABCD-EFGH-JKLM-NPQR", as codes are shown and typed. */
export function formatLicenseCode(code: string): string {
  return code.match(/.{1,4}/g)?.join("-") ?? code;
}

/** The 14-day Starter trial every new account gets. */
export async function startTrial(ctx: AppContext, userId: string, from = new Date(ctx.now())): Promise<LicenseRow> {
  await ready(ctx.db);
  return insertTrial(ctx, userId, from);
}

/**
 * The account's one trial (licenses_one_trial_idx, migration 0077): started by one INSERT ... ON CONFLICT DO NOTHING,
 * so two processes starting it at once make one; answers the trial the account has.
 */
async function insertTrial(ctx: AppContext, userId: string, from: Date): Promise<LicenseRow> {
  const made = await ctx.records.insert(licenses).values(trialOf(userId, from)).onConflictDoNothing().returning().get();
  return made ?? (await ctx.records.select().from(licenses).where(and(eq(licenses.userId, userId), eq(licenses.source, "trial"))).get())!;
}

const trialOf = (userId: string, from: Date) => ({
  id: crypto.randomUUID(),
  userId,
  planId: TRIAL_PLAN_ID,
  source: "trial" as const,
  startsAt: from,
  expiresAt: new Date(from.getTime() + TRIAL_DAYS * DAY_MS),
});

export type CurrentLicense = {
  id: string;
  plan: Plan;
  source: "trial" | "code" | "admin";
  code: string | null;
  startsAt: Date;
  expiresAt: Date | null;
};

// Prepared once: read by every plan check (usageFor) and for each new number that texts in.
const licensesOf = preparedPerDb((db: RecordsDb) =>
  db
    .select({ license: licenses, plan: plans })
    .from(licenses)
    .innerJoin(plans, eq(plans.id, licenses.planId))
    .where(eq(licenses.userId, sql.placeholder("userId")))
    .prepare(),
);

/**
 * The license in force now, or null when none is (a trial that ran out). Among several in force, a paid
 * one beats the trial, then the higher plan, then the one that lasts longer. An account from before
 * licenses existed gets its trial from its creation date; an administrator without a license is unlimited.
 */
export async function currentLicense(ctx: AppContext, userOrId: User | string): Promise<CurrentLicense | null> {
  const user = typeof userOrId === "string" ? await findUserById(ctx, userOrId) : userOrId;
  if (!user) return null;
  await ready(ctx.db);
  const now = ctx.now();
  let rows = await licensesOf(ctx.records).all({ userId: user.id });
  if (rows.length === 0 && user.role !== "admin") {
    // The lazy trial: made once however many processes find none (insertTrial), then read as any license.
    await insertTrial(ctx, user.id, user.createdAt);
    rows = await licensesOf(ctx.records).all({ userId: user.id });
  }
  rows = rows.filter((r) => r.license.startsAt.getTime() <= now && (!r.license.expiresAt || r.license.expiresAt.getTime() > now));
  rows.sort(
    (a, b) =>
      Number(a.license.source === "trial") - Number(b.license.source === "trial") ||
      b.plan.sortOrder - a.plan.sortOrder ||
      (b.license.expiresAt?.getTime() ?? Infinity) - (a.license.expiresAt?.getTime() ?? Infinity),
  );
  const best = rows[0];
  if (best) {
    const { license, plan } = best;
    return { id: license.id, plan, source: license.source, code: license.code, startsAt: license.startsAt, expiresAt: license.expiresAt };
  }
  if (user.role === "admin") {
    return { id: `admin-${user.id}`, plan: ADMIN_PLAN, source: "admin", code: null, startsAt: user.createdAt, expiresAt: null };
  }
  return null;
}

export function licenseView(license: CurrentLicense | null) {
  if (!license) return null;
  return {
    id: license.id,
    plan: planView(license.plan),
    source: license.source,
    startsAt: license.startsAt.toISOString(),
    expiresAt: license.expiresAt?.toISOString() ?? null,
  };
}

export const INVALID_CODE = "Please enter a valid license code";
export const UNKNOWN_CODE = "This license code is not valid. Please check the code and try again.";
export const REVOKED_CODE = "This license code has been revoked and can no longer be redeemed.";
export const USED_CODE = "This license code has already been redeemed.";

/**
 * Redeems a code for a user: the plan runs for the code's duration from now, or from the end of the
 * user's paid license of the same plan that is in force (so a second code extends the first).
 */
export async function redeemLicenseCode(ctx: AppContext, userId: string, input: string | null | undefined) {
  const code = normalizeLicenseCode(input);
  if (!code) throw badRequest(INVALID_CODE);
  if (!/^[A-Z0-9]{1,64}$/.test(code)) throw badRequest(UNKNOWN_CODE);
  return ctx.withTransaction(async () => {
    // The account's licenses are read below to queue this one after them: held first, so that two codes redeemed at
    // once on two processes queue one after the other instead of starting together.
    await holdAccount(ctx, userId);
    const row = await ctx.records.select().from(licenseCodes).where(eq(licenseCodes.code, code)).get();
    if (!row) throw badRequest(UNKNOWN_CODE);
    if (row.revokedAt) throw badRequest(REVOKED_CODE);
    if (row.redeemedAt) throw badRequest(USED_CODE);
    const plan = await ctx.records.select().from(plans).where(eq(plans.id, row.planId)).get();
    if (!plan) throw new HttpError(400, UNKNOWN_CODE);

    const now = ctx.now();
    // Paid licenses of this plan in force or queued: the new period starts where the last of them ends.
    const ends = (
      await ctx.records
        .select()
        .from(licenses)
        .where(and(eq(licenses.userId, userId), eq(licenses.planId, plan.id), ne(licenses.source, "trial")))
        .all()
    )
      .filter((l) => l.expiresAt && l.expiresAt.getTime() > now)
      .map((l) => l.expiresAt!.getTime());
    const startsAt = new Date(Math.max(now, ...ends));
    const expiresAt = new Date(startsAt.getTime() + row.durationDays * DAY_MS);

    const claimed = await ctx.records
      .update(licenseCodes)
      .set({ redeemedBy: userId, redeemedAt: new Date(now) })
      .where(and(eq(licenseCodes.code, code), isNull(licenseCodes.redeemedAt), isNull(licenseCodes.revokedAt)))
      .returning({ code: licenseCodes.code })
      .get();
    if (!claimed) throw badRequest(USED_CODE);
    await ctx.records
      .insert(licenses)
      .values({ id: crypto.randomUUID(), userId, planId: plan.id, source: "code", code, startsAt, expiresAt })
      .run();
    return { plan, planName: plan.name, startsAt, expiresAt };
  });
}

/** An administrator grants a plan directly (source 'admin'), from now for a number of days. */
export async function grantLicense(ctx: AppContext, userId: string, planId: string, durationDays: number) {
  await ready(ctx.db);
  const startsAt = new Date(ctx.now());
  return ctx.records
    .insert(licenses)
    .values({
      id: crypto.randomUUID(),
      userId,
      planId,
      source: "admin",
      startsAt,
      expiresAt: new Date(startsAt.getTime() + durationDays * DAY_MS),
    })
    .returning()
    .get();
}

/**
 * What sign-up does about licenses, in one transaction: the trial always, then the code if one was typed. A bad
 * code never blocks the account (its redemption rolls back alone); the answer says why it was not redeemed.
 */
export async function licenseAtSignUp(ctx: AppContext, userId: string, licenseCode: string | null | undefined) {
  return ctx.withTransaction(async () => {
    await insertTrial(ctx, userId, new Date(ctx.now()));
    if (!normalizeLicenseCode(licenseCode)) return { licenseRedeemed: false, licensePlan: null };
    try {
      const { planName } = await redeemLicenseCode(ctx, userId, licenseCode);
      return { licenseRedeemed: true, licensePlan: planName };
    } catch (err) {
      const licenseError = err instanceof HttpError && err.status < 500 ? err.message : "Failed to redeem license code";
      return { licenseRedeemed: false, licensePlan: null, licenseError };
    }
  });
}
