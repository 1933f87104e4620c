// The real server (startServer, as `smsdesk` runs it) in a child process whose clock the test moves, for tests
// that span hours of retries and restart the appliance on the same data folder. The child's ctx.now is the wall
// clock plus an offset (SMSDESK_TEST_CLOCK_OFFSET at start); the test writes `advance <ms>` on its stdin, the child
// moves its clock, runs the jobs then due (as the runner's next tick would) and answers `advanced <offset>`.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const bun = join(root, "node_modules", ".bin", "bun");

export type ClockedServer = {
  url: string;
  process: ChildProcess;
  output: () => string;
  /** Moves the child's clock forward and waits until the jobs due by then have run. */
  advance: (ms: number) => Promise<number>;
  kill: (signal: NodeJS.Signals) => Promise<void>;
};

export async function startClockedServer(env: Record<string, string>, offsetMs: number): Promise<ClockedServer> {
  const child = spawn(bun, [join(import.meta.dir, "clocked-main.ts")], {
    cwd: root,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", SMSDESK_DEV: "", SMTP_URL: "", ...env, SMSDESK_TEST_CLOCK_OFFSET: String(offsetMs) },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  const onData = (c: Buffer) => {
    out += c.toString();
    for (const w of [...waiters]) {
      const m = w.pattern.exec(out);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const next = (pattern: RegExp, what: string) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: no answer:\n${out}`)), 30_000);
      waiters.push({ pattern, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      onData(Buffer.alloc(0));
      child.once("exit", (code) => reject(new Error(`${what}: the server exited with ${code}:\n${out}`)));
    });
  const url = (await next(/running at (http:\/\/127\.0\.0\.1:\d+)/, "start"))[1]!;
  let asked = 0;
  return {
    url,
    process: child,
    output: () => out,
    async advance(ms) {
      const n = ++asked;
      child.stdin!.write(`advance ${ms} ${n}\n`);
      return Number((await next(new RegExp(`advanced (\\d+) ${n}\\n`), "advance"))[1]);
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
