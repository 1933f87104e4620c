import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { badRequest, forbidden, HttpError, unauthorized } from "../http/errors";
import { resolveSession, tokenFromRequest, tokenOfRequest, type ActiveSession } from "./sessions";

type Level = true | "unverified" | "admin";

/**
 * `{ auth: true }` on a route: a signed-in user with a verified email, as `user`.
 * `{ auth: "unverified" }` lets an unverified account through (the verification calls need it).
 * `{ auth: "admin" }` requires the admin role.
 *
 * The check runs before Elysia reads the body (parse) and before it validates the query and parameters
 * (transform), not only in `resolve`, which Elysia runs after parsing and validation: a caller who is not signed
 * in must not be able to make the server parse and validate a large body. The session found first is kept for
 * the request, so the three phases look it up once.
 */
export function authGuard(ctx: AppContext) {
  const checked = new WeakMap<Request, ActiveSession>();
  const authenticate = async (request: Request, level: Level): Promise<ActiveSession> => {
    const known = checked.get(request);
    if (known) return known;
    const token = tokenOfRequest(request);
    const session = token ? await resolveSession(ctx, token) : null;
    if (!session) throw unauthorized();
    if (level !== "unverified" && !session.user.emailVerified) {
      throw new HttpError(403, "Please verify your email address first", { emailVerified: false });
    }
    if (level === "admin" && session.user.role !== "admin") throw forbidden("Administrator access required");
    checked.set(request, session);
    return session;
  };
  return new Elysia({ name: "auth-guard" }).macro({
    auth(level: Level) {
      return {
        // The whole context, not a destructured one, in arrow functions: Elysia reads hook sources to decide what to
        // parse, and minified code in the single executable defeats that for a destructured parameter (every guarded
        // call failed) and for method shorthand (`resolve(r){...}` has no parameter list it can find: it printed a
        // multi-line "[Sucrose] warning" with the minified source on every signed-in call).
        // Returning nothing from parse hands the body to Elysia's own parsers; a route with `parse: "none"`
        // keeps it (Elysia drops a macro's parse hook there) and reads its own body after `resolve`.
        parse: async (context) => {
          await authenticate(context.request, level);
          // A parse hook makes Elysia parse the body of every route, also of those that declare none and never
          // read one before; an empty body under a JSON content type would then fail as invalid JSON. An empty
          // body reads as an empty object, as if none had been sent.
          if (!context.request.body || context.request.headers.get("content-length") === "0") return {};
        },
        transform: async (context) => {
          await authenticate(context.request, level);
          // Elysia's validation turns a body that is not an object ("text", 5, [], null) into {} where a route's
          // fields are all optional, so such a call would change nothing and answer 200. No route takes one.
          const body: unknown = context.body;
          if (body !== undefined && (body === null || typeof body !== "object" || Array.isArray(body))) {
            throw badRequest("The request body must be a JSON object");
          }
        },
        resolve: async (context) => {
          const session = await authenticate(context.request, level);
          return { user: session.user, sessionId: session.sessionId };
        },
      };
    },
  });
}

/** The signed-in user if any, for public calls that record who sent them. */
export async function optionalUserId(ctx: AppContext, headers: Record<string, string | undefined>, cookieToken: unknown) {
  const token = tokenFromRequest(headers, typeof cookieToken === "string" ? cookieToken : undefined);
  return token ? ((await resolveSession(ctx, token))?.user.id ?? null) : null;
}
