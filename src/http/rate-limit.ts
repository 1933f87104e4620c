import { clientIp, clientKey } from "./client-ip";
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { tooManyRequests } from "./errors";

/**
 * Per-client limits on the calls that guess or spam: sign-in, sign-up, 2FA, email verification,
 * password reset, passkey sign-in, starting Google sign-in, and the open contact and error-report forms. A fixed
 * window per (rule, client: an address, or an IPv6 /64, see clientKey), held in the database (RateWindows, served by
 * src/auth/rate-windows.ts): every process of an installation counts a client together, and a restart forgets
 * nothing. Applied in one place: `rateLimit(ctx, windows)` in app.ts.
 */

export type RateRule = {
  name: string;
  /** Requests allowed per window and address. */
  limit: number;
  windowMs: number;
  methods: string[];
  match: (path: string) => boolean;
};

const MINUTE = 60_000;
const exact = (...paths: string[]) => (path: string) => paths.includes(path);
const prefix = (p: string) => (path: string) => path.startsWith(p);

/** The production limits. Order matters: the first matching rule counts the request. */
export const DEFAULT_RULES: readonly RateRule[] = [
  { name: "sign-in", limit: 10, windowMs: MINUTE, methods: ["POST"], match: exact("/api/auth/login", "/api/admin/auth/login") },
  { name: "sign-in-2fa", limit: 10, windowMs: MINUTE, methods: ["POST"], match: exact("/api/auth/login/2fa") },
  { name: "sign-up", limit: 5, windowMs: 10 * MINUTE, methods: ["POST"], match: exact("/api/auth/register") },
  { name: "two-factor", limit: 20, windowMs: 10 * MINUTE, methods: ["POST"], match: prefix("/api/auth/2fa/") },
  // A sign-up's code step (register/verify, register/resend) guesses and mails like the signed-in one.
  {
    name: "email-verification",
    limit: 20,
    windowMs: 10 * MINUTE,
    methods: ["POST"],
    match: (p) => p === "/api/auth/verify/email" || p.startsWith("/api/auth/verify/email/") || p.startsWith("/api/auth/register/"),
  },
  { name: "forgot-password", limit: 5, windowMs: 15 * MINUTE, methods: ["POST"], match: exact("/api/auth/forgot-password") },
  { name: "reset-password", limit: 10, windowMs: 15 * MINUTE, methods: ["POST"], match: exact("/api/auth/reset-password") },
  { name: "passkey-sign-in", limit: 20, windowMs: MINUTE, methods: ["POST"], match: prefix("/api/webauthn/authenticate/") },
  // Sudo mode's confirmation checks a password or a code like a sign-in: a stolen session must not guess at full speed.
  { name: "confirm", limit: 10, windowMs: MINUTE, methods: ["POST"], match: exact("/api/auth/confirm", "/api/webauthn/confirm") },
  // Each start of Google sign-in sets a state cookie and sends the browser to Google: a person needs a few.
  { name: "google-sign-in", limit: 20, windowMs: 10 * MINUTE, methods: ["GET"], match: exact("/api/auth/google") },
  // The open forms store what they receive; their daily totals are capped where they are stored too.
  { name: "contact-form", limit: 5, windowMs: 10 * MINUTE, methods: ["POST"], match: exact("/api/contact") },
  { name: "error-report", limit: 20, windowMs: 10 * MINUTE, methods: ["POST"], match: exact("/api/admin/report-error") },
];

/** Where the windows are counted: one shared store for every process (the database). */
export type RateWindows = {
  /** Counts one hit of `key` in its fixed window of `windowMs`: the hits so far in the window and when it ends. */
  hit(key: string, windowMs: number): Promise<{ hits: number; resetsAt: number }>;
  /** Forgets the windows whose keys start with `prefix`. */
  clear(prefix: string): Promise<void>;
};

/** The prefix of this limiter's keys in the store, which the API keys' windows share. */
const KEY_PREFIX = "client|";

export class RateLimiter {
  private rules: RateRule[];
  /** False switches every limit off; only the test harness does that (see tests/support/test-server.ts). */
  enabled = true;

  constructor(
    private readonly now: () => number,
    private readonly windows: RateWindows,
    rules: readonly RateRule[] = DEFAULT_RULES,
  ) {
    this.rules = rules.map((r) => ({ ...r }));
  }

  ruleFor(method: string, path: string): RateRule | undefined {
    return this.rules.find((r) => r.methods.includes(method) && r.match(path));
  }

  /** Changes one rule's limit or window (tests). */
  setRule(name: string, change: Partial<Pick<RateRule, "limit" | "windowMs">>) {
    const rule = this.rules.find((r) => r.name === name);
    if (!rule) throw new Error(`no rate rule ${name}`);
    Object.assign(rule, change);
  }

  reset(): Promise<void> {
    return this.windows.clear(KEY_PREFIX);
  }

  /**
   * The rule that counts this request, or null when none does (or the limits are off): decided in memory, so the
   * calls no rule limits (nearly all) never reach the store.
   */
  counting(method: string, path: string): RateRule | null {
    return this.enabled ? (this.ruleFor(method, path) ?? null) : null;
  }

  /** Counts one request of `rule`; answers the seconds to wait when it is over the limit, else null. */
  async count(rule: RateRule, client: string): Promise<number | null> {
    const { hits, resetsAt } = await this.windows.hit(`${KEY_PREFIX}${rule.name}|${clientKey(client)}`, rule.windowMs);
    if (hits <= rule.limit) return null;
    return Math.max(1, Math.ceil((resetsAt - this.now()) / 1000));
  }

  /** Counts one request; answers the seconds to wait when it is over the limit, else null. */
  async hit(method: string, path: string, client: string): Promise<number | null> {
    const rule = this.counting(method, path);
    return rule ? this.count(rule, client) : null;
  }
}

const limiters = new WeakMap<AppContext, RateLimiter>();

/** The limiter of this running app (one per context), made by `rateLimit` when the app is built. */
export function rateLimiterFor(ctx: AppContext): RateLimiter {
  const limiter = limiters.get(ctx);
  if (!limiter) throw new Error("the app's rate limiter is made with its routes (rateLimit in app.ts)");
  return limiter;
}


const normalizePath = (path: string) => (path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : path);

/** The plugin: `.use(rateLimit(ctx, windows))` before the routes it protects. */
export function rateLimit(ctx: AppContext, windows: RateWindows) {
  // One per context: building the routes again (a test reading the route table) keeps the running app's limiter.
  let limiter = limiters.get(ctx);
  if (!limiter) limiters.set(ctx, (limiter = new RateLimiter(() => ctx.now(), windows)));
  // Async (Elysia awaits the hook on every request): a call no rule counts answers at once, without the store.
  return new Elysia().onRequest(async ({ request, server }) => {
    const rule = limiter.counting(request.method, normalizePath(new URL(request.url).pathname));
    if (!rule) return;
    const wait = await limiter.count(rule, clientIp(request, server));
    if (wait !== null) throw tooManyRequests(`Too many requests. Please try again in ${wait} seconds.`, wait);
  });
}
