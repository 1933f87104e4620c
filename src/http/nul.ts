import { badRequest } from "./errors";

/**
 * NUL characters (U+0000) in text. No name, note, message or template has one; stored, they cut the text short in
 * C-string consumers (SQLite's full-text search, some providers' gateways, terminals reading the logs) and never
 * show on screen. The JSON API refuses them with the field named; what the appliance must take whatever it holds
 * (a provider's inbound webhook, which would retry a refusal forever; the cells of an imported CSV file) strips
 * them with `stripNul`.
 */

const NUL = "\u0000";

export const stripNul = (text: string) => (text.includes(NUL) ? text.replaceAll(NUL, "") : text);

/**
 * The first place of a parsed JSON body holding a NUL in a string or a key, as a dotted path ("tags.2",
 * "customFields.city"; "body" for the body itself), or null when there is none. Iterative: a body may nest
 * arrays a hundred thousand levels deep within its size limit. Only JSON values are walked (a multipart
 * body's files are not text).
 */
export function nulField(body: unknown): string | null {
  // Most bodies hold none: a walk that builds no paths says so (1 MB of small arrays took 44 ms with them, 8 without).
  return holdsNul(body) ? firstNulPath(body) : null;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(value));

function holdsNul(body: unknown): boolean {
  const stack: unknown[] = [body];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (value.includes(NUL)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (isPlainObject(value)) {
      for (const key in value) {
        if (key.includes(NUL)) return true;
        stack.push(value[key]);
      }
    }
  }
  return false;
}

function firstNulPath(body: unknown): string | null {
  // Children are pushed last to first, so the first field holding a NUL is the one named.
  const stack: [unknown, string][] = [[body, ""]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes(NUL)) return path || "body";
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], path ? `${path}.${i}` : String(i)]);
    } else if (isPlainObject(value)) {
      const entries = Object.entries(value);
      if (entries.some(([key]) => key.includes(NUL))) return path || "body";
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        stack.push([inner, path ? `${path}.${key}` : key]);
      }
    }
  }
  return null;
}

/**
 * The app's one NUL check of request bodies, a transform hook (before validation, so the message names the field
 * as sent): `.onTransform({ as: "global" }, rejectNul)` in app.ts, before the routes. Bodies the routes read
 * themselves (`parse: "none"`: provider webhooks, uploads) are not parsed then and never reach it.
 */
export function rejectNul(context: { body: unknown }) {
  const field = nulField(context.body);
  if (field !== null) throw badRequest(`Invalid ${field.slice(0, 100)}: must not contain NUL characters`);
}
