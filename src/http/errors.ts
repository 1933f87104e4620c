/**
 * The machine code every error body carries, by status, so the UI branches on it and never on message text. An
 * error may name a more precise one in `extra.code` (e.g. "csrf" for a refused cross-site request).
 */
const ERROR_CODES: Record<number, string> = {
  400: "validation",
  401: "unauthorized",
  402: "plan_limit",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "too_large",
  423: "locked",
  429: "rate_limited",
  405: "method_not_allowed",
  502: "upstream",
};
export const errorCode = (status: number) => ERROR_CODES[status] ?? (status >= 500 ? "internal" : "error");

/** The one error type routes throw; the app turns it into `{message, code, ...extra}` with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) => new HttpError(400, message, extra);
export const unauthorized = (message = "Unauthorized") => new HttpError(401, message);
export const forbidden = (message = "Forbidden") => new HttpError(403, message);
export const notFound = (message = "Not found") => new HttpError(404, message);
export const conflict = (message: string, extra?: Record<string, unknown>) => new HttpError(409, message, extra);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new HttpError(429, message, { retryAfter: retryAfterSeconds }, { "retry-after": String(retryAfterSeconds) });
