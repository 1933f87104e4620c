import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { ConfigError, loadConfig } from "../../src/config";
import { setCookie, startTestServer, type TestServer } from "../support/test-server";

type Profile = { sub: string; email: string; email_verified: boolean; given_name?: string; family_name?: string; picture?: string };

/** A local stand-in for Google's authorization, token and userinfo endpoints, strict about PKCE. */
function startFakeGoogle(clientId: string, clientSecret: string) {
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

const CLIENT_ID = "smsdesk-test.apps.googleusercontent.com";
const CLIENT_SECRET = "test-secret";
let fake: ReturnType<typeof startFakeGoogle>;
let t: TestServer;
let plain: TestServer;

beforeAll(async () => {
  fake = startFakeGoogle(CLIENT_ID, CLIENT_SECRET);
  const base = `http://127.0.0.1:${fake.server.port}`;
  t = await startTestServer({
    env: {
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
      GOOGLE_AUTH_URL: `${base}/authorize`,
      GOOGLE_TOKEN_URL: `${base}/token`,
      GOOGLE_USERINFO_URL: `${base}/userinfo`,
    },
  });
  plain = await startTestServer({ smtp: false });
});
afterAll(async () => {
  await t?.stop();
  await plain?.stop();
  fake?.server.stop(true);
});

let subCounter = 0;
const profileFor = (email: string, extra: Partial<Profile> = {}): Profile => ({
  sub: `1000${Date.now()}${++subCounter}`,
  email,
  email_verified: true,
  given_name: "Gina",
  family_name: "Google",
  ...extra,
});

/** The whole browser round trip: start, consent at the fake, back to the callback with the state cookie. */
async function googleSignIn(profile: Profile, tamper: { state?: (s: string) => string; dropCookie?: boolean; beforeCallback?: () => void } = {}) {
  fake.nextProfile = profile;
  const start = await t.api("/api/auth/google");
  expect(start.status).toBe(302);
  const stateCookie = setCookie(start.headers, "smsdesk_google_state")!.value;
  const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get("location")!);
  if (tamper.state) back.searchParams.set("state", tamper.state(back.searchParams.get("state")!));
  tamper.beforeCallback?.();
  const res = await t.api(back.pathname + back.search, tamper.dropCookie ? {} : { headers: { cookie: `smsdesk_google_state=${stateCookie}` } });
  expect(res.status).toBe(302);
  return { res, location: res.headers.get("location")!, session: setCookie(res.headers, "smsdesk_session")?.value || null, callback: back };
}

const errorOf = (location: string) => {
  const url = new URL(location, "http://x");
  expect(url.pathname).toBe("/auth");
  return url.searchParams.get("error");
};

describe("when Google is not configured", () => {
  test("providers says google: false, so the UI hides the button", async () => {
    const res = await plain.api("/api/auth/providers");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ google: false });
  });

  test("/api/auth/google and its callback answer 404 'Google sign-in is not configured'", async () => {
    for (const path of ["/api/auth/google", "/api/auth/google/callback?code=a&state=b"]) {
      const res = await plain.api(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Google sign-in is not configured" });
    }
  });
});

describe("when Google is configured", () => {
  test("providers says google: true", async () => {
    expect((await t.api("/api/auth/providers")).body).toEqual({ google: true });
  });

  test("/api/auth/google redirects to the authorization endpoint with code, scope, state and PKCE S256", async () => {
    const res = await t.api("/api/auth/google");
    expect(res.status).toBe(302);
    const url = new URL(res.headers.get("location")!);
    expect(`${url.origin}${url.pathname}`).toBe(`http://127.0.0.1:${fake.server.port}/authorize`);
    const q = url.searchParams;
    expect(q.get("client_id")).toBe(CLIENT_ID);
    expect(q.get("response_type")).toBe("code");
    expect(q.get("scope")).toBe("openid email profile");
    expect(q.get("redirect_uri")).toBe(`${t.url}/api/auth/google/callback`);
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")!.length).toBeGreaterThanOrEqual(32);
    const cookie = setCookie(res.headers, "smsdesk_google_state")!;
    expect(cookie.value).toBe(q.get("state")!);
    expect(cookie.attributes).toMatch(/HttpOnly/i);
    // A new state each time, never the verifier in the URL.
    const again = new URL((await t.api("/api/auth/google")).headers.get("location")!);
    expect(again.searchParams.get("state")).not.toBe(q.get("state"));
    const row = t.ctx.db.$client.query("select challenge, expires_at from auth_challenges where kind = 'google' order by expires_at desc limit 1").get() as { challenge: string; expires_at: number };
    expect(url.toString()).not.toContain(row.challenge);
    expect(row.expires_at - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(row.expires_at - Date.now()).toBeLessThanOrEqual(10 * 60_000);
  });

  test("a new Google user gets an account (provider google, verified, no password) and a session", async () => {
    const email = t.newEmail("gnew");
    const { location, session } = await googleSignIn(profileFor(email));
    expect(location).toBe("/?auth=google");
    expect(session).toBeTruthy();
    const me = await t.api("/api/auth/user", { cookie: session! });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, emailVerified: true, authProvider: "google", firstName: "Gina", lastName: "Google" });
    const row = t.ctx.db.$client.query("select password_hash from users where email = ?").get(email) as { password_hash: string | null };
    expect(row.password_hash).toBeNull();
    // The token exchange carried the verifier and the client secret.
    const form = fake.tokenRequests.at(-1)!;
    expect(form.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(form.get("client_secret")).toBe(CLIENT_SECRET);

    // Registering with that email says it belongs to Google; a password login says the same.
    const reg = await t.api("/api/auth/register", { body: { email, password: "secret123", confirmPassword: "secret123" } });
    expect(reg.status).toBe(409);
    expect(reg.body.authProvider).toBe("google");
    const login = await t.api("/api/auth/login", { body: { email, password: "secret123" } });
    expect(login.body.authProvider).toBe("google");
  });

  test("the same Google identity signs in to the same account, even after an email change at Google", async () => {
    const profile = profileFor(t.newEmail("gsame"));
    const first = await googleSignIn(profile);
    const firstUser = (await t.api("/api/auth/user", { cookie: first.session! })).body;
    const second = await googleSignIn({ ...profile, email: t.newEmail("gsame-renamed") });
    const secondUser = (await t.api("/api/auth/user", { cookie: second.session! })).body;
    expect(secondUser.id).toBe(firstUser.id);
    expect(secondUser.email).toBe(profile.email);
  });

  test("an existing password account with the same verified email is linked, and its password still works", async () => {
    const account = await t.signUp(t.newEmail("glink")); // not yet verified by code
    const profile = profileFor(account.email.toUpperCase());
    const { location, session } = await googleSignIn(profile);
    expect(location).toBe("/?auth=google");
    const me = (await t.api("/api/auth/user", { cookie: session! })).body;
    expect(me.id).toBe(account.user.id);
    expect(me.emailVerified).toBe(true);
    expect(me.authProvider).toBe("password");
    const sec = t.ctx.db.$client.query("select google_subject from user_security where user_id = ?").get(account.user.id) as { google_subject: string };
    expect(sec.google_subject).toBe(profile.sub);
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: account.password } })).status).toBe(200);
  });

  test("a different Google identity cannot take over an account already linked to another one", async () => {
    const email = t.newEmail("gother");
    await googleSignIn(profileFor(email));
    const { location, session } = await googleSignIn(profileFor(email));
    expect(errorOf(location)).toBe("This account is linked to a different Google account.");
    expect(session).toBeNull();
  });

  test("an unverified Google email is refused", async () => {
    const email = t.newEmail("gunverified");
    const { location, session } = await googleSignIn(profileFor(email, { email_verified: false }));
    expect(errorOf(location)).toBe("Your Google account's email address is not verified.");
    expect(session).toBeNull();
    expect(t.ctx.db.$client.query("select id from users where email = ?").get(email)).toBeNull();
  });

  test("a password account with two-factor authentication is not linked silently", async () => {
    const account = await t.signUpVerified(t.newEmail("g2fa"));
    t.ctx.db.$client
      .query("insert into user_security (user_id, totp_enabled_at) values (?, ?) on conflict(user_id) do update set totp_enabled_at = excluded.totp_enabled_at")
      .run(account.user.id, Date.now());
    const { location, session } = await googleSignIn(profileFor(account.email));
    expect(errorOf(location)).toContain("two-factor authentication");
    expect(session).toBeNull();
  });

  test("a state that does not match is rejected: no exchange, no session", async () => {
    const before = fake.tokenRequests.length;
    const { location, session } = await googleSignIn(profileFor(t.newEmail("gstate")), { state: (s) => s.slice(0, -2) + (s.endsWith("AA") ? "BB" : "AA") });
    expect(errorOf(location)).toBe("Google sign-in expired or did not start here. Please try again.");
    expect(session).toBeNull();
    expect(fake.tokenRequests.length).toBe(before);
  });

  test("a callback without the state cookie of the browser that started it is rejected", async () => {
    const { location, session } = await googleSignIn(profileFor(t.newEmail("gcsrf")), { dropCookie: true });
    expect(errorOf(location)).toBe("Google sign-in expired or did not start here. Please try again.");
    expect(session).toBeNull();
  });

  test("a state is used once", async () => {
    const first = await googleSignIn(profileFor(t.newEmail("greplay")));
    expect(first.location).toBe("/?auth=google");
    const cookie = `smsdesk_google_state=${first.callback.searchParams.get("state")}`;
    const replay = await t.api(first.callback.pathname + first.callback.search, { headers: { cookie } });
    expect(errorOf(replay.headers.get("location")!)).toBeTruthy();
    expect(setCookie(replay.headers, "smsdesk_session")?.value || null).toBeNull();
  });

  test("a wrong PKCE verifier fails the token exchange", async () => {
    const email = t.newEmail("gpkce");
    const { location, session } = await googleSignIn(profileFor(email), {
      beforeCallback: () => t.ctx.db.$client.query("update auth_challenges set challenge = 'not-the-verifier-not-the-verifier-not-the-v' where kind = 'google'").run(),
    });
    expect(errorOf(location)).toBe("Google sign-in failed. Please try again.");
    expect(session).toBeNull();
    expect(t.ctx.db.$client.query("select id from users where email = ?").get(email)).toBeNull();
  });

  test("cancelling at Google comes back with a readable message", async () => {
    fake.deny = true;
    try {
      const { location, session } = await googleSignIn(profileFor(t.newEmail("gdeny")));
      expect(errorOf(location)).toBe("Google sign-in was cancelled.");
      expect(session).toBeNull();
    } finally {
      fake.deny = false;
    }
  });

  test("an expired state is rejected", async () => {
    const { location } = await googleSignIn(profileFor(t.newEmail("gexpired")), {
      beforeCallback: () => t.ctx.db.$client.query("update auth_challenges set expires_at = ? where kind = 'google'").run(Date.now() - 1000),
    });
    expect(errorOf(location)).toBe("Google sign-in expired or did not start here. Please try again.");
  });
});

describe("configuration", () => {
  test("Google is on only with both the client id and the secret; endpoints default to Google's", () => {
    expect(loadConfig({ GOOGLE_CLIENT_ID: "id" }, []).google).toBeNull();
    expect(loadConfig({ GOOGLE_CLIENT_SECRET: "s" }, []).google).toBeNull();
    expect(loadConfig({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s" }, []).google).toEqual({
      clientId: "id",
      clientSecret: "s",
      authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
      tokenUrl: "https://oauth2.googleapis.com/token",
      userinfoUrl: "https://openidconnect.googleapis.com/v1/userinfo",
    });
  });

  test("an endpoint override that is not a URL is a configuration error", () => {
    expect(() => loadConfig({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s", GOOGLE_TOKEN_URL: "nope" }, [])).toThrow(ConfigError);
    expect(() => loadConfig({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s", GOOGLE_TOKEN_URL: "nope" }, [])).toThrow("GOOGLE_TOKEN_URL");
  });
});
