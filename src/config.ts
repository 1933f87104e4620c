import { resolve } from "node:path";
import { parseCidr } from "./http/client-ip";

/** Bootstrap settings only; everything a user can change later lives in the database. */
export type Config = {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  /** The origin short links go out on (LINK_DOMAIN), unless an account sets its own; PUBLIC_URL when unset. */
  linkDomain: string;
  smtpUrl: string | null;
  smtpFrom: string;
  dev: boolean;
  adminEmail: string | null;
  adminPassword: string | null;
  /** Reverse proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES); empty: the socket peer is the client. */
  trustedProxies: string[];
  /** API origins of the SMS providers (TWILIO_API_BASE...): the real ones unless a test or a proxy says otherwise. */
  providerApiBase: Record<RealProviderKind, string>;
  /** Google sign-in is offered only when both the client id and secret are set. */
  google: { clientId: string; clientSecret: string; authUrl: string; tokenUrl: string; userinfoUrl: string } | null;
  /**
   * Tests only (SMSDESK_TEST_CLOCK=<epoch ms>x<rate>, never set in an installation): the appliance's clock runs
   * `rate` times faster than the wall clock from `epoch`, the same for every start with the same value, so a crash
   * test runs a drip's minute delays in seconds through the real code paths.
   */
  testClock: { epoch: number; rate: number } | null;
  /** GET /metrics answers only with this bearer token (METRICS_TOKEN); unset: /metrics does not exist (404). */
  metricsToken: string | null;
  /** The installation's secret key from this file (SECRET_KEY_FILE, e.g. a mounted secret) instead of DATA_DIR/secret.key. */
  secretKeyFile: string | null;
  /** DATABASE_URL: a postgres:// URL (PostgreSQL mode, README "PostgreSQL"), or null for the data folder's SQLite. */
  databaseUrl: string | null;
};

export type RealProviderKind = "twilio" | "telnyx" | "brevo" | "textmagic" | "clicksend";

export const PROVIDER_API_DEFAULTS: Record<RealProviderKind, string> = {
  twilio: "https://api.twilio.com",
  telnyx: "https://api.telnyx.com",
  brevo: "https://api.brevo.com",
  textmagic: "https://rest.textmagic.com",
  clicksend: "https://rest.clicksend.com",
};

export class ConfigError extends Error {}

const FLAGS: Record<string, string> = {
  "--port": "PORT",
  "--host": "HOST",
  "--data-dir": "DATA_DIR",
  "--public-url": "PUBLIC_URL",
  "--smtp-url": "SMTP_URL",
  "--smtp-from": "SMTP_FROM",
  "--trusted-proxies": "TRUSTED_PROXIES",
  "--metrics-token": "METRICS_TOKEN",
  "--link-domain": "LINK_DOMAIN",
  "--secret-key-file": "SECRET_KEY_FILE",
  "--database-url": "DATABASE_URL",
};

export const CONFIG_HELP = `Configuration (environment variable or flag):
  PORT        --port N          port to listen on (8080)
  HOST        --host H          address to listen on (127.0.0.1; 0.0.0.0 in Docker)
  DATA_DIR    --data-dir D      folder for the database and the secret key (./data)
  PUBLIC_URL  --public-url U    origin users and SMS providers reach (http://localhost:PORT when HOST is
                                127.0.0.1, 0.0.0.0 or localhost, else http://HOST:PORT); browsers must use it:
                                changes from another origin are refused
  LINK_DOMAIN --link-domain U   origin short links in texts go out on (https://go.example.com); PUBLIC_URL
                                when unset; an account may set its own in Settings
  SMTP_URL    --smtp-url U      smtp://user:pass@host:port (smtps:// for TLS); unset: no email is sent
                                (in development mode codes and links go to the log)
  SMTP_FROM   --smtp-from A     sender address of account emails (smsdesk@<public host>)
  SMSDESK_DEV --dev             development mode
  TRUSTED_PROXIES --trusted-proxies L   comma-separated addresses or CIDRs of your reverse proxies
                                (e.g. 127.0.0.1,::1 or 10.0.0.0/8); only for them is the client address
                                taken from X-Forwarded-For (unset: the header is ignored)
  METRICS_TOKEN --metrics-token T   serve GET /metrics (Prometheus) to "Authorization: Bearer T" (16+
                                characters); unset: /metrics answers 404
  SECRET_KEY_FILE --secret-key-file F   the installation's secret key (32 bytes, base64) from F instead of
                                DATA_DIR/secret.key; every process of one installation needs the same key
  DATABASE_URL --database-url U  postgres://user:pass@host:5432/db for PostgreSQL mode (not served yet by this
                                version: it migrates the schema, checks the key, then refuses; see README);
                                unset: the data folder's SQLite database
  ADMIN_EMAIL, ADMIN_PASSWORD   create this administrator on first start
  GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET   enable "Continue with Google" (redirect URI: PUBLIC_URL/api/auth/google/callback)
  GOOGLE_AUTH_URL, GOOGLE_TOKEN_URL, GOOGLE_USERINFO_URL   override Google's OAuth endpoints (tests, proxies)
  TWILIO_API_BASE, TELNYX_API_BASE, BREVO_API_BASE, TEXTMAGIC_API_BASE, CLICKSEND_API_BASE
              override an SMS provider's API origin (tests, proxies)`;

/** Flags override the environment; unknown flags are an error so typos do not pass silently. */
export function loadConfig(env: Record<string, string | undefined>, args: string[]): Config {
  const values: Record<string, string | undefined> = { ...env };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--dev") {
      values.SMSDESK_DEV = "1";
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    const key = FLAGS[flag];
    if (!key) throw new ConfigError(`Unknown option ${flag}. Run with --help for the options.`);
    const value = inline ?? args[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    values[key] = value;
  }

  const port = Number(values.PORT || 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be 0-65535, got ${values.PORT}`);
  const host = values.HOST || "127.0.0.1";
  // Browsers refuse an IP address as a passkey's relying party, so a local listener is named localhost.
  const publicHost = ["127.0.0.1", "0.0.0.0", "localhost"].includes(host) ? "localhost" : host.includes(":") ? `[${host}]` : host;
  const publicUrl = (values.PUBLIC_URL || `http://${publicHost}:${port}`).replace(/\/+$/, "");
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL is not a URL: ${publicUrl}`);
  }
  const linkDomain = (values.LINK_DOMAIN || "").replace(/\/+$/, "");
  if (linkDomain && !/^https?:\/\/[^/\s]+$/.test(linkDomain)) throw new ConfigError(`LINK_DOMAIN must be an origin such as https://go.example.com, got ${linkDomain}`);
  const metricsToken = values.METRICS_TOKEN?.trim() || null;
  // A scrape token guessed is the business's traffic read: as long as a password at least.
  if (metricsToken && metricsToken.length < 16) throw new ConfigError("METRICS_TOKEN must be at least 16 characters");
  const smtpUrl = values.SMTP_URL || null;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError("SMTP_URL must start with smtp:// or smtps://");

  return {
    port,
    host,
    dataDir: resolve(values.DATA_DIR || "./data"),
    publicUrl,
    linkDomain: linkDomain || publicUrl,
    smtpUrl,
    smtpFrom: values.SMTP_FROM || `smsdesk@${new URL(publicUrl).hostname}`,
    dev: ["1", "true", "yes"].includes((values.SMSDESK_DEV ?? "").toLowerCase()),
    adminEmail: values.ADMIN_EMAIL || null,
    adminPassword: values.ADMIN_PASSWORD || null,
    trustedProxies: trustedProxies(values.TRUSTED_PROXIES),
    providerApiBase: providerApiBase(values),
    google: googleConfig(values),
    testClock: testClock(values.SMSDESK_TEST_CLOCK),
    metricsToken,
    secretKeyFile: values.SECRET_KEY_FILE ? resolve(values.SECRET_KEY_FILE) : null,
    databaseUrl: databaseUrl(values.DATABASE_URL),
  };
}

function databaseUrl(value: string | undefined): string | null {
  const url = value?.trim();
  if (!url) return null;
  if (!/^postgres(ql)?:\/\/[^\s]+$/.test(url)) throw new ConfigError("DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database), or unset for SQLite");
  return url;
}

function testClock(value: string | undefined): Config["testClock"] {
  if (!value) return null;
  const m = /^(\d+)x(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (!m || Number(m[2]) <= 0) throw new ConfigError("SMSDESK_TEST_CLOCK is <epoch ms>x<rate>, e.g. 1795500000000x10");
  return { epoch: Number(m[1]), rate: Number(m[2]) };
}

/** The clock of a config: the wall clock, or the test clock running faster from its epoch. */
export function clockOf(config: Pick<Config, "testClock">): () => number {
  const t = config.testClock;
  return t ? () => Math.floor(t.epoch + (Date.now() - t.epoch) * t.rate) : Date.now;
}

function trustedProxies(value: string | undefined): string[] {
  const entries = (value ?? "").split(",").map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!parseCidr(entry)) throw new ConfigError(`TRUSTED_PROXIES: ${entry} is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1)`);
  }
  return entries;
}

function googleConfig(values: Record<string, string | undefined>): Config["google"] {
  const clientId = values.GOOGLE_CLIENT_ID?.trim();
  const clientSecret = values.GOOGLE_CLIENT_SECRET?.trim();
  if (!clientId || !clientSecret) return null;
  const urls = {
    authUrl: values.GOOGLE_AUTH_URL || "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: values.GOOGLE_TOKEN_URL || "https://oauth2.googleapis.com/token",
    userinfoUrl: values.GOOGLE_USERINFO_URL || "https://openidconnect.googleapis.com/v1/userinfo",
  };
  for (const [key, url] of Object.entries(urls)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError(`GOOGLE_${key.replace("Url", "").toUpperCase()}_URL is not a URL: ${url}`);
    }
  }
  return { clientId, clientSecret, ...urls };
}

function providerApiBase(values: Record<string, string | undefined>): Record<RealProviderKind, string> {
  const out = { ...PROVIDER_API_DEFAULTS };
  for (const kind of Object.keys(out) as RealProviderKind[]) {
    const name = `${kind.toUpperCase()}_API_BASE`;
    const value = values[name]?.trim();
    if (!value) continue;
    try {
      new URL(value);
    } catch {
      throw new ConfigError(`${name} is not a URL: ${value}`);
    }
    out[kind] = value.replace(/\/+$/, "");
  }
  return out;
}
