/** The signed-in user's own settings, onboarding answers and password: /api/user/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { User } from "./auth";
import type { Ok, Routes } from "./types";

type UserRoutes = Routes["api"]["user"];

/** Regional and sending settings as GET /api/user/settings answers. */
export type UserSettings = Ok<UserRoutes["settings"]["get"]>;
/** What PATCH /api/user/settings takes: any of the settings, each checked by the server. */
export type SettingsPatch = Partial<Omit<UserSettings, "defaultCountryChosen" | "defaultCountry" | "helpReplyDefault" | "helpReplyCustom" | "linkDomainDefault" | "linkDomain">> & {
  defaultCountry?: string;
  /** Empty: the installation's link domain. */
  linkDomain?: string;
};

/** `enabled: false` reads nothing (a dialog that is closed). */
export const useUserSettings = (enabled = true) => useApi<UserSettings>(enabled ? "/api/user/settings" : null);

/** The origin a campaign's short links go out on (the account's own, else the installation's), once read. */
export const useLinkDomain = () => {
  const s = useUserSettings().data;
  return s ? (s.linkDomain ?? s.linkDomainDefault) : null;
};

/** The saved settings, and how many messages held for quiet hours the change let go (`releasedHeld`). */
export type SavedSettings = Ok<UserRoutes["settings"]["patch"]>;

export const updateUserSettings = (patch: SettingsPatch) =>
  api<SavedSettings>("/api/user/settings", { method: "PATCH", body: patch });

export type OnboardingAnswers = { businessName: string; industry: string; customerType: string; goals: string[]; timezone: string; defaultCountry: string };

export const saveOnboarding = (answers: OnboardingAnswers) =>
  api<User>("/api/user/onboarding", { method: "PUT", body: answers });

/** Other sessions end; the API keys and webhooks they set up are revoked unless `keepCredentials`. */
export const changePassword = (currentPassword: string, newPassword: string, confirmPassword: string, keepCredentials: boolean) =>
  api<{ message: string }>("/api/user/password", { body: { currentPassword, newPassword, confirmPassword, keepCredentials } });

/** The business profile and the user's own name and email, as GET /api/user/profile answers. */
export type Profile = Ok<UserRoutes["profile"]["get"]>;
export type ProfilePatch = Partial<Pick<Profile, "firstName" | "lastName" | "businessName" | "industry" | "businessContact">>;

export const useProfile = () => useApi<Profile>("/api/user/profile");

export const updateProfile = (patch: ProfilePatch) => api<Profile>("/api/user/profile", { method: "PATCH", body: patch });

/** Sends a code to the new address; the email changes when it comes back (confirmEmailChange). */
export const requestEmailChange = (email: string) =>
  api<{ message: string; pendingEmail: string; retryAfter: number }>("/api/user/email", { body: { email } });

export const confirmEmailChange = (code: string) =>
  api<{ message: string; user: User; profile: Profile }>("/api/user/email/confirm", { body: { code } });

export const cancelEmailChange = () => api<Profile>("/api/user/email", { method: "DELETE" });
