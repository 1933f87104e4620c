import { accessSync, constants, existsSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";
import { dataDirInstanceId } from "../secrets/instance";

/**
 * `smsdesk doctor`: checks what an installation depends on outside its own code (the public address, email, the
 * data folder, the clock, the SMS providers' APIs, a recent backup) and says what to fix. It reads the data
 * folder and never changes it. The domains' parts come in as ports from main.ts (this is a leaf module).
 */

export type Level = "ok" | "warn" | "fail";
export type Finding = { level: Level; check: string; message: string; fix?: string };

export type DoctorPorts = {
  /** The newest good backup, and whether it passed a restore drill; null when there is none. */
  lastGoodBackup(): { id: string; createdAt: number; drilled: boolean } | null;
  /** The provider kinds some account uses; null when there is no database yet. */
  providerKinds(): Promise<string[] | null>;
  /**
   * Each provider account's sender numbers with their carrier registration, read from the providers just now
   * (src/phone-numbers/registration.ts); null when there is no database yet. Absent: not checked.
   */
  registrations?(): Promise<RegistrationReport[] | null>;
  /** With DATABASE_URL: the installation's PostgreSQL database, read without changing it (db/postgres/start.ts). */
  postgres?(): Promise<PostgresFacts>;
  /** This process's key fingerprint (its public instance id); null without a key. */
  instance?(): string | null;
  now(): number;
};

/** What doctor reads of a PostgreSQL database (main.ts wires db/postgres/start.ts readPostgresReport). */
export type PostgresFacts =
  | { reachable: false; database: string; error: string }
  | {
      reachable: true;
      database: string;
      version: string;
      migrations: string[];
      pending: string[];
      unknown: string[];
      keyFingerprint: string | null;
      connections: number;
      maxConnections: number;
    };

/** Share of max_connections in use from which doctor warns: a new process's pool may not get its connections. */
const CONNECTIONS_WARN = 0.8;

/**
 * The installation's PostgreSQL database (DATABASE_URL), as every process of it sees it: reachable, its schema this
 * version's (or what is left to apply, or migrated by a newer version), this process's key the installation's, and
 * the server's connections in use against max_connections.
 */
export function postgresFindings(facts: PostgresFacts, instance: string | null): Finding[] {
  const check = "PostgreSQL";
  if (!facts.reachable)
    return [{ level: "fail", check, message: `${facts.database} cannot be reached (${facts.error})`, fix: "check DATABASE_URL (host, port, user, password, database), that the server runs, and that it lets this machine in (pg_hba.conf, firewall)" }];
  const out: Finding[] = [];
  if (facts.unknown.length)
    out.push({ level: "fail", check, message: `${facts.database} was migrated by a newer smsdesk (${facts.unknown.join(", ")}): this version refuses to start on it`, fix: "run that version or a newer one on every process" });
  else if (facts.pending.length)
    out.push({
      level: "warn",
      check,
      message: `${facts.database} (PostgreSQL ${facts.version}) lacks ${facts.pending.length} of this version's ${facts.migrations.length} migrations (${facts.pending[0]}${facts.pending.length > 1 ? ` to ${facts.pending.at(-1)}` : ""})`,
      fix: "start one process of this version: it applies them under the migration lock while the others wait",
    });
  else out.push({ level: "ok", check, message: `${facts.database} (PostgreSQL ${facts.version}) has this version's schema (${facts.migrations.at(-1)})` });
  if (facts.keyFingerprint === null)
    out.push({ level: "warn", check, message: "no installation key is stored yet: the first process to start stores its key's fingerprint", fix: "give every process the same secret.key (SECRET_KEY_FILE) before the first start" });
  else if (instance !== facts.keyFingerprint)
    out.push({
      level: "fail",
      check,
      message: `this process's key (instance ${instance ?? "none"}) is not the installation's (instance ${facts.keyFingerprint}): it refuses to start`,
      fix: "copy the installation's secret.key into this process's DATA_DIR, or point SECRET_KEY_FILE at it",
    });
  else out.push({ level: "ok", check, message: `this process's key is the installation's (instance ${instance})` });
  const busy = facts.connections >= facts.maxConnections * CONNECTIONS_WARN;
  out.push({
    level: busy ? "warn" : "ok",
    check,
    message: `${facts.connections} of ${facts.maxConnections} connections (max_connections) in use`,
    ...(busy ? { fix: "raise max_connections, or put a pooler (PgBouncer, transaction mode) between the processes and the server" } : {}),
  });
  return out;
}

export type RegistrationReport = {
  provider: string;
  providerName: string;
  summary: string;
  numbers: { phoneNumber: string; state: string | null; label: string; reason: string | null; todo: string | null; checkError: string | null }[];
};

const TIMEOUT_MS = 5000;
const MB = 1024 * 1024;
const GB = 1024 * MB;
/** Past this a signed webhook (Telnyx: 300 s), a two-factor code (30 s) or a scheduled send goes wrong. */
const CLOCK_FAIL_S = 30;
const CLOCK_WARN_S = 5;
const BACKUP_STALE_MS = 8 * 24 * 3600_000;

const gb = (bytes: number) => (bytes >= GB ? `${(bytes / GB).toFixed(1)} GB` : `${Math.round(bytes / MB)} MB`);
/** A network error in words (fetch and nodemailer name the same failures differently). */
function reason(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string };
  const text = `${e?.code ?? ""} ${e?.message ?? String(err)}`;
  if (e?.name === "TimeoutError" || /ETIMEDOUT|timed? ?out/i.test(text)) return `no answer in ${TIMEOUT_MS / 1000} s`;
  if (/ECONNREFUSED|ConnectionRefused/.test(text)) return "connection refused";
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return "host name not found";
  if (/certificate|CERT_|SSL|TLS/i.test(text)) return `TLS error: ${e?.message ?? e?.code}`;
  return e?.message ?? String(err);
}

function dataFolder(config: Config): Finding[] {
  const dir = config.dataDir;
  const check = "data folder";
  if (!existsSync(dir))
    return [{ level: "fail", check, message: `${dir} does not exist`, fix: `start the service once (it creates the folder 0700), or: install -d -m 0700 ${dir}` }];
  const out: Finding[] = [];
  const mode = statSync(dir).mode & 0o777;
  if (mode & 0o077) out.push({ level: "fail", check, message: `${dir} is readable by other users (mode ${mode.toString(8)})`, fix: `chmod 700 ${dir}` });
  for (const name of ["smsdesk.db", "secret.key"]) {
    const path = join(dir, name);
    if (existsSync(path) && statSync(path).mode & 0o077) out.push({ level: "fail", check, message: `${path} is readable by other users`, fix: `chmod 600 ${path}` });
  }
  const owner = statSync(dir).uid;
  if (process.getuid && owner !== process.getuid())
    out.push({ level: "warn", check, message: `${dir} belongs to user id ${owner}, not to the user running doctor`, fix: "run doctor as the service's user (sudo -u smsdesk smsdesk doctor)" });
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    out.push({ level: "fail", check, message: `${dir} is not writable by this user`, fix: `chown the folder to the service's user: chown -R smsdesk ${dir}` });
  }
  const db = join(dir, "smsdesk.db");
  const dbBytes = [db, `${db}-wal`].reduce((n, p) => n + (existsSync(p) ? statSync(p).size : 0), 0);
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  // A backup writes a copy of the database and then its archive before it deletes the copy.
  const needed = 2 * dbBytes + 100 * MB;
  if (free < needed)
    out.push({ level: "fail", check, message: `${gb(free)} free; a backup of the ${gb(dbBytes)} database needs ${gb(needed)}`, fix: "free space on that disk, or delete old backups (/admin/backup-manager)" });
  else if (free < GB) out.push({ level: "warn", check, message: `only ${gb(free)} free`, fix: "free space on that disk: the database and its backups grow with every message" });
  // On PostgreSQL the data folder holds no database of the installation's.
  if (!existsSync(db) && !config.databaseUrl) out.push({ level: "warn", check, message: `no database yet in ${dir}`, fix: "start the service once: it creates the database" });
  if (!out.some((f) => f.level !== "ok")) out.push({ level: "ok", check, message: `${dir}: 0700, ${gb(free)} free, database ${gb(dbBytes)}` });
  return out;
}

async function publicUrl(config: Config): Promise<Finding[]> {
  const check = "PUBLIC_URL";
  const url = config.publicUrl;
  const out: Finding[] = [];
  const { hostname, protocol } = new URL(url);
  const local = hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
  if (protocol === "http:" && !local)
    out.push({ level: "warn", check, message: `${url} is plain http: passwords and session cookies cross the network unencrypted`, fix: "serve it through a reverse proxy with TLS and set PUBLIC_URL=https://..." });
  let res: Response;
  try {
    res = await fetch(`${url}/api/health`, { redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    return [
      ...out,
      {
        level: "fail",
        check,
        message: `${url} does not answer from this machine (${reason(err)})`,
        fix: `start the service (systemctl start smsdesk), make ${hostname} resolve to this machine or its reverse proxy, or set PUBLIC_URL to the address users open`,
      },
    ];
  }
  if (res.status >= 300 && res.status < 400)
    return [...out, { level: "fail", check, message: `${url}/api/health redirects to ${res.headers.get("location")}`, fix: "set PUBLIC_URL to the address it redirects to (https, the final host name)" }];
  const body = (await res.json().catch(() => null)) as { instance?: unknown; version?: unknown; process?: unknown } | null;
  if (!res.ok || typeof body?.instance !== "string")
    return [
      ...out,
      { level: "fail", check, message: `${url}/api/health answered ${res.status}, not smsdesk's health check`, fix: `point the reverse proxy for ${hostname} at smsdesk (127.0.0.1:${config.port}), or correct PUBLIC_URL` },
    ];
  const own = dataDirInstanceId(config.dataDir, config.secretKeyFile);
  if (own === null) return [...out, { level: "warn", check, message: `${url} answers as smsdesk ${body.version}, but this data folder has no secret.key to tell which installation` }];
  if (body.instance !== own)
    return [
      ...out,
      {
        level: "fail",
        check,
        message: `${url} answers as another smsdesk installation (instance ${body.instance}; the one of ${config.dataDir} is ${own})`,
        fix: `PUBLIC_URL must reach the service that uses ${config.dataDir}: correct PUBLIC_URL, or the reverse proxy's upstream`,
      },
    ];
  // Behind a load balancer, the process that answered this time (host:pid); an older version does not say.
  const by = typeof body.process === "string" ? `, process ${body.process}` : "";
  return [...out, { level: "ok", check, message: `${url} answers as this installation (smsdesk ${body.version}${by})` }];
}

async function smtp(config: Config): Promise<Finding> {
  const check = "SMTP";
  if (!config.smtpUrl)
    return { level: "warn", check, message: "SMTP_URL is not set: no verification code or password reset email is sent", fix: "set SMTP_URL=smtp://user:password@host:587 (smtps:// for TLS) and SMTP_FROM" };
  const u = new URL(config.smtpUrl);
  // nodemailer's default ports: 465 for smtps, else 587.
  const where = u.port ? u.host : `${u.hostname}:${u.protocol === "smtps:" ? 465 : 587}`;
  const nodemailer = await import("nodemailer");
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS });
  try {
    // Connects, says EHLO, upgrades to TLS when offered and signs in when SMTP_URL has credentials.
    await transport.verify();
    return { level: "ok", check, message: `${where} accepted the connection and EHLO` };
  } catch (err) {
    return { level: "fail", check, message: `${where}: ${reason(err)}`, fix: "check the host, port and credentials in SMTP_URL, and that this machine may connect out on that port" };
  } finally {
    transport.close();
  }
}

/** Each provider API in use must answer (any HTTP status: it is reachable); their Date headers time the clock. */
async function providers(config: Config, ports: DoctorPorts): Promise<{ findings: Finding[]; dates: { at: number; rtt: number; origin: string }[] }> {
  const check = "providers";
  const kinds = await ports.providerKinds();
  if (kinds === null) return { findings: [{ level: "warn", check, message: "no database yet: no provider account to check" }], dates: [] };
  const real = kinds.filter((k): k is keyof Config["providerApiBase"] => k in config.providerApiBase);
  if (!real.length) return { findings: [{ level: "ok", check, message: kinds.length ? "only the simulator is used: nothing to reach" : "no provider account yet" }], dates: [] };
  const findings: Finding[] = [];
  const dates: { at: number; rtt: number; origin: string }[] = [];
  for (const kind of real) {
    const base = config.providerApiBase[kind];
    const started = ports.now();
    try {
      const res = await fetch(base, { redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
      await res.body?.cancel();
      const date = Date.parse(res.headers.get("date") ?? "");
      if (Number.isFinite(date)) dates.push({ at: date, rtt: ports.now() - started, origin: new URL(base).host });
      findings.push({ level: "ok", check, message: `${kind}: ${new URL(base).host} answers (HTTP ${res.status})` });
    } catch (err) {
      findings.push({ level: "fail", check, message: `${kind}: ${new URL(base).host} cannot be reached (${reason(err)})`, fix: `allow outbound HTTPS to ${new URL(base).host} (firewall, proxy, DNS)` });
    }
  }
  return { findings, dates };
}

function clock(ports: DoctorPorts, dates: { at: number; rtt: number; origin: string }[]): Finding {
  const check = "clock";
  const fix = "turn on time synchronisation: timedatectl set-ntp true (systemd-timesyncd or chrony)";
  const [first] = dates;
  if (!first) return { level: "warn", check, message: "not checked: no provider API answered with its time", fix: `make sure time synchronisation is on (timedatectl status); ${fix.split(": ")[1]}` };
  // The Date header is whole seconds, stamped somewhere during the round trip.
  const skew = Math.round((ports.now() - first.rtt / 2 - first.at) / 1000);
  const said = `${Math.abs(skew)} s ${skew > 0 ? "ahead of" : "behind"} ${first.origin}`;
  if (Math.abs(skew) > CLOCK_FAIL_S) return { level: "fail", check, message: `this machine's clock is ${said}: signed webhooks, two-factor codes and schedules fail`, fix };
  if (Math.abs(skew) > CLOCK_WARN_S) return { level: "warn", check, message: `this machine's clock is ${said}`, fix };
  return { level: "ok", check, message: `within ${CLOCK_WARN_S} s of ${first.origin}` };
}

function backup(config: Config, ports: DoctorPorts): Finding {
  const check = "backup";
  // The data folder's backups do not hold PostgreSQL's data: its backups are the database's (src/backups/duties.ts).
  if (config.databaseUrl)
    return {
      level: "warn",
      check,
      message: "not checked: on PostgreSQL the data is backed up by the database (point-in-time recovery, a standby), which smsdesk neither makes nor checks",
      fix: "make sure the database's backups run and test a restore with its tools (README \"PostgreSQL mode\": whose backups are whose)",
    };
  const last = ports.lastGoodBackup();
  if (!last) return { level: "fail", check, message: "there is no good backup", fix: "run smsdesk backup create, and turn on the schedule at /admin/backup-manager" };
  const hours = Math.floor((ports.now() - last.createdAt) / 3600_000);
  const age = hours < 48 ? `${hours} h old` : `${Math.floor(hours / 24)} days old`;
  if (ports.now() - last.createdAt > BACKUP_STALE_MS)
    return { level: "warn", check, message: `the newest good backup (${last.id}) is ${age}`, fix: "turn on the schedule at /admin/backup-manager, or run smsdesk backup create" };
  if (!last.drilled)
    return { level: "warn", check, message: `the newest good backup (${last.id}, ${age}) has not passed a restore drill yet`, fix: 'click "Test restore" at /admin/backup-manager (the drill also runs daily at 05:00)' };
  return { level: "ok", check, message: `${last.id}, ${age}, restore drill passed` };
}

/**
 * One line per provider account with its numbers' registration (issue 34 item 1), then one per number carriers
 * block for US recipients: unregistered or rejected fail (its texts to US numbers are refused), pending and a
 * state that could not be read warn.
 */
export function registrationFindings(reports: RegistrationReport[] | null): Finding[] {
  const check = "registration";
  if (reports === null) return [{ level: "warn", check, message: "no database yet: no sender number to check" }];
  if (!reports.length) return [{ level: "ok", check, message: "no sender number yet" }];
  const out: Finding[] = [];
  for (const r of reports) {
    out.push({ level: "ok", check, message: `${r.provider} '${r.providerName}': ${r.summary}` });
    for (const n of r.numbers) {
      const why = n.checkError ? `could not be checked (${n.checkError})` : n.reason;
      const said = `${n.phoneNumber} (${r.provider} '${r.providerName}') is ${n.label.toLowerCase()}${why ? `: ${why}` : ""}`;
      if (n.state === "unregistered" || n.state === "rejected") out.push({ level: "fail", check, message: said, ...(n.todo ? { fix: n.todo } : {}) });
      else if (n.state === "pending" || n.checkError || n.state === null)
        out.push({ level: "warn", check, message: said, fix: n.todo ?? "check the number's registration in your provider's console" });
    }
  }
  return out;
}

export async function runDoctor(config: Config, ports: DoctorPorts): Promise<Finding[]> {
  // On PostgreSQL the provider accounts and numbers are the database's, which this version does not read yet
  // (it does not serve from it): the data folder's SQLite is not the installation's, so neither is asked.
  const onPostgres = config.databaseUrl !== null && ports.postgres !== undefined;
  const [url, mail, reach, registrations, database] = await Promise.all([
    publicUrl(config),
    smtp(config),
    onPostgres
      ? Promise.resolve({ findings: [{ level: "warn", check: "providers", message: "not checked: the provider accounts are in PostgreSQL, which this version does not serve from yet" } as Finding], dates: [] })
      : providers(config, ports),
    ports.registrations && !onPostgres ? ports.registrations().then(registrationFindings) : Promise.resolve([]),
    onPostgres ? ports.postgres!().then((facts) => postgresFindings(facts, ports.instance?.() ?? null)) : Promise.resolve([]),
  ]);
  return [...url, mail, ...dataFolder(config), ...database, ...reach.findings, ...registrations, clock(ports, reach.dates), backup(config, ports)];
}

/** The report: one line per finding, what to fix under each problem, and a summary. */
export function formatFindings(findings: Finding[]): string {
  const lines = findings.flatMap((f) => [`[${f.level}]${" ".repeat(5 - f.level.length)}${f.check}: ${f.message}`, ...(f.fix && f.level !== "ok" ? [`        fix: ${f.fix}`] : [])]);
  const failed = findings.filter((f) => f.level === "fail").length;
  const warned = findings.filter((f) => f.level === "warn").length;
  lines.push(failed ? `${failed} problem${failed === 1 ? "" : "s"} to fix${warned ? `, ${warned} warning${warned === 1 ? "" : "s"}` : ""}.` : warned ? `No problems; ${warned} warning${warned === 1 ? "" : "s"}.` : "Everything checked is fine.");
  return lines.join("\n");
}
