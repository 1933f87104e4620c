/**
 * Every call to the server goes through here: the session cookie, JSON, timeouts and the spec's error shape.
 *
 * The page never holds the session token (issue 27 item 5). The server's httpOnly session cookie (src/auth/sessions.ts)
 * rides along on every same-origin call and on the WebSocket, and script on the page, an injected one included,
 * cannot read it; changes made with it must come from PUBLIC_URL's origin (src/http/csrf.ts). The token used to be
 * kept in localStorage and sent as a header, in Safari as x-auth-token because Safari could refuse the Authorization
 * value ("The string did not match the expected pattern"); with no header there is nothing to refuse, and Safari
 * sends a first-party cookie like any browser (Secure only when PUBLIC_URL is https, so plain http keeps it too).
 */

/** The machine codes the server puts on every error (src/http/errors.ts); the UI branches on these, never on text. */
export type ErrorCode =
  | "validation"
  | "unauthorized"
  | "plan_limit"
  | "forbidden"
  | "csrf"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "too_large"
  | "locked"
  | "rate_limited"
  | "upstream"
  | "internal"
  | "no_recipients"
  | "reauth_required"
  | "network"
  | "error";

/** For an answer without a body of ours (a proxy's error page, a dropped connection): the code its status means. */
const STATUS_CODES: Record<number, ErrorCode> = {
  0: "network",
  400: "validation",
  401: "unauthorized",
  402: "plan_limit",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "too_large",
  423: "locked",
  429: "rate_limited",
  502: "upstream",
};

/** A failed call: its status, the server's machine `code`, its message for people, and the rest of the body. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.code =
      typeof body.code === "string" ? (body.code as ErrorCode) : (STATUS_CODES[status] ?? (status >= 500 ? "internal" : "error"));
  }
}

/**
 * `headers`: extra request headers (an `Idempotency-Key`, for one). A `body` that is a Blob (a chosen File) goes as
 * its raw bytes with its own type, as POST /api/media takes it; anything else goes as JSON.
 */
export type RequestOptions = { method?: string; body?: unknown; timeoutMs?: number; signal?: AbortSignal; headers?: Record<string, string> };

/**
 * Asks the user to confirm who they are (ui/components/reauth-dialog.tsx) and answers whether they did: a change
 * that outlives the session (an API key, a webhook's URL) answers 403 `reauth_required` when the session's last
 * sign-in or confirmation is over 10 minutes old (src/auth/reauth.ts), and is then sent once more.
 */
type ReauthPrompt = (error: ApiError) => Promise<boolean>;
let reauthPrompt: ReauthPrompt | null = null;
export const setReauthPrompt = (prompt: ReauthPrompt | null) => void (reauthPrompt = prompt);

export async function api<T = unknown>(path: string, opts: RequestOptions = {}): Promise<T> {
  try {
    return await request<T>(path, opts);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === "reauth_required" && reauthPrompt && (await reauthPrompt(err)))) throw err;
    return request<T>(path, opts);
  }
}

async function request<T>(path: string, opts: RequestOptions): Promise<T> {
  const raw = opts.body instanceof Blob ? opts.body : null;
  const headers: Record<string, string> = { "content-type": raw ? raw.type || "application/octet-stream" : "application/json", ...opts.headers };
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 10_000);
  const response = await fetch(path, {
    method: opts.method ?? (opts.body === undefined ? "GET" : "POST"),
    headers,
    credentials: "same-origin",
    body: raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
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
    if (err instanceof ApiError && err.code === "unauthorized") return null;
    throw err;
  }
}

export const errorMessage = (err: unknown, fallback: string) => (err instanceof Error && err.message ? err.message : fallback);
