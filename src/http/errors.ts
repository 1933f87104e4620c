/** The one error type routes throw; the app turns it into `{message, ...extra}` with its status. */
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
