import { Elysia } from "elysia";
import { assertScope, authenticateApiKey, type ApiCaller, type ApiScope } from "../api-keys/keys";
import { hitRateWindow } from "../auth/rate-windows";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";

/** Requests each key may make per window (IETF RateLimit fields name the policy "default"). */
export const KEY_QUOTA = 100;
export const KEY_WINDOW_MS = 10_000;

/**
 * Per-key fixed windows on the app's clock, held in the database (src/auth/rate-windows.ts): every process of an
 * installation counts a key's calls together. A refused call counts too; it changes nothing, the window being full.
 */
async function take(ctx: AppContext, keyId: string): Promise<{ remaining: number; resetSeconds: number; allowed: boolean }> {
  const { hits, resetsAt } = await hitRateWindow(ctx, `api-key|${keyId}`, KEY_WINDOW_MS);
  return { remaining: Math.max(0, KEY_QUOTA - hits), resetSeconds: Math.max(1, Math.ceil((resetsAt - ctx.now()) / 1000)), allowed: hits <= KEY_QUOTA };
}

const POLICY = `"default";q=${KEY_QUOTA};w=${KEY_WINDOW_MS / 1000}`;

/**
 * `{ apiScope: "contacts:read" }` on a /api/v1 route: the caller's API key (never a session; session routes in
 * turn never accept a key, since keys are no sessions), counted against its rate limit, with the scope checked.
 * Like the session guard it runs before the body is read, and the key is looked up once per request.
 */
export function apiKeyGuard(ctx: AppContext) {
  const checked = new WeakMap<Request, ApiCaller>();
  const authenticate = async (request: Request, set: { headers: Record<string, unknown> }, scope: ApiScope): Promise<ApiCaller> => {
    const known = checked.get(request);
    if (known) return known;
    const caller = await authenticateApiKey(ctx, request.headers.get("authorization"));
    const { remaining, resetSeconds, allowed } = await take(ctx, caller.keyId);
    const headers = { "ratelimit-policy": POLICY, ratelimit: `"default";r=${remaining};t=${resetSeconds}` };
    Object.assign(set.headers, headers);
    if (!allowed) {
      throw new HttpError(
        429,
        `This API key made more than ${KEY_QUOTA} requests in ${KEY_WINDOW_MS / 1000} seconds. Retry after ${resetSeconds} s.`,
        { retryAfter: resetSeconds },
        { ...headers, "retry-after": String(resetSeconds) },
      );
    }
    assertScope(caller, scope);
    checked.set(request, caller);
    return caller;
  };
  return new Elysia({ name: "api-key-guard" }).macro({
    apiScope(scope: ApiScope) {
      return {
        parse: async (context) => {
          await authenticate(context.request, context.set, scope);
          if (!context.request.body || context.request.headers.get("content-length") === "0") return {};
        },
        transform: async (context) => {
          await authenticate(context.request, context.set, scope);
        },
        resolve: async (context) => {
          return { caller: await authenticate(context.request, context.set, scope) };
        },
      };
    },
  });
}
