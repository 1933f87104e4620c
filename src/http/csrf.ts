import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { isProviderWebhook } from "./body-limit";
import { HttpError } from "./errors";

const CHANGES_STATE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The origin of a URL-ish header value, or null when it is absent, "null" (sandboxed, file:) or not a URL. */
function originOf(value: string | null): string | null {
  if (!value || value === "null") return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/** True when the request proves itself with a token a cross-site page cannot attach (only a cookie rides along). */
function carriesToken(headers: Headers): boolean {
  const auth = headers.get("authorization");
  return !!(auth?.startsWith("Bearer ") && auth.slice(7).trim()) || !!headers.get("x-auth-token")?.trim();
}

/**
 * Cross-site request forgery: a browser attaches the session cookie to a form or fetch from any site, so every
 * state-changing /api call without a token header must come from a page of PUBLIC_URL's origin, as its Origin
 * header says (else its Referer). Neither present, or another origin: 403. Sign-in and sign-up are covered too,
 * since they set the cookie. Provider webhooks are machine-to-machine, authenticated by their signatures.
 * Applied in one place: `.use(csrf(ctx))` in app.ts.
 */
export function csrf(ctx: AppContext) {
  let cachedUrl = "";
  let publicOrigin = "";
  return new Elysia().onRequest(({ request }) => {
    if (!CHANGES_STATE.has(request.method)) return;
    const path = new URL(request.url).pathname;
    if (!path.startsWith("/api/") || isProviderWebhook(path)) return;
    if (carriesToken(request.headers)) return;
    // Read per request: with PORT=0 the public URL learns its port only once the server listens.
    if (cachedUrl !== ctx.config.publicUrl) publicOrigin = new URL((cachedUrl = ctx.config.publicUrl)).origin;
    const origin = request.headers.has("origin") ? originOf(request.headers.get("origin")) : originOf(request.headers.get("referer"));
    if (origin === publicOrigin) return;
    throw new HttpError(403, `Cross-site request refused: open smsdesk at ${publicOrigin}`, { code: "csrf" });
  });
}
