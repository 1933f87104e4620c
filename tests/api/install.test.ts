// install.sh in a dry run (the files it would write, under a folder, and the commands it would run), the
// Dockerfile's user and health check, and `smsdesk healthcheck` that the health check runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/test-server";

const root = join(import.meta.dir, "..", "..");
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const install = (args: string[]) => {
  const r = Bun.spawnSync(["sh", join(root, "install.sh"), ...args], { cwd: root, stdin: "ignore" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
};

describe("install.sh --dry-run", () => {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-install-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("writes the unit, the settings file and the data folder under --root, and prints the commands it would run", () => {
    const r = install(["--dry-run", "--root", dir, "--public-url", "https://sms.example.com", "--trusted-proxies", "127.0.0.1,::1", "--data-dir", "/srv/smsdesk"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const unit = readFileSync(join(dir, "etc/systemd/system/smsdesk.service"), "utf8");
    const service = unit.slice(unit.indexOf("[Service]"), unit.indexOf("[Install]")).split("\n");
    for (const line of [
      "User=smsdesk",
      "Environment=PORT=8080",
      "Environment=DATA_DIR=/srv/smsdesk",
      "Environment=PUBLIC_URL=https://sms.example.com",
      "Environment=TRUSTED_PROXIES=127.0.0.1,::1",
      "EnvironmentFile=-/etc/smsdesk.env",
      "ExecStart=/usr/local/bin/smsdesk",
      "Restart=on-failure",
      "UMask=0077",
      "NoNewPrivileges=true",
      "ProtectSystem=strict",
      "ReadWritePaths=/srv/smsdesk",
      "ProtectHome=true",
      "PrivateTmp=true",
      "PrivateDevices=true",
      "CapabilityBoundingSet=",
      "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
    ])
      expect(service).toContain(line);
    // Bun's compiler writes executable memory: this option would stop the service from starting.
    expect(unit).not.toContain("\nMemoryDenyWriteExecute=");
    expect(unit).toContain("[Install]\nWantedBy=multi-user.target\n");
    expect(mode(join(dir, "srv/smsdesk"))).toBe("700");
    expect(mode(join(dir, "etc/smsdesk.env"))).toBe("600");
    expect(readFileSync(join(dir, "etc/smsdesk.env"), "utf8")).toContain("# SMTP_URL=smtps://user:password@smtp.example.com:465\n");
    // Nothing but the files is touched: the executable, the user, the owner and systemd are commands it prints.
    expect(existsSync(join(dir, "usr/local/bin/smsdesk"))).toBe(false);
    expect(r.out.split("\n").filter((l) => l.startsWith("would run: "))).toEqual([
      "would run: useradd --system --user-group --home-dir /srv/smsdesk --no-create-home --shell /usr/sbin/nologin smsdesk",
      "would run: chown smsdesk:smsdesk /srv/smsdesk",
      `would run: install -m 0755 ${root}/dist/smsdesk /usr/local/bin/smsdesk`,
      "would run: systemctl daemon-reload",
      "would run: systemctl enable --now smsdesk",
    ]);
    // The reverse-proxy notes: TLS, PUBLIC_URL and TRUSTED_PROXIES.
    expect(r.out).toContain("TLS: serve smsdesk only over https.");
    expect(r.out).toContain("PUBLIC_URL is the address browsers open");
    expect(r.out).toContain("TRUSTED_PROXIES lists the proxy's own");
  });

  test("without PUBLIC_URL the unit leaves it to /etc/smsdesk.env; a settings file already there is kept", () => {
    const r = install(["--dry-run", "--root", dir]);
    expect(r.code).toBe(0);
    const unit = readFileSync(join(dir, "etc/systemd/system/smsdesk.service"), "utf8");
    expect(unit).not.toContain("PUBLIC_URL");
    expect(unit).toContain("Environment=DATA_DIR=/var/lib/smsdesk\nEnvironmentFile=-/etc/smsdesk.env\n");
    expect(mode(join(dir, "var/lib/smsdesk"))).toBe("700");
  });

  test("a mistake is refused with status 2", () => {
    expect(install(["--dry-run"])).toMatchObject({ code: 2, err: "--dry-run needs --root DIR (where to write the files)\n" });
    expect(install(["--root", "/tmp/x"])).toMatchObject({ code: 2, err: "--root is for --dry-run\n" });
    expect(install(["--dry-run", "--root", "/tmp/x", "--port", "80a"])).toMatchObject({ code: 2, err: "--port must be a number\n" });
    expect(install(["--bogus"])).toMatchObject({ code: 2, err: "unknown option --bogus\n" });
  });
});

describe("the Docker image", () => {
  const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
  test("runs as a user of its own and checks its health with the executable", () => {
    const final = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(final).toContain("\nUSER smsdesk\n");
    expect(final).toContain("chmod 0700 /data");
    expect(final).toContain('HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/smsdesk", "healthcheck"]');
  });
});

describe("smsdesk healthcheck", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
  });
  afterAll(() => t?.stop());
  // Spawned without blocking: the server answering runs in this process.
  const check = async (port: number) => {
    const { PUBLIC_URL: _u, HOST: _h, ...rest } = process.env;
    const p = Bun.spawn([process.execPath, "src/main.ts", "healthcheck"], { cwd: root, env: { ...rest, PORT: String(port) }, stdin: "ignore", stderr: "pipe" });
    return { code: await p.exited, err: await new Response(p.stderr).text() };
  };

  test("exits 0 when the server answers, 1 when it does not", async () => {
    expect(await check(Number(new URL(t.url).port))).toEqual({ code: 0, err: "" });
    const s = Bun.serve({ port: 0, fetch: () => new Response() });
    const closed = s.port!;
    s.stop(true);
    expect(await check(closed)).toEqual({ code: 1, err: "smsdesk: the server does not answer its health check\n" });
  }, 30_000);
});
