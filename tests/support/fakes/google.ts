/**
 * A local stand-in for Google's authorization, token and userinfo endpoints (strict about PKCE), and the whole
 * browser round trip of "Continue with Google" against a test server.
 */
import { expect } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { setCookie, type TestServer } from "../test-server";

export type Profile = { sub: string; email: string; email_verified: boolean; given_name?: string; family_name?: string; picture?: string };

export function startFakeGoogle(clientId: string, clientSecret: string) {
  const codes = new Map<string, { challenge: string; redirectUri: string; profile: Profile; used: boolean }>();
  const tokens = new Map<string, Profile>();
  const fake = {
    nextProfile: null as Profile | null,
    /** Set to make the user press "Cancel" on the consent screen. */
    deny: false,
    authorizeRequests: [] as URLSearchParams[],
    tokenRequests: [] as URLSearchParams[],
    server: Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const url = new URL(req.url);
        if (url.pathname === "/authorize") {
          const q = url.searchParams;
          fake.authorizeRequests.push(q);
          if (q.get("client_id") !== clientId || q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || !q.get("state")) {
            return new Response("bad authorization request", { status: 400 });
          }
          const back = new URL(q.get("redirect_uri")!);
          back.searchParams.set("state", q.get("state")!);
          if (fake.deny) back.searchParams.set("error", "access_denied");
          else {
            const code = randomBytes(16).toString("hex");
            codes.set(code, { challenge: q.get("code_challenge")!, redirectUri: q.get("redirect_uri")!, profile: fake.nextProfile!, used: false });
            back.searchParams.set("code", code);
          }
          return new Response(null, { status: 302, headers: { location: back.toString() } });
        }
        if (url.pathname === "/token" && req.method === "POST") {
          const form = new URLSearchParams(await req.text());
          fake.tokenRequests.push(form);
          const grant = codes.get(form.get("code") ?? "");
          const verifier = form.get("code_verifier") ?? "";
          const ok =
            grant &&
            !grant.used &&
            form.get("grant_type") === "authorization_code" &&
            form.get("client_id") === clientId &&
            form.get("client_secret") === clientSecret &&
            form.get("redirect_uri") === grant.redirectUri &&
            createHash("sha256").update(verifier).digest("base64url") === grant.challenge;
          if (!ok) return Response.json({ error: "invalid_grant" }, { status: 400 });
          grant.used = true;
          const accessToken = randomBytes(16).toString("hex");
          tokens.set(accessToken, grant.profile);
          return Response.json({ access_token: accessToken, token_type: "Bearer", expires_in: 3599, scope: "openid email profile" });
        }
        if (url.pathname === "/userinfo") {
          const profile = tokens.get((req.headers.get("authorization") ?? "").replace(/^Bearer /, ""));
          return profile ? Response.json(profile) : Response.json({ error: "invalid_token" }, { status: 401 });
        }
        return new Response("not found", { status: 404 });
      },
    }),
  };
  return fake;
}

export type FakeGoogle = ReturnType<typeof startFakeGoogle>;

export const GOOGLE_CLIENT_ID = "smsdesk-test.apps.googleusercontent.com";
export const GOOGLE_CLIENT_SECRET = "test-secret";

/** The environment that points a test server at the fake. */
export function googleEnv(fake: FakeGoogle): Record<string, string> {
  const base = `http://127.0.0.1:${fake.server.port}`;
  return {
    GOOGLE_CLIENT_ID,
    GOOGLE_CLIENT_SECRET,
    GOOGLE_AUTH_URL: `${base}/authorize`,
    GOOGLE_TOKEN_URL: `${base}/token`,
    GOOGLE_USERINFO_URL: `${base}/userinfo`,
  };
}

let subCounter = 0;
export const profileFor = (email: string, extra: Partial<Profile> = {}): Profile => ({
  sub: `1000${Date.now()}${++subCounter}`,
  email,
  email_verified: true,
  given_name: "Gina",
  family_name: "Google",
  ...extra,
});

export type GoogleTamper = { state?: (s: string) => string; dropCookie?: boolean; beforeCallback?: () => Promise<unknown> };

/** The whole browser round trip: start, consent at the fake, back to the callback with the state cookie. */
export async function googleSignIn(t: TestServer, fake: FakeGoogle, profile: Profile, tamper: GoogleTamper = {}) {
  fake.nextProfile = profile;
  const start = await t.api("/api/auth/google");
  expect(start.status).toBe(302);
  const stateCookie = setCookie(start.headers, "smsdesk_google_state")!.value;
  const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get("location")!);
  if (tamper.state) back.searchParams.set("state", tamper.state(back.searchParams.get("state")!));
  await tamper.beforeCallback?.();
  const res = await t.api(back.pathname + back.search, tamper.dropCookie ? {} : { headers: { cookie: `smsdesk_google_state=${stateCookie}` } });
  expect(res.status).toBe(302);
  return {
    res,
    location: res.headers.get("location")!,
    session: setCookie(res.headers, "smsdesk_session")?.value || null,
    pending2fa: setCookie(res.headers, "smsdesk_pending_2fa")?.value || null,
    callback: back,
  };
}
