import { clientIp, clientKey } from "./client-ip";
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { tooManyRequests } from "./errors";

/**
 * Per-client limits on the calls that guess or spam: sign-in, sign-up, 2FA, email verification,
 * password reset, passkey sign-in, starting Google sign-in, and the open contact and error-report forms. A fixed
 * window per (rule, client: an address, or an IPv6 /64, see clientKey), in memory: a restart forgets the counts, which is fine for limits measured in
 * minutes. Applied in one place: `rateLimit(ctx)` in app.ts.
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

type Bucket = { count: number; resetAt: number };

export class RateLimiter {
  private buckets = new Map<string, Bucket>();
  private rules: RateRule[];
  private checks = 0;
  /** False switches every limit off; only the test harness does that (see tests/support/test-server.ts). */
  enabled = true;

  constructor(
    private readonly now: () => number,
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

  reset() {
    this.buckets.clear();
  }

  /** Counts one request; answers the seconds to wait when it is over the limit, else null. */
  hit(method: string, path: string, client: string): number | null {
    if (!this.enabled) return null;
    const rule = this.ruleFor(method, path);
    if (!rule) return null;
    const now = this.now();
    if (++this.checks % 1000 === 0) this.sweep(now);
    const key = `${rule.name}|${clientKey(client)}`;
    let bucket = this.buckets.get(key);
    if (!bucket || bucket.resetAt <= now) {
      bucket = { count: 0, resetAt: now + rule.windowMs };
      this.buckets.set(key, bucket);
    }
    bucket.count++;
    if (bucket.count <= rule.limit) return null;
    return Math.max(1, Math.ceil((bucket.resetAt - now) / 1000));
  }

  private sweep(now: number) {
    for (const [key, bucket] of this.buckets) if (bucket.resetAt <= now) this.buckets.delete(key);
  }
}

const limiters = new WeakMap<AppContext, RateLimiter>();

/** The limiter of this running app (one per context), created on first use. */
export function rateLimiterFor(ctx: AppContext): RateLimiter {
  let limiter = limiters.get(ctx);
  if (!limiter) limiters.set(ctx, (limiter = new RateLimiter(() => ctx.now())));
  return limiter;
}


const normalizePath = (path: string) => (path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : path);

/** The plugin: `.use(rateLimit(ctx))` before the routes it protects. */
export function rateLimit(ctx: AppContext) {
  const limiter = rateLimiterFor(ctx);
  return new Elysia().onRequest(({ request, server }) => {
    const path = normalizePath(new URL(request.url).pathname);
    const wait = limiter.hit(request.method, path, clientIp(request, server));
    if (wait !== null) throw tooManyRequests(`Too many requests. Please try again in ${wait} seconds.`, wait);
  });
}
