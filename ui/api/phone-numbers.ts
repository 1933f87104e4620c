/** The account's sender numbers: /api/phone-numbers/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Numbers = Routes["api"]["phone-numbers"];

export type PhoneNumber = Ok<Numbers["get"]>["data"][number];
export type NumberKind = PhoneNumber["kind"];

export const usePhoneNumbers = () => useApi<Ok<Numbers["get"]>>("/api/phone-numbers");

export const addPhoneNumber = (body: {
  providerId: string;
  phoneNumber: string;
  displayName?: string;
  kind: NumberKind;
  messagesPerSecond: number;
  isDefault: boolean;
}) => api("/api/phone-numbers", { body });

export const updatePhoneNumber = (id: string, patch: { messagesPerSecond?: number; isDefault?: boolean }) =>
  api(`/api/phone-numbers/${id}`, { method: "PATCH", body: patch });

export const deletePhoneNumber = (id: string) => api(`/api/phone-numbers/${id}`, { method: "DELETE" });

/** Each number's US carrier registration as last read from its provider (issue 34). */
export type RegistrationOverview = Ok<Numbers["registration"]["get"]>;
export type NumberRegistration = RegistrationOverview["accounts"][number]["numbers"][number];

export const useRegistration = () => useApi<RegistrationOverview>("/api/phone-numbers/registration");

/** Reads every number's registration from the providers now. */
export const refreshRegistration = () => api<RegistrationOverview>("/api/phone-numbers/registration/refresh", { body: {} });
