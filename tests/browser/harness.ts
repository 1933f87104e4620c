// Starts what a browser test needs: a local SMTP server that keeps every email, and the real server
// (`bun src/main.ts`) on a free port with a fresh data folder, pointed at that SMTP server.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import { SMTPServer } from "smtp-server";

export type Mail = { to: string; raw: string };

/** Someone signing up; the name and password default to Rosa Diaz's. */
export type NewUser = { email: string; password?: string; firstName?: string; lastName?: string };

const withDefaults = (user: NewUser) => ({ password: "tulips-and-texts", firstName: "Rosa", lastName: "Diaz", ...user });

export class Appliance {
  readonly mails: Mail[] = [];
  url = "";
  private smtp?: SMTPServer;
  private server?: ChildProcess;
  private dataDir = mkdtempSync(join(tmpdir(), "smsdesk-browser-"));
  /** Where the server keeps its database: the executable runs from dataDir with its data in data/. */
  private databaseDir = this.dataDir;

  /**
   * `urlHost: "localhost"` serves the pages from http://localhost:PORT and sets PUBLIC_URL to that origin
   * (WebAuthn needs localhost as the relying party, not 127.0.0.1). `executable` runs that build instead of the
   * source tree, as install.sh does: from an empty folder, with PATH and the settings only. SMSDESK_EXECUTABLE set in
   * the environment runs every journey against that build (`npm run build` first).
   */
  async start(env: Record<string, string> = {}, opts: { urlHost?: string; executable?: string } = {}) {
    opts = { executable: process.env.SMSDESK_EXECUTABLE || undefined, ...opts };
    if (opts.urlHost && !env.PUBLIC_URL) env = { ...env, PUBLIC_URL: `http://${opts.urlHost}:0` };
    this.smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData: (stream, session, callback) => {
        let raw = "";
        stream.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
        stream.on("end", () => {
          for (const rcpt of session.envelope.rcptTo) this.mails.push({ to: rcpt.address.toLowerCase(), raw });
          callback();
        });
      },
    });
    const smtpPort = await new Promise<number>((resolve) => {
      this.smtp!.listen(0, "127.0.0.1", () => resolve((this.smtp!.server.address() as { port: number }).port));
    });

    const root = join(import.meta.dirname, "..", "..");
    const settings = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: this.dataDir, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...env };
    if (opts.executable) this.databaseDir = join(this.dataDir, "data");
    this.server = opts.executable
      ? spawn(opts.executable, [], { cwd: this.dataDir, env: { PATH: process.env.PATH ?? "", ...settings, DATA_DIR: this.databaseDir }, stdio: ["ignore", "pipe", "pipe"] })
      : spawn(process.env.BUN_PATH ?? join(root, "node_modules", ".bin", "bun"), ["src/main.ts"], {
          cwd: root,
          env: { ...process.env, ...settings },
          stdio: ["ignore", "pipe", "pipe"],
        });
    this.url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
      this.server!.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        // Pages are opened at the public URL (http://localhost:PORT by default): the server refuses changes
        // (sign-in included) from any other origin.
        const match = /is running: open (\S+) \(listening on http:\/\/127\.0\.0\.1:\d+\)\n/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      this.server!.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
      this.server!.on("exit", (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
    });
    return this;
  }

  /** The newest 6-digit code emailed to this address, waiting for it to arrive. */
  async codeFor(email: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const mail = this.mails.filter((m) => m.to === email.toLowerCase()).at(-1);
      const code = mail && /verification code is (\d{6})/.exec(mail.raw.replace(/=\r?\n/g, ""))?.[1];
      if (code) return code;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no verification email for ${email}`);
  }

  /**
   * Signs up in the browser and verifies the emailed code, which opens the setup wizard; with `onboarding: true` (the
   * default) it answers the wizard (the business named as the user unless given, as replies were signed before
   * onboarding, so "Rosa Diaz"; the first customer type and goal)
   * and ends on /dashboard, as the spec has the wizard end; with false it stops on the wizard's first step.
   */
  async signUp(
    page: Page,
    newUser: NewUser,
    { from = "landing", onboarding = true, business }: { from?: "landing" | "auth page"; onboarding?: boolean; business?: string } = {},
  ) {
    const user = withDefaults(newUser);
    let form = page.getByRole("dialog");
    if (from === "landing") {
      await page.goto(this.url);
      await page.getByRole("button", { name: "Get Started" }).first().click();
    } else {
      await page.goto(`${this.url}/auth`);
      await page.getByRole("tab", { name: "Sign Up" }).click();
      form = page.locator("body");
    }
    await form.getByLabel("First name").fill(user.firstName);
    await form.getByLabel("Last name").fill(user.lastName);
    await form.getByLabel("Email").fill(user.email);
    await form.getByLabel("Password", { exact: true }).fill(user.password);
    await form.getByLabel("Confirm password").fill(user.password);
    await form.getByRole("button", { name: "Create Account" }).click();
    await expect(page.getByRole("heading", { name: "Verify your email" })).toBeVisible();
    await page.getByLabel("Verification code").fill(await this.codeFor(user.email));
    await page.getByRole("button", { name: "Verify Email" }).click();
    await expect(page.getByText("Email verified successfully!").first()).toBeVisible();
    await expect(page.getByRole("heading", { name: "Tell us about your business" })).toBeVisible();
    if (onboarding) await this.completeOnboarding(page, business ?? `${user.firstName} ${user.lastName}`);
  }

  /**
   * Answers the setup wizard from its first step and lands on /dashboard. The time zone and country are set to New
   * York and the United States, the account defaults the journeys were written against (the wizard would otherwise
   * take the machine's zone).
   */
  async completeOnboarding(page: Page, business = "Rosa Diaz") {
    await page.getByLabel("Business name").fill(business);
    await page.getByLabel("Industry").selectOption("Retail & E-commerce");
    await page.getByLabel("Time zone").selectOption("America/New_York");
    await page.getByLabel("Default country").selectOption("US");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("radio").first().check();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("checkbox").first().check();
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: `You're all set, ${business}!` })).toBeVisible();
    await page.getByRole("button", { name: "Go to Dashboard" }).click();
    await expect(page).toHaveURL(`${this.url}/dashboard`);
    await expect(page.getByRole("heading", { name: "Results & Stats" })).toBeVisible();
  }

  /**
   * Registers through the API (201) and signs in with the password: answers the session token of the unverified
   * account. With `request` (a browser context's), the session cookie lands in that context; Playwright's request API
   * sends no Origin of its own, so it is set here as a page of the appliance would.
   */
  async register(newUser: NewUser, request?: APIRequestContext): Promise<string> {
    const { email, password, firstName, lastName } = withDefaults(newUser);
    const res = await this.post("/api/auth/register", { email, password, confirmPassword: password, firstName, lastName }, null, request);
    expect(res.status).toBe(201);
    const session = await this.post("/api/auth/login", { email, password }, null, request);
    expect(session.status).toBe(200);
    return (session.body as { token: string }).token;
  }

  /** A verified account made through the API: registered, then the emailed code (200) signs in; answers its session token. */
  async verifiedAccount(newUser: NewUser, request?: APIRequestContext): Promise<string> {
    const { email, password, firstName, lastName } = withDefaults(newUser);
    const res = await this.post("/api/auth/register", { email, password, confirmPassword: password, firstName, lastName }, null, request);
    expect(res.status).toBe(201);
    const { signupToken } = res.body as { signupToken: string };
    const verified = await this.post("/api/auth/register/verify", { signupToken, code: await this.codeFor(email) }, null, request);
    expect(verified.status).toBe(200);
    return (verified.body as { token: string }).token;
  }

  private async post(path: string, data: unknown, token: string | null, request?: APIRequestContext) {
    const headers: Record<string, string> = { "content-type": "application/json", origin: this.url };
    if (token) headers.authorization = `Bearer ${token}`;
    if (request) {
      const res = await request.post(`${this.url}${path}`, { headers, data });
      return { status: res.status(), body: (await res.json()) as unknown };
    }
    const res = await fetch(`${this.url}${path}`, { method: "POST", headers, body: JSON.stringify(data) });
    return { status: res.status, body: (await res.json()) as unknown };
  }

  /**
   * Confirms a session with its password (POST /api/auth/confirm), as the "Confirm your password" dialog does: a
   * sign-in is not a confirmation, and API keys, webhooks, 2FA setup and the admin portal's changes ask for one made
   * in the last 10 minutes. A page (its session cookie) or a session token.
   */
  async confirm(session: Page | string, password = withDefaults({ email: "" }).password) {
    const headers: Record<string, string> = { "content-type": "application/json", origin: this.url };
    if (typeof session === "string") {
      const res = await fetch(`${this.url}/api/auth/confirm`, { method: "POST", headers: { ...headers, authorization: `Bearer ${session}` }, body: JSON.stringify({ password }) });
      expect(res.status, await res.clone().text()).toBe(200);
    } else {
      const res = await session.request.post(`${this.url}/api/auth/confirm`, { headers, data: { password } });
      expect(res.status(), await res.text()).toBe(200);
    }
  }

  /** The page's session cookie as the server set it (httpOnly: the page itself cannot read it), if it has one. */
  async sessionCookie(page: Page) {
    return (await page.context().cookies(this.url)).find((c) => c.name === "smsdesk_session");
  }

  /**
   * The page's session lives in the server's cookie only (issue 27 item 5): httpOnly and SameSite=Lax (Secure only on
   * an https PUBLIC_URL, so not here), unseen by the page's own script, and neither localStorage nor sessionStorage
   * holds its value or a key named like a token or session. Answers the token; the page must be signed in.
   */
  async expectSessionOnlyInCookie(page: Page): Promise<string> {
    const cookie = await this.sessionCookie(page);
    expect(cookie, "the page is signed in").toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/", secure: false });
    const token = cookie!.value;
    const seen = await page.evaluate(() => ({
      cookies: document.cookie,
      stored: [localStorage, sessionStorage].flatMap((store) =>
        Array.from({ length: store.length }, (_, i) => ({ key: store.key(i)!, value: store.getItem(store.key(i)!) ?? "" })),
      ),
    }));
    expect(seen.cookies).not.toContain(token);
    expect(seen.stored.filter((e) => e.value.includes(token))).toEqual([]);
    expect(seen.stored.filter((e) => /token|session/i.test(e.key))).toEqual([]);
    return token;
  }

  /** The session token in the page's cookie; the page must be signed in. */
  async sessionToken(page: Page): Promise<string> {
    const cookie = await this.sessionCookie(page);
    expect(cookie?.value, "the page is signed in").toBeTruthy();
    return cookie!.value;
  }

  /**
   * Headers that call the API as the page's signed-in user, as the page does: its session cookie, and the Origin a
   * page of the appliance sends (the server refuses changes made with a cookie from any other origin).
   */
  async sessionHeaders(page: Page): Promise<Record<string, string>> {
    return { cookie: `smsdesk_session=${await this.sessionToken(page)}`, origin: this.url };
  }

  /** Signs a browser context in with a session token, as a sign-in does: the httpOnly session cookie and its readable hint. */
  async signInContext(context: BrowserContext, token: string) {
    await context.addCookies([
      { name: "smsdesk_session", value: token, url: this.url, httpOnly: true, sameSite: "Lax" },
      { name: "smsdesk_signed_in", value: "1", url: this.url, sameSite: "Lax" },
    ]);
  }

  /** The API as the page's signed-in user (its session cookie); each call must answer 2xx. */
  async apiAs(page: Page) {
    const session = await this.sessionHeaders(page);
    return async <T>(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> => {
      const r = await fetch(`${this.url}${path}`, {
        method,
        headers: { "content-type": "application/json", ...session },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(r.status, `${path}: ${await r.clone().text()}`).toBeLessThan(300);
      return (await r.json()) as T;
    };
  }

  /** Runs SQL on the running server's database (the sqlite3 shell; WAL lets it write beside the server). */
  sql(statement: string) {
    execFileSync("sqlite3", ["-cmd", ".timeout 5000", join(this.databaseDir, "smsdesk.db"), statement]);
  }

  async stop() {
    this.server?.kill("SIGTERM");
    await new Promise((r) => this.server?.once("exit", r) ?? r(null));
    await new Promise((r) => this.smtp?.close(() => r(null)) ?? r(null));
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
