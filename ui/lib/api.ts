/** Every call to the server goes through here: token, cookies, JSON, timeouts and the spec's error shape. */
export const TOKEN_KEY = "auth_token";
const TOKEN_RE = /^[A-Za-z0-9_.-]+$/;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    Object.assign(this, body, { message });
  }
}

/** The stored token is used only if it looks like a session token; anything else is removed. */
export function getStoredToken(): string | null {
  const token = localStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  const valid = !token.includes("@") && token.length >= 20 && TOKEN_RE.test(token) && token.split(".").length === 3;
  if (!valid) localStorage.removeItem(TOKEN_KEY);
  return valid ? token : null;
}

export function storeToken(token: string) {
  localStorage.setItem(TOKEN_KEY, token);
}

export function clearToken() {
  localStorage.removeItem(TOKEN_KEY);
}

const isSafari = () => /^((?!chrome|android|crios|fxios).)*safari/i.test(navigator.userAgent);

export type RequestOptions = { method?: string; body?: unknown; timeoutMs?: number; signal?: AbortSignal };

export async function api<T = unknown>(path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const token = getStoredToken();
  if (token) headers[isSafari() ? "x-auth-token" : "authorization"] = isSafari() ? token : `Bearer ${token}`;
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 10_000);
  const response = await fetch(path, {
    method: opts.method ?? (opts.body === undefined ? "GET" : "POST"),
    headers,
    credentials: "include",
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout,
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    if (!response.ok) throw new ApiError(response.status, `${response.status}: ${text || response.statusText}`);
    throw new ApiError(response.status, "Invalid response from server");
  }
  if (!response.ok) {
    const body = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>;
    const message = typeof body.message === "string" ? body.message : `${response.status}: ${response.statusText}`;
    throw new ApiError(response.status, message, body);
  }
  return parsed as T;
}

/** A read: 401 resolves to null (signed out) instead of an error, as the spec's reads do. */
export async function apiGet<T>(path: string, signal?: AbortSignal): Promise<T | null> {
  try {
    return await api<T>(path, { signal });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export const errorMessage = (err: unknown, fallback: string) =>
  err instanceof Error && err.message ? err.message : fallback;
