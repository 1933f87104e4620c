// The real server as a separate process (`bun src/main.ts`), for tests that kill it mid-work and start it again
// on the same data folder.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const bun = join(root, "node_modules", ".bin", "bun");

export type ChildServer = { url: string; process: ChildProcess; output: () => string; kill: (signal?: NodeJS.Signals) => Promise<void> };

export async function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const child = spawn(bun, ["src/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", SMSDESK_DEV: "", SMTP_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
    const check = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
  return {
    url,
    process: child,
    output: () => out,
    async kill(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** The default PUBLIC_URL of a server listening on 127.0.0.1: the origin its sign-in accepts requests from. */
export const publicOrigin = (base: string) => base.replace("//127.0.0.1:", "//localhost:");

export async function childApi(base: string, path: string, opts: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(base + path, {
    method: opts.method ?? (opts.body === undefined ? "GET" : "POST"),
    headers: {
      "content-type": "application/json",
      origin: publicOrigin(base),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
