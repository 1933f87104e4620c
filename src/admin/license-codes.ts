import { randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { insertLicenseCodes, listLicenseCodeRows, revokeUnredeemedCode, type CodeStatus } from "../licenses/codes";
import { findPlan, formatLicenseCode, normalizeLicenseCode } from "../licenses/licenses";
import { emailsByIds } from "../users/queries";
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

/** `beforeCreate` runs (and may refuse) once the codes would be made: the route's check that the administrator confirmed. */
export async function generateLicenseCodes(
  ctx: AppContext,
  adminId: string,
  planId: string,
  durationDays: number,
  howMany: number,
  beforeCreate?: () => Promise<void>,
) {
  if (!Number.isInteger(howMany) || howMany < 1 || howMany > MAX_CODES_PER_BATCH) {
    throw badRequest(`Choose between 1 and ${MAX_CODES_PER_BATCH} codes`);
  }
  if (!Number.isInteger(durationDays) || durationDays < 1 || durationDays > 3650) {
    throw badRequest("The duration must be between 1 and 3650 days");
  }
  const plan = await findPlan(ctx, planId);
  if (!plan) throw badRequest("Unknown plan");
  await beforeCreate?.();
  const codes = await insertLicenseCodes(ctx, { planId, durationDays, createdBy: adminId }, howMany, newLicenseCode);
  return { plan, durationDays, codes: codes.map(formatLicenseCode) };
}

export async function listLicenseCodes(
  ctx: AppContext,
  opts: { page: number; pageSize: number; status?: CodeStatus; search?: string },
): Promise<Page<unknown>> {
  const search = opts.search?.trim();
  const { rows, total } = await listLicenseCodeRows(ctx, {
    ...opts,
    search: search ? { code: normalizeLicenseCode(search) || search, email: search.toLowerCase() } : undefined,
  });
  const emails = await emailsByIds(ctx, rows.flatMap((r) => (r.code.redeemedBy ? [r.code.redeemedBy] : [])));
  return {
    data: rows.map(({ code: c, planName }) => ({
      code: formatLicenseCode(c.code),
      planId: c.planId,
      planName,
      durationDays: c.durationDays,
      status: (c.revokedAt ? "revoked" : c.redeemedAt ? "redeemed" : "active") as CodeStatus,
      createdAt: c.createdAt.toISOString(),
      revokedAt: c.revokedAt?.toISOString() ?? null,
      redeemedAt: c.redeemedAt?.toISOString() ?? null,
      redeemedBy: c.redeemedBy ? { id: c.redeemedBy, email: emails.get(c.redeemedBy) ?? null } : null,
    })),
    total,
    page: opts.page,
    pageSize: opts.pageSize,
  };
}

/** Revoking stops a code from being redeemed; a license already granted by it stays. */
export async function revokeLicenseCode(ctx: AppContext, input: string) {
  const code = normalizeLicenseCode(input);
  const outcome = await revokeUnredeemedCode(ctx, code);
  if (outcome === "missing") throw notFound("License code not found");
  if (outcome === "redeemed") throw badRequest("This license code has already been redeemed and cannot be revoked");
  return { code: formatLicenseCode(code), status: "revoked" as const };
}
