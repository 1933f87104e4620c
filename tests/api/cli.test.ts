import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

let files = 0;
/** A password file (outside the data folder) holding `text`. */
function passwordFile(text: string) {
  const path = join(dataDir, `..`, `${dataDir.split("/").at(-1)}-password-${files++}`);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}
const GOOD = () => passwordFile("long-enough\n");

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
      [["admin", "create", "--email", "owner@example.com", "--password-file", passwordFile("short\n")], "smsdesk: The password must be at least 6 characters\n"],
      [["admin", "create", "--email", "not-an-email", "--password-file", GOOD()], "smsdesk: Not an email address: not-an-email\n"],
      [["admin", "create", "--email", "owner@example.com", "--password-file", passwordFile("\n")], `smsdesk: The password file ${join(dataDir, "..", `${dataDir.split("/").at(-1)}-password-${files - 1}`)} is empty\n`],
      [["admin", "create", "--email", "owner@example.com", "--password-file", "/nonexistent/pw"], "smsdesk: Cannot read the password file /nonexistent/pw: ENOENT: no such file or directory, open '/nonexistent/pw'\n"],
      [["admin", "create", "--email", "owner@example.com", "--password-file"], "smsdesk: --password-file needs a file name\n"],
      [["admin", "create"], "smsdesk: admin create needs --email\n"],
      [["admin", "remove"], "smsdesk: Unknown admin command. Did you mean: smsdesk admin create --email E?\n"],
    ];
    for (const [args, message] of cases) {
      const r = smsdesk(args);
      expect({ args, code: r.code, err: r.err }).toEqual({ args, code: 2, err: message });
    }
  });

  test("a data folder that cannot be created is an operator's error too", () => {
    const r = smsdesk(["admin", "create", "--email", "owner@example.com", "--password-file", GOOD()], { DATA_DIR: "/proc/smsdesk-nope" });
    expect(r.code).toBe(2);
    expect(r.err).toStartWith("smsdesk: ENOENT");
    expect(r.err.split("\n").filter(Boolean)).toHaveLength(1);
  });

  test("on success it names the address from PORT, or PUBLIC_URL when set", () => {
    const byPort = smsdesk(["admin", "create", "--email", "owner@example.com", "--password-file", GOOD()], { PORT: "9321" });
    expect({ code: byPort.code, out: byPort.out }).toEqual({
      code: 0,
      out: "Administrator owner@example.com is ready. Sign in at http://localhost:9321/admin\n",
    });
    const byUrl = smsdesk(["admin", "create", "--email", "owner@example.com", "--password-file", GOOD()], { PUBLIC_URL: "https://sms.example.com" });
    expect(byUrl.out).toBe("Administrator owner@example.com is ready. Sign in at https://sms.example.com/admin\n");
  });

  test("a password on the command line is refused, pointing to the prompt and --password-file; nobody is created", () => {
    const message =
      "smsdesk: admin create does not take the password on the command line: the shell history and the process list would keep it. " +
      "Leave it out to be asked for it, or pass --password-file FILE (its first line is the password)\n";
    for (const args of [
      ["admin", "create", "--email", "argv@example.com", "--password", "long-enough"],
      ["admin", "create", "--email", "argv@example.com", "--password=long-enough"],
      ["admin", "create", "--password", "long-enough", "--email", "argv@example.com"],
    ]) {
      const r = smsdesk(args);
      expect({ args, code: r.code, err: r.err }).toEqual({ args, code: 2, err: message });
    }
    const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
    expect(db.query("select count(*) as n from users where email = 'argv@example.com'").get()).toEqual({ n: 0 });
    db.close();
  });

  test("--password-file: its first line is the password (the newline is not part of it)", async () => {
    const r = smsdesk(["admin", "create", "--email", "file@example.com", "--password-file", passwordFile("from-a-file-42\r\nsecond line\n")]);
    expect(r.code).toBe(0);
    const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
    const row = db.query("select password_hash as hash, role from users where email = 'file@example.com'").get() as { hash: string; role: string };
    db.close();
    expect(row.role).toBe("admin");
    expect(await Bun.password.verify("from-a-file-42", row.hash)).toBe(true);
  });
});
