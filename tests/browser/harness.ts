// Starts what a browser test needs: a local SMTP server that keeps every email, and the real server
// (`bun src/main.ts`) on a free port with a fresh data folder, pointed at that SMTP server.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";

export type Mail = { to: string; raw: string };

export class Appliance {
  readonly mails: Mail[] = [];
  url = "";
  private smtp?: SMTPServer;
  private server?: ChildProcess;
  private dataDir = mkdtempSync(join(tmpdir(), "smsdesk-browser-"));

  /**
   * `urlHost: "localhost"` serves the pages from http://localhost:PORT and sets PUBLIC_URL to that origin
   * (WebAuthn needs localhost as the relying party, not 127.0.0.1).
   */
  async start(env: Record<string, string> = {}, opts: { urlHost?: string } = {}) {
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
    this.server = spawn(process.env.BUN_PATH ?? join(root, "node_modules", ".bin", "bun"), ["src/main.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: this.dataDir, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
      this.server!.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        // Pages are opened at the public URL (http://localhost:PORT by default): the server refuses changes
        // (sign-in included) from any other origin.
        const match = /running at (http:\/\/127\.0\.0\.1:\d+)(?: \(public URL (\S+)\))?\n/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[2] ?? match[1]!);
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

  async stop() {
    this.server?.kill("SIGTERM");
    await new Promise((r) => this.server?.once("exit", r) ?? r(null));
    await new Promise((r) => this.smtp?.close(() => r(null)) ?? r(null));
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
