import { resolve } from "node:path";

/** Bootstrap settings only; everything a user can change later lives in the database. */
export type Config = {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  smtpUrl: string | null;
  smtpFrom: string;
  dev: boolean;
  adminEmail: string | null;
  adminPassword: string | null;
};

export class ConfigError extends Error {}

const FLAGS: Record<string, string> = {
  "--port": "PORT",
  "--host": "HOST",
  "--data-dir": "DATA_DIR",
  "--public-url": "PUBLIC_URL",
  "--smtp-url": "SMTP_URL",
  "--smtp-from": "SMTP_FROM",
};

export const CONFIG_HELP = `Configuration (environment variable or flag):
  PORT        --port N          port to listen on (8080)
  HOST        --host H          address to listen on (127.0.0.1; 0.0.0.0 in Docker)
  DATA_DIR    --data-dir D      folder for the database and the secret key (./data)
  PUBLIC_URL  --public-url U    origin users and SMS providers reach (http://HOST:PORT)
  SMTP_URL    --smtp-url U      smtp://user:pass@host:port (smtps:// for TLS); unset: emails go to the log
  SMTP_FROM   --smtp-from A     sender address of account emails (smsdesk@<public host>)
  SMSDESK_DEV --dev             development mode
  ADMIN_EMAIL, ADMIN_PASSWORD   create this administrator on first start`;

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
  const publicUrl = (values.PUBLIC_URL || `http://${host === "0.0.0.0" ? "localhost" : host}:${port}`).replace(/\/+$/, "");
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL is not a URL: ${publicUrl}`);
  }
  const smtpUrl = values.SMTP_URL || null;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError("SMTP_URL must start with smtp:// or smtps://");

  return {
    port,
    host,
    dataDir: resolve(values.DATA_DIR || "./data"),
    publicUrl,
    smtpUrl,
    smtpFrom: values.SMTP_FROM || `smsdesk@${new URL(publicUrl).hostname}`,
    dev: ["1", "true", "yes"].includes((values.SMSDESK_DEV ?? "").toLowerCase()),
    adminEmail: values.ADMIN_EMAIL || null,
    adminPassword: values.ADMIN_PASSWORD || null,
  };
}
