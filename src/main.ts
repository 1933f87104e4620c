// First: sets NODE_ENV before any dependency reads it (see the module).
import "./production-mode";
import { SQLiteError } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_HELP, ConfigError, loadConfig, type Config } from "./config";
import { formatFindings, runDoctor } from "./cli/doctor";
import { healthcheck } from "./cli/healthcheck";
import { promptHidden } from "./cli/prompt";
import { VERSION } from "./version";
import { migrateCommand, MIGRATE_USAGE, type CopyDatabase } from "./cli/migrate";
import { dataDirInstanceId } from "./secrets/instance";
import { DataFolderBusyError } from "./data-lock";
import { SecretKeyError } from "./secrets/secret-key";
import { listen } from "./listen";

// The rest of the program (the app, its workers, the database's schema) is imported when a command needs it, not
// before: loading all of it took 150-500 ms of each start of the executable (issue 29 item 6), so the server listens
// first (src/listen.ts) and loads it then.

/**
 * The program's modules, imported a piece at a time with a turn of the event loop between (the listening server's
 * health checks answered meanwhile), lowest floors first so that each piece adds a few ms of loading: imported
 * whole at once, they held the event loop 100-150 ms on an idle machine.
 */
const PIECES = [
  () => import("elysia"),
  () => import("drizzle-orm"),
  () => import("drizzle-orm/sqlite-core"),
  () => import("./users/queries"),
  () => import("libphonenumber-js/max"),
  () => import("./contacts/phones"),
  () => import("./auth/routes"),
  () => import("./auth/two-factor-routes"),
  () => import("./auth/passkey-routes"),
  () => import("./auth/user-routes"),
  () => import("./providers/routes"),
  () => import("./contacts/routes"),
  () => import("./segments/routes"),
  () => import("./phone-numbers/routes"),
  () => import("./campaigns/routes"),
  () => import("./conversations/routes"),
  () => import("./inbound/webhook-routes"),
  () => import("./automation/routes"),
  () => import("./drips/routes"),
  () => import("./results/routes"),
  () => import("./analytics/routes"),
  () => import("./admin/routes"),
  () => import("./backups/routes"),
  () => import("./public-api/routes"),
  () => import("./public-api/openapi"),
  () => import("./app"),
];

async function loadServer() {
  for (const piece of PIECES) {
    await piece();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return import("./server");
}

/** The app context of a command that opens the data folder (admin create, doctor, backup). */
async function openContext(config: Config) {
  const { openAppContext } = await import("./server");
  return openAppContext(config, () => {});
}

const HELP = `smsdesk ${VERSION}: a self-hosted SMS marketing appliance

Usage:
  smsdesk [options]                                  start the server
  smsdesk version                                    print the version
  smsdesk admin create --email E [--password-file F] create an administrator (prompts for the password, or reads F)
  smsdesk backup create | list | restore FILE        back up the data folder, list its backups, restore one (service stopped)
  smsdesk doctor                                     check PUBLIC_URL, SMTP, the data folder, the clock, providers, numbers' registration, backups
  smsdesk healthcheck                                exit 0 when the server on PORT answers its health check (Docker)
  ${MIGRATE_USAGE}
                                                     copy the data folder's database into an empty PostgreSQL database
                                                     and verify it (service stopped); prints what to change
  smsdesk --help                                     this help

${CONFIG_HELP}
`;

function takeOption(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const [arg] = args.splice(i, 1) as [string];
  if (arg.includes("=")) return arg.slice(name.length + 1);
  const [value] = args.splice(i, 1);
  return value;
}

const PASSWORD_IN_ARGV =
  "admin create does not take the password on the command line: the shell history and the process list would keep it. " +
  "Leave it out to be asked for it, or pass --password-file FILE (its first line is the password)";

/** The administrator's password from a file (its first line, so a trailing newline is not part of it). */
async function passwordFromFile(path: string): Promise<string> {
  const text = await Bun.file(path)
    .text()
    .catch((err: Error) => {
      throw new ConfigError(`Cannot read the password file ${path}: ${err.message}`);
    });
  const password = text.split(/\r?\n/)[0]!;
  if (!password) throw new ConfigError(`The password file ${path} is empty`);
  return password;
}

async function adminCreate(args: string[]) {
  if (args.some((a) => a === "--password" || a.startsWith("--password="))) throw new ConfigError(PASSWORD_IN_ARGV);
  const email = takeOption(args, "--email");
  const fileGiven = args.some((a) => a === "--password-file" || a.startsWith("--password-file="));
  const passwordFile = takeOption(args, "--password-file");
  if (!email) throw new ConfigError("admin create needs --email");
  if (fileGiven && !passwordFile) throw new ConfigError("--password-file needs a file name");
  const config = loadConfig(process.env, args);
  let password: string;
  if (passwordFile) password = await passwordFromFile(passwordFile);
  else {
    password = await promptHidden("Password for the administrator: ");
    const again = await promptHidden("Repeat the password: ");
    if (password !== again) throw new ConfigError("The passwords do not match");
  }
  const ctx = await openContext(config);
  const { createOrPromoteAdmin } = await import("./auth/admins");
  try {
    const admin = await createOrPromoteAdmin(ctx, email, password).catch((err: unknown) => {
      // It refuses a bad email or a short password with a plain Error: the operator's mistake, not a crash.
      if (err instanceof Error && !(err instanceof SQLiteError)) throw new ConfigError(err.message);
      throw err;
    });
    console.log(`Administrator ${admin.email} is ready. Sign in at ${config.publicUrl}/admin`);
  } finally {
    ctx.db.$client.close();
  }
}

/** `smsdesk doctor`: prints what to fix; exit status 1 when a check failed. */
async function doctor(args: string[]) {
  const config = loadConfig(process.env, args);
  const { listBackups } = await import("./backups/backups");
  const findings = await runDoctor(config, {
    lastGoodBackup: () => {
      const newest = listBackups(config.dataDir).find((b) => b.status === "good");
      return newest ? { id: newest.id, createdAt: newest.createdAt, drilled: newest.drill?.ok === true } : null;
    },
    providerKinds: async () => {
      // A fresh data folder stays as it is: no database is created to find no accounts in.
      if (!existsSync(join(config.dataDir, "smsdesk.db"))) return null;
      const ctx = await openContext(config);
      const { providerKindsInUse } = await import("./providers/accounts");
      try {
        return await providerKindsInUse(ctx);
      } finally {
        ctx.mailer.close();
        ctx.db.$client.close();
      }
    },
    registrations: async () => {
      if (!existsSync(join(config.dataDir, "smsdesk.db"))) return null;
      const ctx = await openContext(config);
      const { usersWithNumbers } = await import("./phone-numbers/numbers");
      const { allRegistrations, refreshRegistrations } = await import("./phone-numbers/registration");
      try {
        // Read from the providers now (and kept, as the card's Check now does), then reported per account.
        for (const userId of await usersWithNumbers(ctx)) await refreshRegistrations(ctx, userId);
        return await allRegistrations(ctx);
      } finally {
        ctx.mailer.close();
        ctx.db.$client.close();
      }
    },
    postgres: async () => (await import("../db/postgres/start")).readPostgresReport(config.databaseUrl!),
    instance: () => dataDirInstanceId(config.dataDir, config.secretKeyFile),
    now: Date.now,
  });
  console.log(formatFindings(findings));
  if (findings.some((f) => f.level === "fail")) process.exitCode = 1;
}

/**
 * The copy of `smsdesk migrate` (src/cli/migrate.ts) by db/postgres/copy.ts. A target that is not empty or cannot be
 * reached, or a database of another version, is the operator's to fix (exit 2); a copy that does not verify exits 1.
 */
const copyToPostgres: CopyDatabase = async (config, url, key, log) => {
  const { copyDatabaseFile, CopyRefusedError, VerificationError } = await import("../db/postgres/copy");
  try {
    return await copyDatabaseFile(join(config.dataDir, "smsdesk.db"), url, { keyFingerprint: key.fingerprint, keySource: key.source, log });
  } catch (err) {
    if (err instanceof CopyRefusedError) throw new ConfigError(err.message);
    if (err instanceof VerificationError) {
      console.error(`smsdesk migrate: the copy did not verify, do not switch to it: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
};

async function main(argv: string[]) {
  const args = [...argv];
  if (args.includes("--help") || args.includes("-h") || args[0] === "help") return void console.log(HELP);
  if (args[0] === "version" || args.includes("--version")) return void console.log(VERSION);
  if (args[0] === "admin") {
    if (args[1] !== "create") throw new ConfigError("Unknown admin command. Did you mean: smsdesk admin create --email E?");
    return adminCreate(args.slice(2));
  }
  if (args[0] === "doctor") return doctor(args.slice(1));
  if (args[0] === "healthcheck") {
    if (!(await healthcheck(loadConfig(process.env, args.slice(1))))) {
      console.error("smsdesk: the server does not answer its health check");
      process.exitCode = 1;
    }
    return;
  }
  if (args[0] === "migrate") return migrateCommand(args.slice(1), copyToPostgres);
  if (args[0] === "backup") return (await import("./backups/cli")).backupCommand(args.slice(1), openContext);
  if (args[0] === "serve") args.shift();
  const config = loadConfig(process.env, args);
  // Listening, and answering its health check, before the rest is loaded; other requests wait for the app.
  const listening = listen(config, console.log);
  const { startServer } = await loadServer();
  const server = await startServer(config, console.log, undefined, listening);
  // The public URL first: it is the address pages must be opened at (the server refuses changes, sign-in included,
  // from any other origin), where the listening address would be refused.
  console.log(`smsdesk ${VERSION} is running: open ${config.publicUrl} (listening on ${server.url})`);
  console.log(`data folder: ${config.dataDir}${config.dev ? " (development mode)" : ""}`);
  // SIGTERM drains: the engine stops claiming at once (before the HTTP server and the jobs stop, which may take a
  // while), the provider calls in flight finish and are recorded, then the process exits. A second signal changes
  // nothing; a drain that hangs past the bound exits anyway (what was in flight becomes `unknown` at the next start).
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`smsdesk: ${signal} received; finishing the messages in flight, then stopping`);
    setTimeout(() => {
      console.error(`smsdesk: still stopping after ${SHUTDOWN_BOUND_MS / 1000} s; exiting`);
      process.exit(1);
    }, SHUTDOWN_BOUND_MS).unref();
    const drained = server.ctx.sending.stop();
    await server.stop();
    await drained;
    console.log("smsdesk: stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

/** The longest a stop may take: the engine's drain (20 s) and the job handlers' last writes. */
const SHUTDOWN_BOUND_MS = 30_000;

/** System errors the operator fixes (a data folder it cannot create or write, a port in use): the message is enough. */
const OPERATOR_ERRORS = new Set(["EACCES", "EPERM", "ENOENT", "EROFS", "ENOSPC", "EADDRINUSE", "EADDRNOTAVAIL"]);

/**
 * Errors whose message says what the operator must change: the configuration (a PostgreSQL database that refuses
 * this process among them), a second server on one data folder, an unusable SECRET_KEY_FILE.
 */
const OPERATOR_ERROR_CLASSES = [ConfigError, DataFolderBusyError, SecretKeyError];

main(process.argv.slice(2)).catch((err) => {
  if (OPERATOR_ERROR_CLASSES.some((c) => err instanceof c) || OPERATOR_ERRORS.has(err?.code)) {
    console.error(`smsdesk: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
