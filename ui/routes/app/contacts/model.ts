import { parsePhoneNumberFromString } from "libphonenumber-js";
import { ApiError, getStoredToken } from "../../../lib/api";

export type Contact = {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  tags: string[];
  customFields: Record<string, string>;
  status: "subscribed" | "opted_out";
  source: string;
  optInDate: string | null;
  lastEngagedAt: string | null;
  totalSpent: number;
  engagementScore: number;
  createdAt: string;
  updatedAt: string;
};

/** `totalCapped`: the server counted a search's matches up to `total` and stopped. */
export type ContactPage = { data: Contact[]; total: number; totalCapped?: boolean; page: number; pageSize: number };
export type ContactStats = { total: number; email: number; sms: number };
export type DuplicateGroup = { phone: string; contacts: Contact[] };
export type DuplicatePage = { data: DuplicateGroup[]; total: number };
export type ConsentEntry = { kind: "opt_in" | "opt_out"; source: string; text: string; createdAt: string };
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
  progress: number;
  error?: string;
};
export type DuplicateDetail = { line: number; attemptedName: string; existingName: string; phone: string; existingContactId: string | null };

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

/** The server reads at most this much of a file for the preview. */
const PREVIEW_BYTES = 64 * 1024;

/** The file's encoding, delimiter, columns, first rows and suggested mapping, from its first 64 KB. */
export async function previewCsv(file: File): Promise<ImportPreview> {
  const response = await fetch("/api/contacts/import/preview", {
    method: "POST",
    headers: { ...authHeaders(), "content-type": "text/csv" },
    credentials: "include",
    body: file.slice(0, PREVIEW_BYTES),
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

export const PAGE_SIZE = 50;

/** First plus last name, else email, else phone, else "Unknown". */
export function contactName(c: Pick<Contact, "firstName" | "lastName" | "email" | "phone">): string {
  const name = [c.firstName, c.lastName].filter((s) => s && s.trim()).join(" ").trim();
  return name || c.email || (c.phone ? formatPhone(c.phone) : "") || "Unknown";
}

/** +1 (xxx) xxx-xxxx for North American numbers, international format otherwise. */
export function formatPhone(phone: string | null | undefined): string {
  if (!phone) return "";
  const digits = phone.replace(/\D/g, "");
  if (digits.length === 11 && digits.startsWith("1")) {
    return `+1 (${digits.slice(1, 4)}) ${digits.slice(4, 7)}-${digits.slice(7)}`;
  }
  const parsed = parsePhoneNumberFromString(phone.startsWith("+") ? phone : `+${digits}`);
  return parsed ? parsed.formatInternational() : phone;
}

export function contactType(c: Pick<Contact, "email" | "phone">): string {
  if (c.email && c.phone) return "Email + SMS";
  if (c.email) return "Email Only";
  if (c.phone) return "SMS Only";
  return "Incomplete";
}

/** Comma separated, trimmed, empties dropped. */
export const parseTags = (text: string) => [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];

function authHeaders(): Record<string, string> {
  const token = getStoredToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

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
    xhr.open("POST", `/api/contacts/import/csv${query}`);
    xhr.withCredentials = true;
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
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

/** Downloads the contacts (or the current search) as CSV; the file name carries today's date. */
export async function downloadExport(q: string): Promise<void> {
  const response = await fetch(`/api/contacts/export.csv${q ? `?q=${encodeURIComponent(q)}` : ""}`, {
    headers: authHeaders(),
    credentials: "include",
  });
  if (!response.ok) throw await failure(response);
  const blob = await response.blob();
  saveBlob(blob, `contacts-${new Date().toISOString().slice(0, 10)}.csv`);
}

export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const SAMPLE_CSV =
  "phone,first_name,last_name,email\n+15551234567,Jane,Doe,jane@example.com\n(555) 987-6543,John,Smith,john@example.com\n+447911123456,Amelia,Jones,\n";
