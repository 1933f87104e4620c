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
  relyingParty,
} from "./passkeys";
import { HttpError } from "../http/errors";
import { confirmIdentity, reauthFields, RECENT_CONFIRMATION_MS, requireRecentConfirmation } from "./reauth";
import { confirmSession, createSession, setSessionCookies } from "./sessions";

const NOT_YOURS = "This passkey belongs to another account";

const b64url = (maxLength: number) => t.String({ maxLength, pattern: "^[A-Za-z0-9_=-]*$" });

/**
 * A WebAuthn credential as @simplewebauthn/browser returns it; the library checks the inside. Every field has a
 * bound well above what any authenticator produces, so an oversized body is refused (400) before any decoding:
 * unbounded fields cost seconds of parsing CBOR and base64 per request.
 */
const credentialShape = t.Object(
  {
    id: b64url(1024),
    rawId: b64url(1024),
    type: t.Literal("public-key"),
    authenticatorAttachment: t.Optional(t.Nullable(t.String({ maxLength: 40 }))),
    clientExtensionResults: t.Optional(
      t.Object(
        { credProps: t.Optional(t.Object({ rk: t.Optional(t.Boolean()) })) },
        { additionalProperties: t.Union([t.Boolean(), t.String({ maxLength: 512 }), t.Null()]), maxProperties: 8 },
      ),
    ),
    response: t.Object(
      {
        clientDataJSON: t.Optional(b64url(4096)),
        attestationObject: t.Optional(b64url(16_384)),
        authenticatorData: t.Optional(b64url(4096)),
        // ML-DSA-87 signatures are 4,627 bytes (6,170 characters); Chromium's own authenticator signs with ML-DSA-44.
        signature: t.Optional(b64url(8192)),
        userHandle: t.Optional(t.Nullable(b64url(512))),
        publicKey: t.Optional(b64url(4096)),
        publicKeyAlgorithm: t.Optional(t.Integer()),
        transports: t.Optional(t.Array(t.String({ maxLength: 40 }), { maxItems: 10 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, error: "Invalid passkey response" },
);

export function passkeyRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/webauthn" })
    .use(authGuard(ctx))
    // POST /api/webauthn/register/begin
    // A new passkey signs in on its own, so the session must prove its holder again.
    .post(
      "/register/begin",
      async ({ user, sessionId, body, request }) => {
        relyingParty(ctx); // a misconfigured appliance says so before anyone types a password for nothing
        await confirmIdentity(ctx, user, sessionId, body, "to add a passkey", clientIp(request));
        return beginRegistration(ctx, user);
      },
      { auth: true, body: t.Optional(t.Object(reauthFields)) },
    )
    // POST /api/webauthn/register/complete
    .post(
      "/register/complete",
      ({ user, body }) =>
        completeRegistration(ctx, user, body.credential as unknown as RegistrationResponseJSON, body.friendlyName),
      {
        auth: true,
        body: t.Object({ credential: credentialShape, friendlyName: t.Optional(t.Nullable(t.String({ maxLength: 100 }))) }),
      },
    )
    // POST /api/webauthn/authenticate/begin
    // Usernameless: an email, if a client still sends one, is not looked at, so the answer is the same for any.
    .post("/authenticate/begin", () => beginAuthentication(ctx), {
      body: t.Optional(t.Object({ email: t.Optional(t.Nullable(t.String({ maxLength: 254 }))) })),
    })
    // POST /api/webauthn/authenticate/complete
    .post(
      "/authenticate/complete",
      async ({ body, headers, cookie, request }) => {
        const user = await completeAuthentication(ctx, body.credential as unknown as AuthenticationResponseJSON);
        const session = await createSession(ctx, user.id, {
          userAgent: headers["user-agent"],
          ip: clientIp(request),
        });
        setSessionCookies(ctx, cookie, session.token, session.expiresAt);
        return { verified: true, user: publicUser(user), token: session.token };
      },
      { body: t.Object({ credential: credentialShape }) },
    )
    // POST /api/webauthn/confirm
    // Sudo mode (reauth.ts) by one of this account's passkeys, after POST /api/webauthn/authenticate/begin.
    .post(
      "/confirm",
      async ({ user, sessionId, body }) => {
        const owner = await completeAuthentication(ctx, body.credential as unknown as AuthenticationResponseJSON);
        if (owner.id !== user.id) throw new HttpError(400, NOT_YOURS, { verified: false, error: NOT_YOURS });
        await confirmSession(ctx, sessionId);
        return { verified: true, confirmedUntil: new Date(ctx.now() + RECENT_CONFIRMATION_MS).toISOString() };
      },
      { auth: true, body: t.Object({ credential: credentialShape }) },
    )
    // GET /api/webauthn/authenticators
    .get("/authenticators", ({ user }) => listPasskeys(ctx, user.id), { auth: true })
    // DELETE /api/webauthn/authenticators/:id
    .delete(
      "/authenticators/:id",
      async ({ user, sessionId, params }) => {
        await requireRecentConfirmation(ctx, user, sessionId, "to remove a passkey");
        await deletePasskey(ctx, user.id, params.id);
        return { success: true };
      },
      { auth: true },
    );
}
