// The passkey journey against the built executable, as an installed appliance runs it: bundling once loaded
// @simplewebauthn/server's dependencies out of order there (tsyringe before its reflect polyfill), so every
// register/begin answered 500 while the same code worked from the source tree.
//   SMSDESK_EXECUTABLE=/path/to/smsdesk   use that build instead of building one (needs dist/public: build-ui)
import { expect, test } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Appliance } from "./harness";
import { addVirtualAuthenticator } from "./virtual-authenticator";

const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "smsdesk-exe-passkeys-"));
let app: Appliance;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

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
  // Alone in an empty folder with only its settings, as install.sh runs it; localhost is the relying party.
  const port = await freePort();
  app = await new Appliance().start({ PORT: String(port), PUBLIC_URL: `http://localhost:${port}` }, { executable });
});

test.afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the executable: sign up, register a passkey, sign out, and sign in with the passkey", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  const authenticatorId = await addVirtualAuthenticator(cdp);
  const email = `exepasskey${Date.now()}@example.com`;
  const password = "tulips-and-texts";

  await app.signUp(page, { email, password }, { from: "auth page" });

  await page.goto(`${app.url}/settings/security`);
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
  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Signed in with passkey successfully" })).toBeVisible();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  await page.goto(`${app.url}/settings/security`);
  await expect(section.getByTestId("passkey-item")).not.toContainText("Last used Never");
});
