/** The administrator portal: its sign-in, users, license codes, plans, error reports, contact messages, health: /api/admin/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { User } from "./auth";
import type { Ok, Routes } from "./types";
import { qs } from "./types";

type Admin = Routes["api"]["admin"];

export type AdminUser = Ok<Admin["users"]["get"]>["data"][number];
export type AdminPlan = Ok<Admin["plans"]["get"]>["data"][number];
export type ErrorReport = Ok<Admin["error-reports"]["get"]>["data"][number];
export type ContactMessage = Ok<Admin["contact-messages"]["get"]>["data"][number];
export type Health = Ok<Admin["health"]["get"]>["data"];
/** Written out: listLicenseCodes (src/admin/license-codes.ts) declares its rows `unknown`. */
export type LicenseCode = {
  code: string;
  planName: string;
  durationDays: number;
  status: "active" | "redeemed" | "revoked";
  createdAt: string;
  redeemedAt: string | null;
  redeemedBy: { id: string; email: string | null } | null;
};
export type GeneratedCodes = { planName: string; durationDays: number; codes: string[] };
/** The user actions of POST /api/admin/users/:id/:action. */
export type UserAction = "disable" | "enable" | "make-admin" | "remove-admin" | "reset-2fa" | "verify-email";

type Paged = { page: number; pageSize: number };

/** `requires2FA` without a token: the account has 2FA on and the code was missing. */
export const adminSignIn = (email: string, password: string, twoFactorCode?: string) =>
  api<{ token?: string; user?: User; requires2FA?: boolean }>("/api/admin/auth/login", {
    body: { email, password, twoFactorCode },
  });

export const useAdminUsers = (q: Paged & { search: string }) => useApi<Ok<Admin["users"]["get"]>>(`/api/admin/users${qs(q)}`);

export const applyUserAction = (userId: string, action: UserAction) =>
  api(`/api/admin/users/${userId}/${action}`, { method: "POST" });

/** Without SMTP the answer carries the link itself, for the administrator to pass on. */
export const sendPasswordResetLink = (userId: string) =>
  api<{ message: string; data: { link: string | null } }>(`/api/admin/users/${userId}/send-password-reset`, { method: "POST" });

export const useLicenseCodes = (q: Paged & { status: string }) =>
  useApi<{ data: LicenseCode[]; total: number; page: number; pageSize: number }>(`/api/admin/license-codes${qs(q)}`);

export const generateLicenseCodes = (body: { planId: string; durationDays: number; count: number }) =>
  api<{ data: GeneratedCodes }>("/api/admin/license-codes", { body });

export const revokeLicenseCode = (code: string) => api(`/api/admin/license-codes/${code}/revoke`, { method: "POST" });

export const useAdminPlans = () => useApi<Ok<Admin["plans"]["get"]>>("/api/admin/plans");

export const updatePlan = (
  planId: string,
  body: { price: number; monthlyContacts: number; monthlyMessages: number; phoneNumbers: number; features: string[] },
) => api(`/api/admin/plans/${planId}`, { method: "PUT", body });

export const useErrorReports = (q: Paged) => useApi<Ok<Admin["error-reports"]["get"]>>(`/api/admin/error-reports${qs(q)}`);

export const useContactMessages = (q: Paged & { status: string }) =>
  useApi<Ok<Admin["contact-messages"]["get"]>>(`/api/admin/contact-messages${qs(q)}`);

export const markContactMessage = (id: string, handled: boolean) =>
  api(`/api/admin/contact-messages/${id}/handled`, { body: { handled } });

export const useHealth = (refreshMs: number) => useApi<Ok<Admin["health"]["get"]>>("/api/admin/health", { refreshMs });

/** The networks and host names users' webhooks may call although they are not public (installation-wide). */
export const useWebhookAllowList = () => useApi<Ok<Admin["settings"]["webhook-allow-list"]["get"]>>("/api/admin/settings/webhook-allow-list");

export const setWebhookAllowList = (entries: string[]) =>
  api<Ok<Admin["settings"]["webhook-allow-list"]["put"]>>("/api/admin/settings/webhook-allow-list", { method: "PUT", body: { entries } });
