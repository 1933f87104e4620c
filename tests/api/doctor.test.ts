import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createBackup, drillBackup, listBackups } from "../../src/backups/backups";
import { formatFindings, runDoctor, type DoctorPorts } from "../../src/cli/doctor";
import { loadConfig } from "../../src/config";
import { VERSION } from "../../src/version";
import { startTestServer, type TestServer } from "../support/test-server";

const root = join(import.meta.dir, "..", "..");

/** A port nothing listens on. */
function closedPort(): number {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

let t: TestServer;
let other: TestServer;
/** A provider API: answers 401 like Twilio without credentials, with its Date header (or `providerDate`). */
let providerDate: number | null = null;
const provider = Bun.serve({
  port: 0,
  fetch: () => new Response("{}", { status: 401, headers: { date: new Date(providerDate ?? Date.now()).toUTCString() } }),
});
const providerHost = `127.0.0.1:${provider.port}`;

beforeAll(async () => {
  t = await startTestServer();
  other = await startTestServer({ smtp: false });
});
afterAll(async () => {
  provider.stop(true);
  await t?.stop();
  await other?.stop();
});

const ports = (over: Partial<DoctorPorts> = {}): DoctorPorts => ({
  lastGoodBackup: () => {
    const b = listBackups(t.ctx.config.dataDir).find((x) => x.status === "good");
    return b ? { id: b.id, createdAt: b.createdAt, drilled: b.drill?.ok === true } : null;
  },
  providerKinds: async () => ["twilio", "simulator"],
  now: Date.now,
  ...over,
});
const configWith = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: t.dataDir, PUBLIC_URL: t.url, SMTP_URL: t.smtpUrl!, TWILIO_API_BASE: `http://${providerHost}`, ...env }, []);
const byCheck = (findings: Awaited<ReturnType<typeof runDoctor>>, check: string) => findings.filter((f) => f.check === check);

describe("smsdesk doctor on a fresh data folder", () => {
  test("prints what to fix and exits 1", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-doctor-fresh-"));
    try {
      chmodSync(dataDir, 0o700);
      const port = closedPort();
      const { PORT: _p, PUBLIC_URL: _u, HOST: _h, SMTP_URL: _s, ...rest } = process.env;
      const r = Bun.spawnSync([process.execPath, "src/main.ts", "doctor"], {
        cwd: root,
        env: { ...rest, DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}` },
        stdin: "ignore",
      });
      expect(r.stdout.toString()).toBe(
        [
          `[fail] PUBLIC_URL: http://127.0.0.1:${port} does not answer from this machine (connection refused)`,
          "        fix: start the service (systemctl start smsdesk), make 127.0.0.1 resolve to this machine or its reverse proxy, or set PUBLIC_URL to the address users open",
          "[warn] SMTP: SMTP_URL is not set: no verification code or password reset email is sent",
          "        fix: set SMTP_URL=smtp://user:password@host:587 (smtps:// for TLS) and SMTP_FROM",
          `[warn] data folder: no database yet in ${dataDir}`,
          "        fix: start the service once: it creates the database",
          "[warn] providers: no database yet: no provider account to check",
          "[warn] registration: no database yet: no sender number to check",
          "[warn] clock: not checked: no provider API answered with its time",
          "        fix: make sure time synchronisation is on (timedatectl status); timedatectl set-ntp true (systemd-timesyncd or chrony)",
          "[fail] backup: there is no good backup",
          "        fix: run smsdesk backup create, and turn on the schedule at /admin/backup-manager",
          "2 problems to fix, 5 warnings.",
          "",
        ].join("\n"),
      );
      expect(r.exitCode).toBe(1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("smsdesk doctor on a running installation", () => {
  test("everything fine: PUBLIC_URL reaches this installation, SMTP answers EHLO, a drilled backup, the clock agrees", async () => {
    const made = await createBackup(t.ctx);
    await drillBackup(t.dataDir, made.id, Date.now(), { wait: false });
    const findings = await runDoctor(configWith({}), ports());
    const report = formatFindings(findings);
    expect(findings.filter((f) => f.level !== "ok")).toEqual([]);
    expect(byCheck(findings, "PUBLIC_URL")).toEqual([{ level: "ok", check: "PUBLIC_URL", message: `${t.url} answers as this installation (smsdesk ${VERSION}, process ${hostname()}:${process.pid})` }]);
    expect(byCheck(findings, "SMTP")[0]!.message).toBe(`127.0.0.1:${new URL(t.smtpUrl!).port} accepted the connection and EHLO`);
    expect(byCheck(findings, "providers")[0]!.message).toBe(`twilio: ${providerHost} answers (HTTP 401)`);
    expect(byCheck(findings, "clock")[0]!.message).toBe(`within 5 s of ${providerHost}`);
    expect(byCheck(findings, "backup")[0]!.message).toMatch(new RegExp(`^${made.id}, 0 h old, restore drill passed$`));
    expect(report.split("\n").at(-1)).toBe("Everything checked is fine.");
  });

  test("a broken PUBLIC_URL says what to fix: nothing answers, something else answers, another installation answers", async () => {
    const port = closedPort();
    const down = byCheck(await runDoctor(configWith({ PUBLIC_URL: `http://127.0.0.1:${port}` }), ports()), "PUBLIC_URL");
    expect(down).toEqual([
      {
        level: "fail",
        check: "PUBLIC_URL",
        message: `http://127.0.0.1:${port} does not answer from this machine (connection refused)`,
        fix: "start the service (systemctl start smsdesk), make 127.0.0.1 resolve to this machine or its reverse proxy, or set PUBLIC_URL to the address users open",
      },
    ]);

    const elsewhere = byCheck(await runDoctor(configWith({ PUBLIC_URL: `http://${providerHost}` }), ports()), "PUBLIC_URL");
    expect(elsewhere).toEqual([
      {
        level: "fail",
        check: "PUBLIC_URL",
        message: `http://${providerHost}/api/health answered 401, not smsdesk's health check`,
        fix: `point the reverse proxy for 127.0.0.1 at smsdesk (127.0.0.1:8080), or correct PUBLIC_URL`,
      },
    ]);

    const another = await runDoctor(configWith({ PUBLIC_URL: other.url }), ports());
    const [wrong] = byCheck(another, "PUBLIC_URL");
    expect(wrong!.level).toBe("fail");
    expect(wrong!.message).toMatch(new RegExp(`^${other.url.replace(/[.]/g, "\\.")} answers as another smsdesk installation \\(instance [0-9a-f]{16}; the one of ${t.dataDir} is [0-9a-f]{16}\\)$`));
    expect(wrong!.fix).toBe(`PUBLIC_URL must reach the service that uses ${t.dataDir}: correct PUBLIC_URL, or the reverse proxy's upstream`);
    expect(formatFindings(another)).toContain(`        fix: PUBLIC_URL must reach the service that uses ${t.dataDir}`);
    expect(formatFindings(another).split("\n").at(-1)).toBe("1 problem to fix.");
  });

  test("a public http address, a dead SMTP server, an unreachable provider and a wrong clock are reported", async () => {
    const smtpPort = closedPort();
    const providerPort = closedPort();
    const findings = await runDoctor(
      configWith({ PUBLIC_URL: "http://sms.example.invalid", SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, TWILIO_API_BASE: `http://127.0.0.1:${providerPort}`, TELNYX_API_BASE: `http://${providerHost}` }),
      ports({ providerKinds: async () => ["twilio", "telnyx"] }),
    );
    expect(findings[0]).toEqual({
      level: "warn",
      check: "PUBLIC_URL",
      message: "http://sms.example.invalid is plain http: passwords and session cookies cross the network unencrypted",
      fix: "serve it through a reverse proxy with TLS and set PUBLIC_URL=https://...",
    });
    expect(byCheck(findings, "SMTP")).toEqual([
      {
        level: "fail",
        check: "SMTP",
        message: `127.0.0.1:${smtpPort}: connection refused`,
        fix: "check the host, port and credentials in SMTP_URL, and that this machine may connect out on that port",
      },
    ]);
    expect(byCheck(findings, "providers")).toEqual([
      { level: "fail", check: "providers", message: `twilio: 127.0.0.1:${providerPort} cannot be reached (connection refused)`, fix: `allow outbound HTTPS to 127.0.0.1:${providerPort} (firewall, proxy, DNS)` },
      { level: "ok", check: "providers", message: `telnyx: ${providerHost} answers (HTTP 401)` },
    ]);

    // The provider says 12:00:00 while this machine's clock says 12:10:00.
    providerDate = Date.UTC(2030, 0, 1, 12);
    try {
      const [clock] = byCheck(await runDoctor(configWith({}), ports({ now: () => Date.UTC(2030, 0, 1, 12, 10) })), "clock");
      expect(clock).toEqual({
        level: "fail",
        check: "clock",
        message: `this machine's clock is 600 s ahead of ${providerHost}: signed webhooks, two-factor codes and schedules fail`,
        fix: "turn on time synchronisation: timedatectl set-ntp true (systemd-timesyncd or chrony)",
      });
    } finally {
      providerDate = null;
    }
  });

  test("the data folder: readable by others, and no backup", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-doctor-open-"));
    try {
      chmodSync(dataDir, 0o755);
      const findings = await runDoctor(configWith({ DATA_DIR: dataDir }), ports({ lastGoodBackup: () => null }));
      expect(byCheck(findings, "data folder")).toEqual([
        { level: "fail", check: "data folder", message: `${dataDir} is readable by other users (mode 755)`, fix: `chmod 700 ${dataDir}` },
        { level: "warn", check: "data folder", message: `no database yet in ${dataDir}`, fix: "start the service once: it creates the database" },
      ]);
      expect(byCheck(findings, "backup")).toEqual([
        { level: "fail", check: "backup", message: "there is no good backup", fix: "run smsdesk backup create, and turn on the schedule at /admin/backup-manager" },
      ]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
