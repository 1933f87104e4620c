import { createHash } from "node:crypto";
import { providerFetch, retryAfterMs, trimBase, type ProviderResponse } from "./http";
import { ProviderError, WebhookRejected, type AdapterOptions, type WebhookRequest } from "./types";

// What Brevo, TextMagic and ClickSend share: plain JSON REST calls, numbers without '+', unsigned webhooks.

/** A non-empty trimmed string, else null. */
export const str = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

/** A field as a string: JSON bodies carry ids and codes as numbers, form bodies as strings. */
export const text = (value: unknown): string | null =>
  typeof value === "number" && Number.isFinite(value) ? String(value) : str(value);

/** A numeric field (JSON number or decimal string) as a number; null when absent or not a number. */
export function num(value: unknown): number | null {
  const raw = text(value);
  const n = raw === null ? NaN : Number(raw);
  return Number.isFinite(n) ? n : null;
}

export const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export const firstOf = (value: unknown): Record<string, unknown> => record(Array.isArray(value) ? value[0] : undefined);

/** A number the provider gave without its '+' (447860021130) in E.164; anything else (a sender name) as given. */
export const withPlus = (raw: string): string => (/^\d{6,15}$/.test(raw) ? `+${raw}` : raw);

export const withoutPlus = (number: string): string => number.replace(/^\+/, "");

/** These APIs take a numeric sender without its '+'; an alphanumeric sender name goes as it is. */
export const senderForApi = (from: string): string => (/^\+\d+$/.test(from) ? from.slice(1) : from);

/** Retry-After when given, else a provider's own "seconds until the window reopens" header. */
export function rateLimitDelayMs(headers: Headers, resetHeader: string): number | null {
  const fromRetryAfter = retryAfterMs(headers);
  if (fromRetryAfter !== null) return fromRetryAfter;
  const reset = headers.get(resetHeader);
  const seconds = Number(reset);
  return reset && Number.isFinite(seconds) ? Math.max(0, Math.round(seconds * 1000)) : null;
}

export type RestAnswer = { status: number; body: Record<string, unknown> };
export type RestCall = (method: "GET" | "POST", path: string, body?: unknown) => Promise<RestAnswer>;

/** A JSON call to `${baseUrl}${path}` with the account's headers; a non-2xx answer throws `toError(res)`. */
export function restClient(
  options: AdapterOptions,
  headers: Record<string, string>,
  toError: (res: ProviderResponse) => ProviderError,
): RestCall {
  const base = trimBase(options.baseUrl);
  return async (method, path, body) => {
    const res = await providerFetch(`${base}${path}`, {
      method,
      headers: {
        ...headers,
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: options.timeoutMs,
    });
    if (res.status < 200 || res.status >= 300) throw toError(res);
    return { status: res.status, body: record(res.body) };
  };
}

/** Thrown when the provider accepted a send but named no message: resending could text the recipient twice. */
export const acceptedWithoutId = (provider: string) =>
  new ProviderError("permanent", null, `${provider} accepted the message but answered without a message id`);

/**
 * The fields of a webhook body, read the way its content type says: form-urlencoded, multipart (TextMagic's
 * default callback format) or JSON (also for a missing or other type: providers posting JSON do not all say so).
 */
export async function webhookFields(request: WebhookRequest): Promise<Record<string, unknown>> {
  const type = request.contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(request.rawBody));
  if (type === "multipart/form-data") {
    let form: FormData;
    try {
      form = await new Response(request.rawBody, { headers: { "content-type": request.contentType } }).formData();
    } catch {
      throw new WebhookRejected("The webhook body is not readable multipart form data");
    }
    const fields: Record<string, unknown> = {};
    for (const [name, value] of form) if (typeof value === "string") fields[name] = value;
    return fields;
  }
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody);
  } catch {
    throw new WebhookRejected("The webhook body is not valid JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new WebhookRejected("The webhook body is not a JSON object");
  return body as Record<string, unknown>;
}

/** A stable short digest of a webhook body: the same report posted again gets the same id. */
export const bodyDigest = (rawBody: string) => createHash("sha256").update(rawBody).digest("hex").slice(0, 16);
