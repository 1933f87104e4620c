/**
 * Merge fields (issue 14): one renderer for campaigns, one-off and chat sends, keyword replies and templates.
 *
 * `{firstName}`, `{lastName}`, `{fullName}`, `{phone}`, `{email}`, `{business}` and any contact custom field by its
 * key, each with an optional fallback after a bar (`{firstName|there}`) used when the contact has no value. The
 * spec's `[Name]` and `[Business]` are the same fields (`[Name]` falls back to "there", as campaigns always did).
 * Every occurrence is replaced. A field with no value and no fallback renders empty, never as "{field}".
 *
 * Pure: no database, no domain imports, so every layer may use it.
 */

export const BUILT_IN_FIELDS = ["firstName", "lastName", "fullName", "phone", "email", "business"] as const;
export type BuiltInField = (typeof BUILT_IN_FIELDS)[number];

/** What a message is rendered with: one contact (or none) and the sending account's business name. */
export type MergeValues = {
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  email?: string | null;
  business?: string | null;
  customFields?: Record<string, string> | null;
};

/**
 * `{key}` or `{key|fallback}` (a key starts with a letter or underscore, then letters, digits, spaces, `_`, `-` or `.`,
 * as custom field names from a CSV header do; the fallback holds no braces), or the spec's `[Name]` / `[Business]`.
 * Braces around anything else (JSON, numbers) are text.
 */
const TOKEN = /\{\s*([A-Za-z_][\w .-]*?)\s*(?:\|([^{}\n]*))?\}|\[(Name|Business)\]/g;

type Part = string | { field: string; fallback: string };

function parse(text: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    if (m[3] === "Name") parts.push({ field: "firstName", fallback: "there" });
    else if (m[3] === "Business") parts.push({ field: "business", fallback: "" });
    else parts.push({ field: m[1]!, fallback: (m[2] ?? "").trim() });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

function valueOf(field: string, v: MergeValues): string {
  switch (field) {
    case "firstName":
      return v.firstName ?? "";
    case "lastName":
      return v.lastName ?? "";
    case "fullName":
      return `${v.firstName ?? ""} ${v.lastName ?? ""}`.trim();
    case "phone":
      return v.phone ?? "";
    case "email":
      return v.email ?? "";
    case "business":
      return v.business ?? "";
  }
  const custom = v.customFields;
  return custom && Object.hasOwn(custom, field) ? String(custom[field] ?? "") : "";
}

/**
 * A text parsed once into a renderer, for rendering it for many recipients (a campaign of 100,000 parses its
 * content once). A text without fields renders to itself without work.
 */
export function compile(text: string): (values: MergeValues) => string {
  const parts = parse(text);
  if (parts.every((p) => typeof p === "string")) return () => text;
  return (values) => {
    let out = "";
    for (const p of parts) {
      if (typeof p === "string") out += p;
      else out += valueOf(p.field, values).trim() || p.fallback;
    }
    return out;
  };
}

/** A text with every merge field filled for one recipient. */
export function render(text: string, values: MergeValues): string {
  return compile(text)(values);
}

/** The fields a text uses, each once, in order of first use (`[Name]` is firstName, `[Business]` is business). */
export function fieldsOf(text: string): string[] {
  const seen = new Set<string>();
  for (const p of parse(text)) if (typeof p !== "string") seen.add(p.field);
  return [...seen];
}

/** The fields a text uses that are not built in: custom fields, to be checked against the account's contacts. */
export function customFieldsOf(text: string): string[] {
  return fieldsOf(text).filter((f) => !(BUILT_IN_FIELDS as readonly string[]).includes(f));
}

/** The message refusing a text that uses fields no contact has (the caller answers it as 400). */
export function unknownFieldsMessage(unknown: string[]): string {
  const list = unknown.map((f) => `{${f}}`).join(", ");
  return unknown.length === 1
    ? `Unknown merge field ${list}: no contact has a field named "${unknown[0]}". Use {firstName}, {lastName}, {fullName}, {phone}, {email}, {business} or a custom field your contacts have.`
    : `Unknown merge fields ${list}: no contact has fields with these names. Use {firstName}, {lastName}, {fullName}, {phone}, {email}, {business} or custom fields your contacts have.`;
}
