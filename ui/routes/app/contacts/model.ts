import { parsePhoneNumberFromString } from "libphonenumber-js";
import { fetchExport, type Contact } from "../../../api/contacts";

export type {
  ColumnTarget,
  Contact,
  ContactStats,
  DuplicateGroup,
  ImportJob,
  ImportOptions,
  ImportPreview,
} from "../../../api/contacts";
export { previewCsv, uploadCsv } from "../../../api/contacts";

export const PAGE_SIZE = 50;

/** First plus last name, else email, else phone, else "Unknown". */
export function contactName(c: Pick<Contact, "firstName" | "lastName" | "email" | "phone">): string {
  const name = [c.firstName, c.lastName]
    .filter((s) => s && s.trim())
    .join(" ")
    .trim();
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
export const parseTags = (text: string) => [
  ...new Set(
    text
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  ),
];

/** Downloads the contacts (or the current search) as CSV; the file name carries today's date. */
export async function downloadExport(q: string): Promise<void> {
  const blob = await fetchExport(q);
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
