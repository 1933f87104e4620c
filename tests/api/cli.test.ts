import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `smsdesk ...args` from source, as `node_modules/.bin/bun src/main.ts` does for an `npm start` installation. */
function smsdesk(args: string[], env: Record<string, string> = {}) {
  const { PORT: _p, PUBLIC_URL: _u, HOST: _h, ...rest } = process.env;
  const r = Bun.spawnSync([process.execPath, "src/main.ts", ...args], {
    cwd: root,
    env: { ...rest, DATA_DIR: dataDir, ...env },
    stdin: "ignore",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("smsdesk admin create", () => {
  test("expected mistakes print the message alone and exit 2, without a stack trace", () => {
    const cases: [string[], string][] = [
      [["admin", "create", "--email", "owner@example.com", "--password", "short"], "smsdesk: The password must be at least 6 characters\n"],
      [["admin", "create", "--email", "not-an-email", "--password", "long-enough"], "smsdesk: Not an email address: not-an-email\n"],
      [["admin", "create"], "smsdesk: admin create needs --email\n"],
      [["admin", "remove"], "smsdesk: Unknown admin command. Did you mean: smsdesk admin create --email E?\n"],
    ];
    for (const [args, message] of cases) {
      const r = smsdesk(args);
      expect({ args, code: r.code, err: r.err }).toEqual({ args, code: 2, err: message });
    }
  });

  test("a data folder that cannot be created is an operator's error too", () => {
    const r = smsdesk(["admin", "create", "--email", "owner@example.com", "--password", "long-enough"], { DATA_DIR: "/proc/smsdesk-nope" });
    expect(r.code).toBe(2);
    expect(r.err).toStartWith("smsdesk: ENOENT");
    expect(r.err.split("\n").filter(Boolean)).toHaveLength(1);
  });

  test("on success it names the address from PORT, or PUBLIC_URL when set", () => {
    const byPort = smsdesk(["admin", "create", "--email", "owner@example.com", "--password", "long-enough"], { PORT: "9321" });
    expect({ code: byPort.code, out: byPort.out }).toEqual({
      code: 0,
      out: "Administrator owner@example.com is ready. Sign in at http://localhost:9321/admin\n",
    });
    const byUrl = smsdesk(["admin", "create", "--email", "owner@example.com", "--password", "long-enough"], { PUBLIC_URL: "https://sms.example.com" });
    expect(byUrl.out).toBe("Administrator owner@example.com is ready. Sign in at https://sms.example.com/admin\n");
  });
});
