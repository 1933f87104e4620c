import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config";
import { generateSync } from "otplib";
import {
  GOOGLE_CLIENT_ID as CLIENT_ID,
  GOOGLE_CLIENT_SECRET as CLIENT_SECRET,
  googleEnv,
  googleSignIn as roundTrip,
  profileFor,
  startFakeGoogle,
  type GoogleTamper,
  type Profile,
} from "../support/fakes/google";
import { setCookie, startTestServer, type TestServer } from "../support/test-server";

let fake: ReturnType<typeof startFakeGoogle>;
let t: TestServer;
let plain: TestServer;

beforeAll(async () => {
  fake = startFakeGoogle(CLIENT_ID, CLIENT_SECRET);
  t = await startTestServer({ env: googleEnv(fake) });
  plain = await startTestServer({ smtp: false });
});
afterAll(async () => {
  await t?.stop();
  await plain?.stop();
  fake?.server.stop(true);
});

const googleSignIn = (profile: Profile, tamper: GoogleTamper = {}) => roundTrip(t, fake, profile, tamper);

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
      expect(res.body).toEqual({ message: "Google sign-in is not configured", code: "not_found" });
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
    expect(q.get("redirect_uri")).toBe(`${t.ctx.config.publicUrl}/api/auth/google/callback`);
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")!.length).toBeGreaterThanOrEqual(32);
    const cookie = setCookie(res.headers, "smsdesk_google_state")!;
    expect(cookie.value).toBe(q.get("state")!);
    expect(cookie.attributes).toMatch(/HttpOnly/i);
    // A new state each time, never the verifier in the URL.
    const again = new URL((await t.api("/api/auth/google")).headers.get("location")!);
    expect(again.searchParams.get("state")).not.toBe(q.get("state"));
    const row = (await t.ctx.records.$rows<{ challenge: string; expires_at: number }>("select challenge, expires_at from auth_challenges where kind = 'google' order by expires_at desc limit 1"))[0]!;
    expect(url.toString()).not.toContain(row.challenge);
    expect(row.expires_at - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(row.expires_at - Date.now()).toBeLessThanOrEqual(10 * 60_000);
  });

  test("a new Google user gets an account (provider google, verified, no password), a session, and the setup wizard next", async () => {
    const email = t.newEmail("gnew");
    const { location, session } = await googleSignIn(profileFor(email));
    // As after an email's verification (issue 28 item 2): the wizard, not home; the account has no answers yet.
    expect(location).toBe("/onboarding");
    expect((await t.api("/api/auth/user", { cookie: session! })).body).toMatchObject({ onboarding: null, onboardedAt: null });
    expect(session).toBeTruthy();
    const me = await t.api("/api/auth/user", { cookie: session! });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, emailVerified: true, authProvider: "google", firstName: "Gina", lastName: "Google" });
    const row = (await t.ctx.records.$rows<{ password_hash: string | null }>("select password_hash from users where email = ?", [email]))[0]!;
    expect(row.password_hash).toBeNull();
    // The token exchange carried the verifier and the client secret.
    const form = fake.tokenRequests.at(-1)!;
    expect(form.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(form.get("client_secret")).toBe(CLIENT_SECRET);

    // Registering with that email answers as for a new one and tells the owner to use Google; a password sign-in
    // answers as for any wrong password (sign-in-uniform.test.ts): neither tells anyone who signs in with Google.
    const reg = await t.api("/api/auth/register", { body: { email, password: "secret123", confirmPassword: "secret123" } });
    expect(reg.status).toBe(201);
    expect(reg.body.message).toBe(`We sent a 6-digit code to ${email}. Enter it to finish creating your account.`);
    const notice = await t.waitForEmail(email, 3000, { match: /already have/ });
    expect(notice.text).toContain(`To use your account, sign in with Google at ${t.ctx.config.publicUrl}/auth.`);
    const login = await t.api("/api/auth/login", { body: { email, password: "secret123" } });
    expect(login.status).toBe(401);
    expect(login.body).toEqual({ message: "Invalid credentials", code: "unauthorized" });
  });

  test("the same Google identity signs in to the same account, even after an email change at Google", async () => {
    const profile = profileFor(t.newEmail("gsame"));
    const first = await googleSignIn(profile);
    const firstUser = (await t.api("/api/auth/user", { cookie: first.session! })).body;
    const second = await googleSignIn({ ...profile, email: t.newEmail("gsame-renamed") });
    const secondUser = (await t.api("/api/auth/user", { cookie: second.session! })).body;
    expect(secondUser.id).toBe(firstUser.id);
    expect(secondUser.email).toBe(profile.email);
    // Only the sign-in that made the account opens the wizard: the next ones go home.
    expect([first.location, second.location]).toEqual(["/onboarding", "/?auth=google"]);
  });

  test("a verified password account with the same email is linked, and its password and sessions still work", async () => {
    const account = await t.signUpVerified(t.newEmail("glink"));
    const profile = profileFor(account.email.toUpperCase());
    const { location, session } = await googleSignIn(profile);
    expect(location).toBe("/?auth=google");
    const me = (await t.api("/api/auth/user", { cookie: session! })).body;
    expect(me.id).toBe(account.user.id);
    expect(me.authProvider).toBe("password");
    const sec = (await t.ctx.records.$rows<{ google_subject: string }>("select google_subject from user_security where user_id = ?", [account.user.id]))[0]!;
    expect(sec.google_subject).toBe(profile.sub);
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: account.password } })).status).toBe(200);
    expect((await t.api("/api/auth/user", { token: account.token })).status).toBe(200);
  });

  test("an unverified password account (pre-registered by an attacker) is claimed: its password and sessions stop working", async () => {
    const victim = t.newEmail("gvictim");
    const attacker = await t.signUp(victim, "attacker-pass"); // never verified: the attacker cannot read the mailbox
    expect((await t.api("/api/auth/user", { token: attacker.token })).status).toBe(200);

    const { location, session } = await googleSignIn(profileFor(victim));
    // Never verified, so never past the wizard: it comes next, as for a new account.
    expect(location).toBe("/onboarding");
    const me = await t.api("/api/auth/user", { cookie: session! });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: attacker.user.id, email: victim, emailVerified: true, authProvider: "google" });

    // The attacker's session ends and their password no longer signs in.
    const old = await t.api("/api/auth/user", { token: attacker.token });
    expect(old.status).toBe(401);
    const login = await t.api("/api/auth/login", { body: { email: victim, password: "attacker-pass" } });
    expect(login.status).toBe(401);
    expect(login.body).toEqual({ message: "Invalid credentials", code: "unauthorized" });
    const row = (await t.ctx.records.$rows<{ password_hash: string | null }>("select password_hash from users where id = ?", [attacker.user.id]))[0]!;
    expect(row.password_hash).toBeNull();
    // The owner's own Google session is the one that works.
    expect((await t.api("/api/auth/user", { cookie: session! })).status).toBe(200);
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
    expect(await t.ctx.records.$rows("select id from users where email = ?", [email])).toEqual([]);
  });

  test("Google sign-in on an account with 2FA asks for the code: no session before it, a session after", async () => {
    const account = await t.confirm(await t.signUpVerified(t.newEmail("g2fa")));
    const setup = await t.api("/api/auth/2fa/setup", { method: "POST", token: account.token });
    const secret = setup.body.secret as string;
    expect((await t.api("/api/auth/2fa/enable", { body: { token: generateSync({ secret }) }, token: account.token })).status).toBe(200);

    const { location, session, pending2fa, res } = await googleSignIn(profileFor(account.email));
    expect(location).toBe("/auth?step=2fa");
    expect(session).toBeNull();
    expect(pending2fa).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const attributes = setCookie(res.headers, "smsdesk_pending_2fa")!.attributes;
    expect(attributes).toMatch(/HttpOnly/i);
    expect(attributes).toMatch(/Path=\/api\/auth\/login\/2fa/i);
    expect(attributes).toMatch(/Max-Age=300/i);

    const pendingCookie = { cookie: `smsdesk_pending_2fa=${pending2fa}` };
    // A code is still needed, and a wrong one is refused.
    const wrong = await t.api("/api/auth/login/2fa", { body: { token: "000000" }, headers: pendingCookie });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe("Invalid verification code");
    // Later in the same 30 s window would be a replay of the enabling code: next window.
    const later = Math.floor(Date.now() / 30_000) * 30 + 30;
    const code = generateSync({ secret, epoch: later });
    const realNow = t.ctx.now;
    t.ctx.now = () => later * 1000 + 1000;
    try {
      const ok = await t.api("/api/auth/login/2fa", { body: { token: code }, headers: pendingCookie });
      expect(ok.status).toBe(200);
      expect(ok.body.user.id).toBe(account.user.id);
      expect((await t.api("/api/auth/user", { token: ok.body.token })).status).toBe(200);
      // The pending sign-in is single use.
      const again = await t.api("/api/auth/login/2fa", { body: { token: code }, headers: pendingCookie });
      expect(again.status).toBe(401);
      expect(again.body.message).toBe("Your sign-in has expired. Please sign in again.");
    } finally {
      t.ctx.now = realNow;
    }
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
    expect(first.location).toBe("/onboarding");
    const cookie = `smsdesk_google_state=${first.callback.searchParams.get("state")}`;
    const replay = await t.api(first.callback.pathname + first.callback.search, { headers: { cookie } });
    expect(errorOf(replay.headers.get("location")!)).toBe("Google sign-in expired or did not start here. Please try again.");
    expect(setCookie(replay.headers, "smsdesk_session")?.value || null).toBeNull();
  });

  test("a wrong PKCE verifier fails the token exchange", async () => {
    const email = t.newEmail("gpkce");
    const { location, session } = await googleSignIn(profileFor(email), {
      beforeCallback: () => t.ctx.records.$run("update auth_challenges set challenge = 'not-the-verifier-not-the-verifier-not-the-v' where kind = 'google'"),
    });
    expect(errorOf(location)).toBe("Google sign-in failed. Please try again.");
    expect(session).toBeNull();
    expect(await t.ctx.records.$rows("select id from users where email = ?", [email])).toEqual([]);
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
      beforeCallback: () => t.ctx.records.$run("update auth_challenges set expires_at = ? where kind = 'google'", [Date.now() - 1000]),
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
