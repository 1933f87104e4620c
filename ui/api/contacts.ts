/** Contacts: the list and search, counters, duplicates and merging, one contact, bulk delete and tags, consent, CSV import and export: /api/contacts/*. */
import { ApiError, api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";
import { qs } from "./types";

type Contacts = Routes["api"]["contacts"];

/** `totalCapped`: the server counted a search's matches up to `total` and stopped. */
export type ContactPage = Ok<Contacts["get"]>;
export type Contact = ContactPage["data"][number];
export type ContactStats = Ok<Contacts["stats"]["get"]>;
export type DuplicateGroup = { phone: string; contacts: Contact[] };
export type DuplicatePage = { data: DuplicateGroup[]; total: number };
/** One consent as GET /api/contacts/:id/consent answers: a keyword's or START's carries the number texted (and the keyword). */
export type ConsentEntry = { kind: "opt_in" | "opt_out"; source: string; text: string; keyword: string | null; number: string | null; createdAt: string };
export type DuplicateDetail = {
  line: number;
  attemptedName: string;
  existingName: string;
  phone: string;
  existingContactId: string | null;
};
export type ImportJob = {
  id?: string;
  state: "queued" | "running" | "done" | "failed";
  rowsRead: number;
  created: number;
  updated: number;
  duplicates: number;
  invalid: number;
  errors: { line: number; reason: string }[];
  /** The first skipped duplicate rows (at most 100; `duplicates` is the total). */
  duplicateDetails: DuplicateDetail[];
  /** Rows refused for their phone, downloadable with fetchRejectedRows to fix and import again. */
  rejectedRows: number;
  progress: number;
  error?: string;
};
/** What a column of an import holds; `custom:<name>` is a custom field. */
export type ColumnTarget = "firstName" | "lastName" | "fullName" | "phone" | "email" | "tags" | "skip" | `custom:${string}`;
export type ImportPreview = {
  encoding: "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";
  delimiter: string;
  headers: string[];
  rows: string[][];
  mapping: ColumnTarget[];
  defaultCountry: string;
};
export type ImportOptions = { mapping: ColumnTarget[]; tag: string; country: string; onDuplicate: "skip" | "update" };
/** What a new contact or a change carries. */
export type ContactBody = {
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  /** The country of a number typed without "+". */
  country?: string;
  tags: string[];
  customFields?: Record<string, string>;
};

const CONTACTS = "/api/contacts";

export type ContactSort = "createdAt" | "name" | "phone";
export type ListQuery = { page: number; pageSize: number; q?: string; sort?: ContactSort; order?: "asc" | "desc" };

/** Newest first unless told; `q` searches names, emails and phone digits. */
export const useContacts = (q: ListQuery) => useApi<ContactPage>(`${CONTACTS}${qs({ sort: "createdAt", order: "desc", ...q })}`);

export const fetchContacts = (q: ListQuery) => api<ContactPage>(`${CONTACTS}${qs(q)}`);

export const useContactStats = () => useApi<ContactStats>(`${CONTACTS}/stats`);

/** Groups of contacts that share a phone number. */
export const useDuplicates = (q: { page: number; pageSize: number }) => useApi<DuplicatePage>(`${CONTACTS}/duplicates${qs(q)}`);

export const fetchContact = (id: string) => api<Contact>(`${CONTACTS}/${id}`);

/** 409 with `existingContactId` and `existingName` when another contact has the phone number. */
export const createContact = (body: ContactBody) => api(CONTACTS, { method: "POST", body });

export const updateContact = (id: string, body: Partial<ContactBody>) => api(`${CONTACTS}/${id}`, { method: "PUT", body });

export const deleteContact = (id: string) => api(`${CONTACTS}/${id}`, { method: "DELETE" });

export const deleteContacts = (contactIds: string[]) => api(`${CONTACTS}/bulk-delete`, { body: { contactIds } });

export const tagContacts = (contactIds: string[], tags: string[]) =>
  api(`${CONTACTS}/bulk-tag`, { body: { contactIds, tags, action: "add" } });

/** The others are merged into `primaryContactId` and deleted. */
export const mergeContacts = (primaryContactId: string, mergeContactIds: string[]) =>
  api(`${CONTACTS}/merge`, { body: { primaryContactId, mergeContactIds } });

export const useConsentHistory = (contactId: string) => useApi<{ data: ConsentEntry[] }>(`${CONTACTS}/${contactId}/consent`);

export const optOutContact = (contactId: string) => api(`${CONTACTS}/${contactId}/opt-out`, { method: "POST" });

export const fetchImportJob = (id: string) => api<ImportJob>(`${CONTACTS}/import/${id}`);

async function failure(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = {};
  }
  const message = typeof body.message === "string" ? body.message : `${response.status}: ${response.statusText}`;
  return new ApiError(response.status, message, body);
}

/** The server reads at most this much of a file for the preview. */
const PREVIEW_BYTES = 64 * 1024;

/** The file's encoding, delimiter, columns, first rows and suggested mapping, from its first 64 KB (sent as it is, not JSON). */
export async function previewCsv(file: File): Promise<ImportPreview> {
  const response = await fetch(`${CONTACTS}/import/preview`, {
    method: "POST",
    headers: { "content-type": "text/csv" },
    credentials: "same-origin",
    body: file.slice(0, PREVIEW_BYTES),
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** Uploads a CSV as the raw request body, reporting upload progress (0..1). Answers the import job id. */
export function uploadCsv(file: File, onProgress: (fraction: number) => void, options?: ImportOptions): Promise<{ id: string }> {
  const query = options
    ? `?${new URLSearchParams({
        mapping: JSON.stringify(options.mapping),
        country: options.country,
        onDuplicate: options.onDuplicate,
        ...(options.tag.trim() ? { tag: options.tag.trim() } : {}),
      })}`
    : "";
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${CONTACTS}/import/csv${query}`);
    xhr.setRequestHeader("content-type", "text/csv");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(0, "Network error while uploading the file"));
    xhr.onload = () => {
      let body: Record<string, unknown> = {};
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : {};
      } catch {
        body = {};
      }
      if (xhr.status >= 200 && xhr.status < 300 && typeof body.id === "string") resolve({ id: body.id });
      else reject(new ApiError(xhr.status, typeof body.message === "string" ? body.message : "Failed to import contacts", body));
    };
    xhr.send(file);
  });
}

/** An import's rows refused for their phone, in the file's own columns with each row's line and problem. */
export async function fetchRejectedRows(importId: string): Promise<Blob> {
  const response = await fetch(`${CONTACTS}/import/${encodeURIComponent(importId)}/rejected.csv`, { credentials: "same-origin" });
  if (!response.ok) throw await failure(response);
  return response.blob();
}

/** The contacts (or those matching `q`) as a CSV file. */
export async function fetchExport(q: string): Promise<Blob> {
  const response = await fetch(`${CONTACTS}/export.csv${qs({ q })}`, { credentials: "same-origin" });
  if (!response.ok) throw await failure(response);
  return response.blob();
}
