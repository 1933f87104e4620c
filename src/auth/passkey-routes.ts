import { Elysia, t } from "elysia";
import { clientIp } from "../http/client-ip";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { AppContext } from "../context";
import { publicUser } from "../users/queries";
import { authGuard } from "./guard";
import {
  beginAuthentication,
  beginRegistration,
  completeAuthentication,
  completeRegistration,
  deletePasskey,
  listPasskeys,
} from "./passkeys";
import { createSession, SESSION_COOKIE, sessionCookie } from "./sessions";

/** A WebAuthn credential as @simplewebauthn/browser returns it; the library checks the inside. */
const credentialShape = t.Object(
  {
    id: t.String({ minLength: 1, maxLength: 2048 }),
    rawId: t.String({ maxLength: 2048 }),
    type: t.String({ maxLength: 40 }),
    response: t.Record(t.String(), t.Any()),
  },
  { additionalProperties: true, error: "Invalid passkey response" },
);

export function passkeyRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/webauthn" })
    .use(authGuard(ctx))
    .post("/register/begin", ({ user }) => beginRegistration(ctx, user), { auth: true })
    .post(
      "/register/complete",
      ({ user, body }) =>
        completeRegistration(ctx, user, body.credential as unknown as RegistrationResponseJSON, body.friendlyName),
      {
        auth: true,
        body: t.Object({ credential: credentialShape, friendlyName: t.Optional(t.Nullable(t.String({ maxLength: 100 }))) }),
      },
    )
    .post("/authenticate/begin", ({ body }) => beginAuthentication(ctx, body.email?.trim() ?? ""), {
      body: t.Object({ email: t.Optional(t.Nullable(t.String({ maxLength: 254 }))) }),
    })
    .post(
      "/authenticate/complete",
      async ({ body, headers, cookie, request }) => {
        const user = await completeAuthentication(ctx, body.credential as unknown as AuthenticationResponseJSON);
        const session = createSession(ctx, user.id, {
          userAgent: headers["user-agent"],
          ip: clientIp(request),
        });
        cookie[SESSION_COOKIE]!.set(sessionCookie(ctx, session.token, session.expiresAt));
        return { verified: true, user: publicUser(user), token: session.token };
      },
      { body: t.Object({ credential: credentialShape }) },
    )
    .get("/authenticators", ({ user }) => listPasskeys(ctx, user.id), { auth: true })
    .delete(
      "/authenticators/:id",
      ({ user, params }) => {
        deletePasskey(ctx, user.id, params.id);
        return { success: true };
      },
      { auth: true },
    );
}
