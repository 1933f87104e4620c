/** API keys of the public API: list, create (the key is answered once), revoke, delete: /api/api-keys/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type ApiKeys = Routes["api"]["api-keys"];

export type ApiKey = Ok<ApiKeys["get"]>[number];
export type CreatedApiKey = Ok<ApiKeys["post"]>;
export type ApiScope = ApiKey["permissions"][number];

/** The permissions a key can have (src/api-keys/keys.ts), with the words the dialog shows. */
export const API_SCOPES: readonly { value: string; label: string }[] = [
  { value: "contacts:read", label: "Read contacts" },
  { value: "contacts:write", label: "Create, change and delete contacts" },
  { value: "messages:send", label: "Send messages" },
  { value: "messages:read", label: "Read message status" },
  { value: "campaigns:read", label: "Read campaigns" },
  { value: "campaigns:write", label: "Create and send campaigns" },
  { value: "segments:read", label: "Read segments" },
  { value: "keywords:read", label: "Read keywords" },
  { value: "events:write", label: "Send custom events" },
];

const API_KEYS = "/api/api-keys";

export const useApiKeys = () => useApi<ApiKey[]>(API_KEYS);

export type ApiKeyInput = { name: string; service?: string; permissions: ApiScope[]; expiresAt?: number | null };

export const createApiKey = (body: ApiKeyInput) => api<CreatedApiKey>(API_KEYS, { body });

export const revokeApiKey = (id: string) => api<ApiKey>(`${API_KEYS}/${id}/revoke`, { method: "POST" });

export const deleteApiKey = (id: string) => api(`${API_KEYS}/${id}`, { method: "DELETE" });

/** The public API's base path, and where its reference is served (by the appliance itself). */
export const API_BASE = "/api/v1";
export const API_DOCS_URL = "/api/docs";
