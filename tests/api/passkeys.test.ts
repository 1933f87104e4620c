import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { SoftAuthenticator } from "../support/soft-authenticator";
import { setCookie, startTestServer, type Account, type ApiResponse, type TestServer } from "../support/test-server";

let t: TestServer;
let alice: Account;
let bob: Account;
let device: SoftAuthenticator;
/** The origin browsers sign: PUBLIC_URL (localhost, a relying party browsers accept), not the 127.0.0.1 we call. */
let origin: string;
beforeAll(async () => {
  t = await startTestServer({ env: { PUBLIC_URL: "http://localhost:0" } });
  origin = t.ctx.config.publicUrl;
  alice = await t.signUpVerified(t.newEmail("alice"));
  bob = await t.signUpVerified(t.newEmail("bob"));
  device = new SoftAuthenticator(origin);
});
afterAll(() => t?.stop());

/** Adding a passkey asks for the account password again. */
const begin = (account: Account) => t.api("/api/webauthn/register/begin", { body: { password: account.password }, token: account.token });
const complete = (token: string, credential: unknown, friendlyName?: string) =>
  t.api("/api/webauthn/register/complete", { body: { credential, friendlyName }, token });
const loginBegin = (email: unknown) => t.api("/api/webauthn/authenticate/begin", { body: { email } });
const loginComplete = (credential: unknown) => t.api("/api/webauthn/authenticate/complete", { body: { credential } });

async function registerPasskey(account: Account, name?: string, authenticator = device) {
  const options = (await begin(account)).body;
  const credential = await authenticator.register(options);
  const res = await complete(account.token, credential, name);
  expect(res.status).toBe(200);
  return { credential, res };
}

describe("auth required", () => {
  test.each([
    ["POST", "/api/webauthn/register/begin"],
    ["POST", "/api/webauthn/register/complete"],
    ["GET", "/api/webauthn/authenticators"],
    ["DELETE", "/api/webauthn/authenticators/abc"],
  ])("%s %s answers 401 without a session", async (method, path) => {
    const res = await t.api(path, { method, body: method === "POST" ? { credential: { id: "x", rawId: "x", type: "public-key", response: {} } } : undefined });
    expect(res.status).toBe(401);
  });

  test("an unverified account gets 403 on register/begin", async () => {
    const fresh = await t.signUp();
    expect((await begin(fresh)).status).toBe(403);
  });
});

describe("registration", () => {
  test("begin answers creation options for the PUBLIC_URL relying party", async () => {
    const res = await begin(alice);
    expect(res.status).toBe(200);
    expect(res.body.rp).toEqual({ name: "smsdesk", id: "localhost" });
    expect(res.body.user.name).toBe(alice.email);
    expect(typeof res.body.challenge).toBe("string");
    expect(res.body.challenge.length).toBeGreaterThanOrEqual(32);
    expect(res.body.excludeCredentials).toEqual([]);
    expect(res.body.attestation).toBe("none");
  });

  test("a full ceremony stores the passkey with its friendly name", async () => {
    const { credential, res } = await registerPasskey(alice, "  Work laptop  ");
    expect(res.body.verified).toBe(true);
    const list = await t.api("/api/webauthn/authenticators", { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      id: credential.id,
      name: "Work laptop",
      credentialDeviceType: "singleDevice",
      transports: ["internal"],
      credentialBackedUp: false,
      lastUsed: null,
    });
    expect(new Date(list.body[0].createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  test("a blank friendly name falls back to 'My Device'", async () => {
    const other = new SoftAuthenticator(origin);
    const { credential } = await registerPasskey(bob, "   ", other);
    const list = await t.api("/api/webauthn/authenticators", { token: bob.token });
    expect(list.body.find((p: any) => p.id === credential.id).name).toBe("My Device");
  });

  test("begin excludes the credentials already registered", async () => {
    const res = await begin(alice);
    expect(res.body.excludeCredentials.map((c: any) => c.id)).toEqual([device.credentials[0]!.id]);
  });

  test("registering the same credential again answers 'This device is already registered'", async () => {
    const options = (await begin(alice)).body;
    const again = await device.register(options, { reuse: device.credentials[0] });
    const res = await complete(alice.token, again, "Again");
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ message: "This device is already registered", verified: false, error: "This device is already registered" });
  });

  test("a response for another origin is rejected and nothing is stored", async () => {
    const rogue = new SoftAuthenticator("https://evil.example");
    const options = (await begin(alice)).body;
    const res = await complete(alice.token, await rogue.register(options));
    expect(res.status).toBe(400);
    expect(res.body.verified).toBe(false);
    expect((await t.api("/api/webauthn/authenticators", { token: alice.token })).body).toHaveLength(1);
  });

  test("a challenge is used once, and only by the user it was issued to", async () => {
    const options = (await begin(alice)).body;
    const other = new SoftAuthenticator(origin);
    const credential = await other.register(options);
    expect((await complete(bob.token, credential)).status).toBe(400); // issued to alice
    const options2 = (await begin(alice)).body;
    const c2 = await other.register(options2);
    expect((await complete(alice.token, c2)).status).toBe(200);
    expect((await complete(alice.token, c2)).status).toBe(400); // replay
    const list = (await t.api("/api/webauthn/authenticators", { token: alice.token })).body;
    expect(list).toHaveLength(2);
    await t.api(`/api/webauthn/authenticators/${c2.id}`, { method: "DELETE", token: alice.token });
  });

  test("garbage credentials answer 400, never 500", async () => {
    for (const credential of [
      { id: "x", rawId: "x", type: "public-key", response: {} },
      { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "not-json", attestationObject: "AAAA" } },
      { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: Buffer.from(JSON.stringify({ challenge: "abc" })).toString("base64url") } },
    ]) {
      const res = await complete(alice.token, credential);
      expect(res.status).toBe(400);
    }
    expect((await t.api("/api/webauthn/register/complete", { body: {}, token: alice.token })).status).toBe(400);
  });
});

describe("sign-in", () => {
  // Many ceremonies from one address within a minute: start each test with fresh per-address counts.
  beforeEach(() => rateLimiterFor(t.ctx).reset());

  test("begin answers alike for an unknown email, one without passkeys, one with, and none: no account or passkey oracle", async () => {
    const noKeys = await t.signUpVerified();
    const answers = [];
    for (const email of ["nobody@example.com", noKeys.email, alice.email, "", null, undefined]) {
      const res = email === undefined ? await t.api("/api/webauthn/authenticate/begin", { method: "POST" }) : await loginBegin(email);
      const { challenge, ...rest } = res.body;
      expect(challenge).toMatch(/^[\w-]{43,}$/);
      answers.push({ status: res.status, ...rest });
    }
    for (const answer of answers) {
      expect(answer).toEqual({ status: 200, rpId: "localhost", allowCredentials: [], timeout: 300_000, userVerification: "required" });
    }
  });

  test("registration asks for a discoverable credential (the sign-in names no account)", async () => {
    const res = await begin(alice);
    expect(res.body.authenticatorSelection).toMatchObject({ residentKey: "required", requireResidentKey: true });
  });
  test("complete signs in: token, user, session cookie, counter and lastUsed updated", async () => {
    const options = (await loginBegin(alice.email)).body;
    const res = await loginComplete(await device.authenticate(options));
    expect(res.status).toBe(200);
    expect(res.body.verified).toBe(true);
    expect(res.body.user.id).toBe(alice.user.id);
    expect(res.body.user).not.toHaveProperty("passwordHash");
    expect(setCookie(res.headers, "smsdesk_session")?.value).toBe(res.body.token);
    const me = await t.api("/api/auth/user", { token: res.body.token });
    expect(me.body.email).toBe(alice.email);
    const [key] = (await t.api("/api/webauthn/authenticators", { token: alice.token })).body;
    expect(key.lastUsed).not.toBeNull();
    expect(await t.ctx.records.$rows("select counter from passkeys where id = ?", [key.id])).toEqual([{ counter: device.credentials[0]!.counter }]);
  });

  test("a counter that goes backwards is rejected", async () => {
    const options = (await loginBegin(alice.email)).body;
    const stale = device.credentials[0]!.counter; // the stored value: not greater, so a cloned key
    const res = await loginComplete(await device.authenticate(options, { counter: stale }));
    expect(res.status).toBe(401);
    expect(res.body.verified).toBe(false);
    expect(setCookie(res.headers, "smsdesk_session")).toBeNull();
  });

  test("an assertion is used once", async () => {
    const options = (await loginBegin(alice.email)).body;
    const assertion = await device.authenticate(options);
    expect((await loginComplete(assertion)).status).toBe(200);
    expect((await loginComplete(assertion)).status).toBe(400);
  });

  test("a tampered signature, another origin or no user verification is rejected", async () => {
    const o1 = (await loginBegin(alice.email)).body;
    const a1 = await device.authenticate(o1);
    const sig = Buffer.from(a1.response.signature, "base64url");
    sig[sig.length - 1] = sig[sig.length - 1]! ^ 1;
    a1.response.signature = sig.toString("base64url");
    expect((await loginComplete(a1)).status).toBe(401);

    const o2 = (await loginBegin(alice.email)).body;
    expect((await loginComplete(await device.authenticate(o2, { origin: "https://evil.example" }))).status).toBe(401);

    const o3 = (await loginBegin(alice.email)).body;
    device.userVerified = false;
    const a3 = await device.authenticate(o3);
    device.userVerified = true;
    expect((await loginComplete(a3)).status).toBe(401);
  });

  test("a signature of post-quantum size (ML-DSA-87: 4,627 bytes) reaches verification, not refused as too long", async () => {
    // Chromium's own authenticator signs with ML-DSA-44 (2,420 bytes) when the options allow it, as ours do.
    const options = (await loginBegin(alice.email)).body;
    const assertion = await device.authenticate(options);
    assertion.response.signature = Buffer.alloc(4627, 1).toString("base64url");
    const res = await loginComplete(assertion);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ verified: false, message: "Failed to authenticate with passkey" });
  });

  test("the usernameless flow signs in the account of the passkey the browser chose", async () => {
    const bobDevice = new SoftAuthenticator(origin);
    await registerPasskey(bob, "Bob phone", bobDevice);
    for (const [authenticator, account] of [[bobDevice, bob], [device, alice]] as const) {
      const res = await loginComplete(await authenticator.authenticate((await t.api("/api/webauthn/authenticate/begin", { method: "POST" })).body));
      expect(res.status).toBe(200);
      expect(res.body.user.id).toBe(account.user.id);
      expect((await t.api("/api/auth/user", { token: res.body.token })).body.email).toBe(account.email);
    }
  });

  test("a user handle naming another account than the credential's is refused", async () => {
    const options = (await loginBegin(null)).body;
    const assertion = await device.authenticate(options);
    assertion.response.userHandle = Buffer.from(bob.user.id).toString("base64url");
    const res = await loginComplete(assertion);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ verified: false, message: "No passkey found for this account" });
  });

  test("an unknown credential answers 404 'No passkey found for this account'", async () => {
    const stranger = new SoftAuthenticator(origin);
    await stranger.register((await begin(bob)).body); // made, never completed: unknown to the server
    const res = await loginComplete(await stranger.authenticate((await loginBegin(null)).body));
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("No passkey found for this account");
  });

  test("a disabled account cannot sign in with its passkey", async () => {
    const carol = await t.signUpVerified(t.newEmail("carol"));
    const carolDevice = new SoftAuthenticator(origin);
    await registerPasskey(carol, "Carol", carolDevice);
    await t.ctx.records.$run("update users set disabled = 1 where id = ?", [carol.user.id]);
    const res = await loginComplete(await carolDevice.authenticate((await loginBegin(carol.email)).body));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ verified: false, message: "This account has been disabled. Please contact support." });
    expect(setCookie(res.headers, "smsdesk_session")).toBeNull();
  });
});

describe("DELETE /api/webauthn/authenticators/:id", () => {
  test("another user's passkey answers 404 and stays; the owner deletes it", async () => {
    const [key] = (await t.api("/api/webauthn/authenticators", { token: alice.token })).body;
    const foreign = await t.api(`/api/webauthn/authenticators/${key.id}`, { method: "DELETE", token: bob.token });
    expect(foreign.status).toBe(404);
    expect((await t.api("/api/webauthn/authenticators", { token: alice.token })).body).toHaveLength(1);

    const own = await t.api(`/api/webauthn/authenticators/${key.id}`, { method: "DELETE", token: alice.token });
    expect(own.status).toBe(200);
    expect((await t.api("/api/webauthn/authenticators", { token: alice.token })).body).toEqual([]);
    expect((await t.api(`/api/webauthn/authenticators/${key.id}`, { method: "DELETE", token: alice.token })).status).toBe(404);
    const gone = await loginComplete(await device.authenticate((await loginBegin(alice.email)).body));
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe("No passkey found for this account");
  });
});

describe("a PUBLIC_URL browsers refuse as relying party", () => {
  // Browsers take an IP address as relying party nowhere, and plain http only on localhost: the ceremony would
  // fail in the browser with a security error, so the server names the cause first.
  let u: TestServer;
  let carol: Account;
  beforeAll(async () => {
    u = await startTestServer({ env: { PUBLIC_URL: "http://127.0.0.1:8080" } });
    carol = await u.signUpVerified(u.newEmail("carol"));
  });
  afterAll(() => u?.stop());
  afterEach(() => (u.ctx.config.publicUrl = "http://127.0.0.1:8080"));

  const wellFormed = (response: Record<string, string>) => ({ id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "AAAA", ...response } });
  const calls = (token: string): [string, () => Promise<ApiResponse>][] => [
    ["register/begin", () => u.api("/api/webauthn/register/begin", { body: { password: carol.password }, token })],
    ["register/complete", () => u.api("/api/webauthn/register/complete", { body: { credential: wellFormed({ attestationObject: "AAAA" }) }, token })],
    ["authenticate/begin", () => u.api("/api/webauthn/authenticate/begin", { body: { email: carol.email } })],
    ["authenticate/complete", () => u.api("/api/webauthn/authenticate/complete", { body: { credential: wellFormed({ authenticatorData: "AAAA", signature: "AAAA" }) } })],
  ];

  test("the README's old default http://127.0.0.1:8080: every ceremony call answers 400 with the cause", async () => {
    for (const [name, call] of calls(carol.token)) {
      const res = await call();
      expect([name, res.status]).toEqual([name, 400]);
      expect(res.body.message).toBe(
        "Passkeys need the appliance to be reached at localhost or over HTTPS on a domain name (PUBLIC_URL is http://127.0.0.1:8080)",
      );
    }
  });

  test.each([
    ["https://10.0.0.5", 400],
    ["http://[::1]:8080", 400],
    ["https://[2001:db8::1]", 400],
    ["http://sms.example.com", 400],
    ["http://localhost:8080", 200],
    ["https://sms.example.com", 200],
  ])("PUBLIC_URL %s: register/begin answers %d", async (publicUrl, status) => {
    u.ctx.config.publicUrl = publicUrl;
    const res = await u.api("/api/webauthn/register/begin", { body: { password: carol.password }, token: carol.token });
    expect(res.status).toBe(status);
    if (status === 400) {
      expect(res.body.message).toBe(
        `Passkeys need the appliance to be reached at localhost or over HTTPS on a domain name (PUBLIC_URL is ${publicUrl})`,
      );
    }
    else expect(res.body.rp.id).toBe(new URL(publicUrl).hostname);
  });
});
