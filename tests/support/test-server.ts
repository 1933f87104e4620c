/**
 * Starts a real smsdesk server in-process for API tests: a free port, a fresh temporary data folder and
 * (by default) a real local SMTP server that captures every email the server sends.
 *
 *   const t = await startTestServer();            // SMTP capture, not dev mode
 *   const t = await startTestServer({ smtp: false }); // development mode: emails go to the log (still captured)
 *   const t = await startTestServer({ smtp: false, dev: false }); // production without SMTP: no email at all
 *   afterAll(() => t.stop());
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { loadConfig } from "../../src/config";
import type { AppContext } from "../../src/context";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { startServer } from "../../src/server";
import { throwawayDatabase, type ThrowawayDatabase } from "./postgres";

/**
 * SMSDESK_TEST_DATABASE=postgres runs a test file's apps on PostgreSQL (issue 31 item 1): each app gets a throwaway
 * database of its own on the local server (tests/support/postgres.ts), dropped when it stops, as its data folder is.
 * Unset, the apps run on their data folder's SQLite.
 */
export const TEST_ENGINE: "sqlite" | "postgres" = process.env.SMSDESK_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";

export const DEFAULT_PASSWORD = "secret123";

export type CapturedEmail = {
  /** Order of arrival, starting at 1 (across all recipients). */
  seq: number;
  to: string[];
  subject: string;
  text: string;
  raw: string;
};

export type ApiOptions = {
  method?: string;
  /** An object is sent as JSON; a string is sent as-is (with a JSON content type unless headers say otherwise). */
  body?: unknown;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sent as the session cookie. */
  cookie?: string;
  headers?: Record<string, string>;
  redirect?: RequestRedirect;
  /**
   * The Origin header, as a browser on the appliance's own page sends it: PUBLIC_URL's origin unless a test
   * gives headers.origin or `origin: false` (no Origin, like a script or another server).
   */
  origin?: false;
};

export type ApiResponse<T = any> = { status: number; body: T; text: string; headers: Headers };

export type Account = { token: string; user: any; email: string; password: string; body: any; headers: Headers };

export type TestServer = {
  url: string;
  port: number;
  ctx: AppContext;
  dataDir: string;
  /** Every line the server logged. */
  logs: string[];
  /** Every email sent (over SMTP, or written to the log when SMTP is off). */
  emails: CapturedEmail[];
  smtpUrl: string | null;
  api<T = any>(path: string, opts?: ApiOptions): Promise<ApiResponse<T>>;
  /** Unique address for a new account. */
  newEmail(prefix?: string): string;
  signUp(email?: string, password?: string): Promise<Account>;
  signUpVerified(email?: string, password?: string): Promise<Account>;
  login(email: string, password?: string): Promise<Account>;
  /**
   * Confirms the account's session with its password (POST /api/auth/confirm), as the UI's "Confirm it's you" does:
   * a sign-in is not a confirmation, and creating an API key, a webhook or another sensitive change asks for one
   * made in the last 10 minutes (src/auth/reauth.ts). Answers the account, for chaining.
   */
  confirm<A extends Pick<Account, "token" | "password">>(account: A): Promise<A>;
  /** The first email to `to` that arrived after `afterSeq` (and matches `match` if given). */
  waitForEmail(to: string, timeoutMs?: number, opts?: { afterSeq?: number; match?: RegExp }): Promise<CapturedEmail>;
  /** The newest email sequence number so far (pass as afterSeq to wait for a newer one). */
  lastSeq(): number;
  emailsTo(to: string): CapturedEmail[];
  /** The 6-digit code of the newest verification email to `to`. */
  latestCode(to: string, timeoutMs?: number): Promise<string>;
  /** The token of the newest password reset link sent to `to`. */
  resetLink(to: string, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
};

// ---------------------------------------------------------------------------------------------------
// Mail parsing (simple on purpose: single-part text mails as nodemailer writes them)

function decodeQuotedPrintable(body: string): string {
  const bytes: number[] = [];
  const text = body.replace(/=\r?\n/g, "");
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "=" && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(ch, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=) in a header. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset, enc: string, data: string) =>
      enc.toUpperCase() === "B"
        ? Buffer.from(data, "base64").toString("utf8")
        : decodeQuotedPrintable(data.replace(/_/g, " ")),
    );
}

export function parseRawEmail(raw: string): { headers: Record<string, string>; subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split === -1 ? raw : raw.slice(0, split);
  let body = split === -1 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const headers: Record<string, string> = {};
  // Unfold continuation lines, then split "Name: value".
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers["content-transfer-encoding"] ?? "").toLowerCase();
  if (encoding === "quoted-printable") body = decodeQuotedPrintable(body);
  else if (encoding === "base64") body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  return { headers, subject: decodeHeader(headers.subject ?? ""), text: body.replace(/\r\n/g, "\n").replace(/\n$/, "") };
}

// ---------------------------------------------------------------------------------------------------

async function startSmtpCapture(onMessage: (to: string[], raw: string) => void) {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        // Recorded before the 250 reply, so the API call that sent it has it captured once it answers.
        onMessage(
          session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          Buffer.concat(chunks).toString("utf8"),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      Promise.race([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => setTimeout(resolve, 1000)),
      ]),
  };
}

let counter = 0;

export async function startTestServer(
  opts: {
    smtp?: boolean;
    dev?: boolean;
    env?: Record<string, string>;
    printLogs?: boolean;
    /** Keep the production rate limits (off by default: the suite signs in far more often than a person). */
    rateLimits?: boolean;
  } = {},
): Promise<TestServer> {
  const useSmtp = opts.smtp ?? true;
  // Without SMTP, codes reach the log (and so the tests) only in development mode; `dev: false` tests production.
  const dev = opts.dev ?? !useSmtp;
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-test-"));
  const emails: CapturedEmail[] = [];
  const logs: string[] = [];
  let seq = 0;
  const record = (to: string[], subject: string, text: string, raw: string) =>
    emails.push({ seq: ++seq, to: to.map((a) => a.toLowerCase()), subject, text, raw });

  const smtp = useSmtp
    ? await startSmtpCapture((to, raw) => {
        const parsed = parseRawEmail(raw);
        record(to, parsed.subject, parsed.text, raw);
      })
    : null;

  const log = (line: string) => {
    logs.push(line);
    if (opts.printLogs || process.env.SMSDESK_TEST_LOGS) console.log(`[server] ${line}`);
    // Without SMTP the mailer writes the email to the log; capture it the same way.
    const m = /^mail \(SMTP_URL not set, not sent\) to=(\S+) subject="(.*)"\n([\s\S]*)$/.exec(line);
    if (m) record([m[1]!], m[2]!, m[3]!, line);
  };

  // An app given its DATABASE_URL (another process of an installation) runs on that database, whatever the engine.
  const pg: ThrowawayDatabase | null = TEST_ENGINE === "postgres" && !opts.env?.DATABASE_URL ? await throwawayDatabase() : null;
  const config = loadConfig(
    {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SMSDESK_DEV: dev ? "1" : "",
      ...(smtp ? { SMTP_URL: smtp.url } : {}),
      ...(pg ? { DATABASE_URL: pg.url } : {}),
      ...opts.env,
    },
    [],
  );
  const server = await startServer(config, log).catch(async (err) => {
    await pg?.drop();
    throw err;
  });
  if (!opts.rateLimits) rateLimiterFor(server.ctx).enabled = false;
  const url = server.url;

  async function api<T = any>(path: string, o: ApiOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...o.headers };
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
    }
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    if (o.cookie !== undefined) headers.cookie = `smsdesk_session=${o.cookie}`;
    if (o.origin !== false && !Object.keys(headers).some((h) => h.toLowerCase() === "origin")) {
      headers.origin = new URL(server.ctx.config.publicUrl).origin;
    }
    const res = await fetch(url + path, {
      method: o.method ?? (o.body !== undefined ? "POST" : "GET"),
      headers,
      body,
      redirect: o.redirect ?? "manual",
    });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }

  const newEmail = (prefix = "user") => `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`;

  async function waitForEmail(to: string, timeoutMs = 5000, o: { afterSeq?: number; match?: RegExp } = {}) {
    const addr = to.toLowerCase();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = emails.find(
        (e) => e.seq > (o.afterSeq ?? 0) && e.to.includes(addr) && (!o.match || o.match.test(e.subject)),
      );
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no email to ${to} within ${timeoutMs} ms (have: ${emails.map((e) => `${e.to}: ${e.subject}`).join("; ") || "none"})`);
      await Bun.sleep(10);
    }
  }

  const emailsTo = (to: string) => emails.filter((e) => e.to.includes(to.toLowerCase()));

  async function newest(to: string, match: RegExp, timeoutMs: number) {
    await waitForEmail(to, timeoutMs, { match });
    return emailsTo(to).filter((e) => match.test(e.subject)).at(-1)!;
  }

  async function latestCode(to: string, timeoutMs = 5000) {
    const mail = await newest(to, /verification code/i, timeoutMs);
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
    if (!code) throw new Error(`no 6-digit code in email to ${to}: ${mail.text}`);
    return code;
  }

  async function resetLink(to: string, timeoutMs = 5000) {
    const mail = await newest(to, /reset/i, timeoutMs);
    const token = /\/auth\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
    if (!token) throw new Error(`no reset link in email to ${to}: ${mail.text}`);
    return token;
  }

  /** A new account through sign-up, not yet verified: its session comes from signing in with the password. */
  async function signUp(email = newEmail(), password = DEFAULT_PASSWORD): Promise<Account> {
    const res = await api("/api/auth/register", {
      body: { email, password, confirmPassword: password, firstName: "Test", lastName: "User" },
    });
    if (res.status !== 201) throw new Error(`sign-up of ${email} failed: ${res.status} ${res.text}`);
    const session = await login(email, password);
    return { ...session, body: { ...res.body, ...session.body } };
  }

  /** A new account through sign-up and its emailed code, which signs it in (POST /api/auth/register/verify). */
  async function signUpVerified(email = newEmail(), password = DEFAULT_PASSWORD): Promise<Account> {
    const res = await api("/api/auth/register", {
      body: { email, password, confirmPassword: password, firstName: "Test", lastName: "User" },
    });
    if (res.status !== 201) throw new Error(`sign-up of ${email} failed: ${res.status} ${res.text}`);
    const code = await latestCode(email);
    const verified = await api("/api/auth/register/verify", { body: { signupToken: res.body.signupToken, code } });
    if (verified.status !== 200) throw new Error(`verification of ${email} failed: ${verified.status} ${verified.text}`);
    return { token: verified.body.token, user: verified.body.user, email, password, body: verified.body, headers: verified.headers };
  }

  async function login(email: string, password = DEFAULT_PASSWORD): Promise<Account> {
    const res = await api("/api/auth/login", { body: { email, password } });
    if (res.status !== 200) throw new Error(`login of ${email} failed: ${res.status} ${res.text}`);
    return { token: res.body.token, user: res.body.user, email, password, body: res.body, headers: res.headers };
  }

  async function confirm<A extends Pick<Account, "token" | "password">>(account: A): Promise<A> {
    const res = await api("/api/auth/confirm", { body: { password: account.password }, token: account.token });
    if (res.status !== 200) throw new Error(`confirmation failed: ${res.status} ${res.text}`);
    return account;
  }

  let stopped = false;
  return {
    url,
    port: server.port,
    ctx: server.ctx,
    dataDir,
    logs,
    emails,
    smtpUrl: smtp?.url ?? null,
    api,
    newEmail,
    signUp,
    signUpVerified,
    login,
    confirm,
    waitForEmail,
    lastSeq: () => seq,
    emailsTo,
    latestCode,
    resetLink,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await server.stop();
      } finally {
        await smtp?.close();
        await pg?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** A token with one character of the given part (0 header, 1 payload, 2 signature) changed. */
export function tamperToken(token: string, part: 0 | 1 | 2): string {
  const parts = token.split(".");
  const s = parts[part]!;
  // Change a middle character: the last base64url character can carry unused bits.
  const i = Math.floor(s.length / 2);
  const replacement = s[i] === "A" ? "B" : "A";
  parts[part] = s.slice(0, i) + replacement + s.slice(i + 1);
  return parts.join(".");
}

/** The value of a cookie from the response's Set-Cookie headers, with its attributes. */
export function setCookie(headers: Headers, name: string): { value: string; attributes: string } | null {
  for (const line of headers.getSetCookie()) {
    if (line.startsWith(`${name}=`)) {
      const semi = line.indexOf(";");
      const value = decodeURIComponent(line.slice(name.length + 1, semi === -1 ? undefined : semi));
      return { value, attributes: semi === -1 ? "" : line.slice(semi + 1) };
    }
  }
  return null;
}
