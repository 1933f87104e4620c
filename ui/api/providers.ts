/** The account's SMS provider accounts: list, credential fields, add, change, test, simulate, numbers to buy, webhook URLs: /api/sms-providers/*, /api/providers/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Providers = Routes["api"]["sms-providers"];

export type Provider = Ok<Providers["get"]>["data"][number];
export type ProviderKind = Provider["provider"];
export type CredentialField = { name: string; label: string; secret: boolean; placeholder?: string };
export type ProviderFields = Record<ProviderKind, CredentialField[]> & { labels: Record<ProviderKind, string> };
export type AvailableNumber = { phoneNumber: string; displayName: string; capabilities: string[] };
export type AvailableNumbersResult = { success: boolean; numbers: AvailableNumber[]; error?: string };
export type WebhookUrl = {
  provider: ProviderKind;
  label: string;
  url: string | null;
  needsAccount: boolean;
  providerId?: string;
};
export type WebhookUrls = { userId: string; urls: WebhookUrl[] };
export type TestResult = { success: boolean; message?: string; error?: string };
/** The changes PATCH /api/sms-providers/:id takes. */
export type ProviderPatch = Partial<Pick<Provider, "isDefault" | "isActive" | "messagesPerSecond" | "displayName">> & {
  settings?: Partial<Provider["settings"]>;
};

export const useProviders = () => useApi<Ok<Providers["get"]>>("/api/sms-providers");

export const useProviderFields = () => useApi<ProviderFields>("/api/sms-providers/fields");

export const useWebhookUrls = () => useApi<WebhookUrls>("/api/sms-providers/webhook-urls");

/** `credentials`: the provider's fields by name (ProviderFields), sent once and stored encrypted. */
export const addProvider = (
  body: { provider: ProviderKind; displayName: string; isDefault: boolean } & Record<string, unknown>,
) => api<Provider>("/api/sms-providers", { body });

export const updateProvider = (id: string, patch: ProviderPatch) =>
  api(`/api/sms-providers/${id}`, { method: "PATCH", body: patch });

export const deleteProvider = (id: string) => api(`/api/sms-providers/${id}`, { method: "DELETE" });

/** A real provider's API is called: up to 30 seconds. */
export const testProvider = (id: string) =>
  api<TestResult>(`/api/sms-providers/${id}/test`, { method: "POST", timeoutMs: 30_000 });

/** The simulator receives a text from `from`, as if a phone had replied. */
export const simulateInbound = (id: string, message: { from: string; to?: string; body: string }) =>
  api<{ message: string }>(`/api/sms-providers/${id}/simulate-inbound`, { body: message });

export const fetchAvailableNumbers = (providerId: string) =>
  api<AvailableNumbersResult>(`/api/providers/${providerId}/available-numbers`, { timeoutMs: 30_000 });
