import { ProviderError } from "./types";

export const DEFAULT_TIMEOUT_MS = 15_000;

export type ProviderResponse = { status: number; headers: Headers; body: unknown; text: string };

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const value = headers.get("retry-after");
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/**
 * One call to a provider's REST API. Network failures and timeouts become transient ProviderErrors; any HTTP
 * answer is returned (parsed as JSON when it is JSON) for the adapter to read, since only the adapter knows
 * its provider's error shapes. `classify` turns a non-2xx answer into the ProviderError to throw.
 */
export async function providerFetch(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string; timeoutMs?: number },
): Promise<ProviderResponse> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(init.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      redirect: "error",
    });
  } catch (err) {
    // A timeout may come after the provider accepted the message: the engine marks it unknown rather than resend.
    const name = (err as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") throw new ProviderError("transient", "timeout", "The provider API timed out");
    throw new ProviderError("transient", "network", `The provider API could not be reached (${(err as Error)?.message ?? err})`);
  }
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * The usual meaning of an HTTP status, for a provider error the adapter has not recognised more precisely:
 * 429 rate limited (with Retry-After), 5xx and 408 transient, 401/403 auth, other 4xx permanent.
 */
export function errorFromStatus(res: ProviderResponse, code: string | null, message: string): ProviderError {
  const status = res.status;
  if (status === 429) return new ProviderError("rate_limited", code, message, status, retryAfterMs(res.headers));
  if (status >= 500 || status === 408) return new ProviderError("transient", code, message, status, retryAfterMs(res.headers));
  if (status === 401 || status === 403) return new ProviderError("auth", code, message, status);
  return new ProviderError("permanent", code, message, status);
}

export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

/** Strips a trailing slash so `${base}/path` joins cleanly. */
export const trimBase = (base: string) => base.replace(/\/+$/, "");
