// The passkey journey against the built executable, as an installed appliance runs it: bundling once loaded
// @simplewebauthn/server's dependencies out of order there (tsyringe before its reflect polyfill), so every
// register/begin answered 500 while the same code worked from the source tree.
//   SMSDESK_EXECUTABLE=/path/to/smsdesk   use that build instead of building one (needs dist/public: build-ui)
import { expect, test } from "@playwright/test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { addVirtualAuthenticator } from "./virtual-authenticator";

const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "smsdesk-exe-passkeys-"));
const mails: { to: string; raw: string }[] = [];
let smtp: SMTPServer;
let server: ChildProcess;
let url = "";

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function codeFor(email: string) {
  await expect.poll(() => mails.some((m) => m.to === email), { timeout: 10_000 }).toBe(true);
  const raw = mails.filter((m) => m.to === email).at(-1)!.raw.replace(/=\r?\n/g, "");
  return /verification code is (\d{6})/.exec(raw)![1]!;
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  let executable = process.env.SMSDESK_EXECUTABLE;
  if (!executable) {
    // --reuse-ui: embed the UI build the other browser tests serve, without rebuilding it under them.
    executable = join(dir, "smsdesk");
    const bun = process.env.BUN_PATH ?? join(root, "node_modules", ".bin", "bun");
    const build = spawnSync(bun, ["scripts/build.ts", "--reuse-ui", "--outfile", executable], { cwd: root, encoding: "utf8" });
    expect(build.status, build.stderr).toBe(0);
  }

  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData: (stream, session, callback) => {
      let raw = "";
      stream.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
      stream.on("end", () => {
        for (const rcpt of session.envelope.rcptTo) mails.push({ to: rcpt.address.toLowerCase(), raw });
        callback();
      });
    },
  });
  const smtpPort = await new Promise<number>((resolve) => {
    smtp.listen(0, "127.0.0.1", () => resolve((smtp.server.address() as { port: number }).port));
  });

  // Alone in an empty folder with only its settings, as install.sh runs it; localhost is the relying party.
  const port = await freePort();
  url = `http://localhost:${port}`;
  server = spawn(executable, [], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: join(dir, "data"),
      PUBLIC_URL: url,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`executable did not start:\n${out}`)), 20_000);
    server.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`(public URL ${url})`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    server.on("exit", (code) => reject(new Error(`executable exited with ${code}:\n${out}`)));
  });
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
  }
  await new Promise((r) => (smtp ? smtp.close(() => r(null)) : r(null)));
  rmSync(dir, { recursive: true, force: true });
});

test("the executable: sign up, register a passkey, sign out, and sign in with the passkey", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  const authenticatorId = await addVirtualAuthenticator(cdp);
  const email = `exepasskey${Date.now()}@example.com`;
  const password = "tulips-and-texts";

  await page.goto(`${url}/auth`);
  await page.getByRole("tab", { name: "Sign Up" }).click();
  await page.getByLabel("First name").fill("Rosa");
  await page.getByLabel("Last name").fill("Diaz");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByRole("heading", { name: "Verify your email" })).toBeVisible();
  await page.getByLabel("Verification code").fill(await codeFor(email));
  await page.getByRole("button", { name: "Verify Email" }).click();
  await expect(page.getByText("Email verified successfully!").first()).toBeVisible();

  await page.goto(`${url}/settings/security`);
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Passkeys" }) });
  await expect(section.getByText("No passkeys yet.")).toBeVisible();
  await section.getByRole("button", { name: "Add Passkey" }).click();
  await section.getByLabel("Passkey name").fill("Office desktop");
  await section.getByLabel("Your password").fill(password);
  await section.getByRole("button", { name: "Register Passkey" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Passkey registered successfully" })).toBeVisible();
  await expect(section.getByTestId("passkey-item")).toContainText("Office desktop");
  expect((await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials).toHaveLength(1);

  await page.getByRole("button", { name: "Sign Out", exact: true }).click();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  await page.goto(`${url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in with Passkey" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Signed in with passkey successfully" })).toBeVisible();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  await page.goto(`${url}/settings/security`);
  await expect(section.getByTestId("passkey-item")).not.toContainText("Last used Never");
});
