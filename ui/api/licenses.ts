/** Plans, the account's license and usage, and redeeming a code: /api/license/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type License = Routes["api"]["license"];

export type Plan = Ok<License["plans"]["get"]>["data"][number];
export type CurrentLicense = NonNullable<Ok<License["current"]["get"]>["data"]>;
export type Usage = Ok<License["usage"]["get"]>["data"];
export type RedeemAnswer = { success: boolean; data: { planName: string; expiresAt: string } };

export const usePlans = () => useApi<Ok<License["plans"]["get"]>>("/api/license/plans");

export const useCurrentLicense = () => useApi<Ok<License["current"]["get"]>>("/api/license/current");

export const useUsage = () => useApi<Ok<License["usage"]["get"]>>("/api/license/usage");

export const redeemLicenseCode = (licenseCode: string) => api<RedeemAnswer>("/api/license/redeem", { body: { licenseCode } });
