/** Message templates: the list (search, category), create, edit, delete and counting a use: /api/templates/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";
import { qs } from "./types";

type Templates = Routes["api"]["templates"];

export type TemplateView = Ok<Templates["get"]>["data"][number];
export type TemplateCategory = TemplateView["category"];

/** The spec's six categories, in its order, with the words the screen shows. */
export const TEMPLATE_CATEGORIES: { value: TemplateCategory; label: string }[] = [
  { value: "restaurant", label: "Restaurant" },
  { value: "retail", label: "Retail" },
  { value: "service", label: "Service" },
  { value: "healthcare", label: "Healthcare" },
  { value: "fitness", label: "Fitness" },
  { value: "custom", label: "Custom" },
];

export const categoryLabel = (c: string) => TEMPLATE_CATEGORIES.find((x) => x.value === c)?.label ?? c;

const TEMPLATES = "/api/templates";

/** The account's templates (newest first), then the built-in samples; `q` searches names and texts. */
export const useTemplates = (q: { q?: string; category?: TemplateCategory | "" } = {}) =>
  useApi<Ok<Templates["get"]>>(`${TEMPLATES}${qs(q)}`);

/** mediaIds: the template's pictures and files (uploads of POST /api/media), which it then holds. */
export type TemplateInput = { name: string; category: TemplateCategory; content: string; mediaIds: string[] };

export const createTemplate = (body: TemplateInput) => api<TemplateView>(TEMPLATES, { body });

export const saveTemplate = (id: string, body: Partial<TemplateInput>) => api<TemplateView>(`${TEMPLATES}/${id}`, { method: "PUT", body });

export const deleteTemplate = (id: string) => api(`${TEMPLATES}/${id}`, { method: "DELETE" });

/** Counts one real use (the template went into a message); answers it with its new count. */
/** Counts a use; `attachments` are copies of the template's pictures and files, for the message being written. */
export type UsedTemplate = TemplateView & { attachments: TemplateView["media"] };
export const countTemplateUse = (id: string) => api<UsedTemplate>(`${TEMPLATES}/${id}/use`, { method: "POST" });
