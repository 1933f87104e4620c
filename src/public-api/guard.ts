import { Elysia } from "elysia";
import { assertScope, authenticateApiKey, type ApiCaller, type ApiScope } from "../api-keys/keys";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";

/** Requests each key may make per window (IETF RateLimit fields name the policy "default"). */
export const KEY_QUOTA = 100;
export const KEY_WINDOW_MS = 10_000;

type Window = { used: number; resetAt: number };

/**
 * Per-key fixed windows, in memory on the app's clock: a restart forgets the counts, which is fine for a
 * ten-second window. Old windows are swept as calls arrive, so the map holds only keys seen lately.
 */
class KeyLimiter {
  private windows = new Map<string, Window>();
  constructor(private readonly now: () => number) {}

  take(keyId: string): { remaining: number; resetSeconds: number; allowed: boolean } {
    const now = this.now();
    if (this.windows.size > 10_000) for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    let w = this.windows.get(keyId);
    if (!w || w.resetAt <= now) {
      w = { used: 0, resetAt: now + KEY_WINDOW_MS };
      this.windows.set(keyId, w);
    }
    const allowed = w.used < KEY_QUOTA;
    if (allowed) w.used++;
    return { remaining: KEY_QUOTA - w.used, resetSeconds: Math.max(1, Math.ceil((w.resetAt - now) / 1000)), allowed };
  }
}

const POLICY = `"default";q=${KEY_QUOTA};w=${KEY_WINDOW_MS / 1000}`;

/**
 * `{ apiScope: "contacts:read" }` on a /api/v1 route: the caller's API key (never a session; session routes in
 * turn never accept a key, since keys are no sessions), counted against its rate limit, with the scope checked.
 * Like the session guard it runs before the body is read, and the key is looked up once per request.
 */
export function apiKeyGuard(ctx: AppContext) {
  const limiter = new KeyLimiter(() => ctx.now());
  const checked = new WeakMap<Request, ApiCaller>();
  const authenticate = async (request: Request, set: { headers: Record<string, unknown> }, scope: ApiScope): Promise<ApiCaller> => {
    const known = checked.get(request);
    if (known) return known;
    const caller = await authenticateApiKey(ctx, request.headers.get("authorization"));
    const { remaining, resetSeconds, allowed } = limiter.take(caller.keyId);
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
