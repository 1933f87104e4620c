/** The signed-in user's own settings, onboarding answers and password: /api/user/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { User } from "./auth";
import type { Ok, Routes } from "./types";

type UserRoutes = Routes["api"]["user"];

/** Regional and sending settings as GET /api/user/settings answers. */
export type UserSettings = Ok<UserRoutes["settings"]["get"]>;
/** What PATCH /api/user/settings takes: any of the settings, each checked by the server. */
export type SettingsPatch = Partial<Omit<UserSettings, "defaultCountryChosen" | "defaultCountry">> & { defaultCountry?: string };

/** `enabled: false` reads nothing (a dialog that is closed). */
export const useUserSettings = (enabled = true) => useApi<UserSettings>(enabled ? "/api/user/settings" : null);

/** The saved settings, and how many messages held for quiet hours the change let go (`releasedHeld`). */
export type SavedSettings = Ok<UserRoutes["settings"]["patch"]>;

export const updateUserSettings = (patch: SettingsPatch) =>
  api<SavedSettings>("/api/user/settings", { method: "PATCH", body: patch });

export const saveOnboarding = (answers: { businessName: string; industry: string; customerType: string; goals: string[] }) =>
  api<User>("/api/user/onboarding", { method: "PUT", body: answers });

export const changePassword = (currentPassword: string, newPassword: string, confirmPassword: string) =>
  api<{ message: string }>("/api/user/password", { body: { currentPassword, newPassword, confirmPassword } });
