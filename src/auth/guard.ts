import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { forbidden, HttpError, unauthorized } from "../http/errors";
import { resolveSession, tokenFromRequest, tokenOfRequest } from "./sessions";

/**
 * `{ auth: true }` on a route: a signed-in user with a verified email, as `user`.
 * `{ auth: "unverified" }` lets an unverified account through (the verification calls need it).
 * `{ auth: "admin" }` requires the admin role.
 */
export function authGuard(ctx: AppContext) {
  return new Elysia({ name: "auth-guard" }).macro({
    auth(level: true | "unverified" | "admin") {
      return {
        // The whole context, not a destructured one: Elysia reads handler sources to decide what to parse, and
        // minified code in the single executable defeated that for this resolver (every guarded call failed).
        resolve(context) {
          const token = tokenOfRequest(context.request);
          const session = token ? resolveSession(ctx, token) : null;
          if (!session) throw unauthorized();
          if (level !== "unverified" && !session.user.emailVerified) {
            throw new HttpError(403, "Please verify your email address first", { emailVerified: false });
          }
          if (level === "admin" && session.user.role !== "admin") throw forbidden("Administrator access required");
          return { user: session.user, sessionId: session.sessionId };
        },
      };
    },
  });
}

/** The signed-in user if any, for public calls that record who sent them. */
export function optionalUserId(ctx: AppContext, headers: Record<string, string | undefined>, cookieToken: unknown) {
  const token = tokenFromRequest(headers, typeof cookieToken === "string" ? cookieToken : undefined);
  return token ? (resolveSession(ctx, token)?.user.id ?? null) : null;
}
