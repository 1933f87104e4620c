// Journeys against the built executable, as an installed appliance runs it, where the source tree's tests cannot
// see what bundling changes. Passkeys: bundling once loaded @simplewebauthn/server's dependencies out of order
// there (tsyringe before its reflect polyfill), so every register/begin answered 500 while the same code worked from
// the source tree. Results: the dashboards' charts are a chunk of their own (uPlot) and Sent Messages' CSV a
// stream, both served from what the executable embeds.
//   SMSDESK_EXECUTABLE=/path/to/smsdesk   use that build instead of building one (needs dist/public: build-ui)
import { expect, test } from "@playwright/test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildExecutable } from "../support/executable-cache";
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
    // --reuse-ui: embed the UI build the other browser tests serve, without rebuilding it under them; the API
    // tests' build of the same inputs is reused from the cache.
    executable = join(dir, "smsdesk");
    const build = buildExecutable(executable, process.env.BUN_PATH ?? join(root, "node_modules", ".bin", "bun"));
    expect(build.ok, build.ok ? "" : build.stderr).toBe(true);
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

test("the executable: a campaign through the simulator, then its figures on Results & Stats, with charts, and in Sent Messages' CSV", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await app.signUp(page, { email: `exeresults${Date.now()}@example.com` }, { from: "auth page" });
  const call = await app.apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false, timezone: "America/Chicago" }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call(`/api/sms-providers/${provider.id}`, { settings: { deliveryDelayMs: 0 } }, "PATCH");
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  const recipients = ["+13125550101", "+13125550102", "+13125550103"];
  const campaign = await call<{ id: string }>("/api/campaigns", { name: "Executable Special", content: "Soup of the day", recipients, fromNumber: "+14155550100" });
  await call(`/api/campaigns/${campaign.id}/send`, {});
  await expect
    .poll(async () => (await call<{ status: string; counts: { delivered: number } }>(`/api/campaigns/${campaign.id}`)).counts.delivered, { timeout: 30_000 })
    .toBe(3);

  await page.goto(`${app.url}/dashboard`);
  await expect(page.getByRole("heading", { name: "Results & Stats" })).toBeVisible();
  await expect(page.getByTestId("stat-Total Sent")).toHaveText("3");
  await expect(page.getByTestId("stat-Delivered")).toHaveText("3");
  // One campaign is said in the singular (it read "1 campaigns").
  await expect(page.getByText("3 segments, 1 campaign", { exact: true })).toBeVisible();
  // The charts' code is a chunk of its own, loaded from the executable; with no replies yet that chart says so.
  for (const chart of ["chart-outcomes", "chart-delivery-rate", "chart-senders"]) {
    await expect(page.getByTestId(chart).locator("canvas").first()).toBeVisible();
  }
  await expect(page.getByTestId("chart-replies")).toContainText("No replies or opt-outs in this period yet.");
  const outcomes = page.getByTestId("chart-outcomes");
  await outcomes.getByRole("button", { name: "table" }).click();
  const today = new Date().toLocaleDateString("en-CA", { timeZone: "America/Chicago" });
  const series = await call<{ days: { date: string; delivered: number }[] }>("/api/results/series?days=30");
  expect(series.days.find((d) => d.date === today)?.delivered).toBe(3);
  await expect(outcomes.getByRole("row")).toHaveCount(31);
  await expect(page.getByTestId("recent-campaign").first()).toContainText("Executable Special");

  await page.goto(`${app.url}/sent-messages`);
  await expect(page.getByTestId("history-row")).toHaveCount(1);
  await expect(page.getByTestId("history-row")).toContainText("Executable Special");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  expect(download.suggestedFilename()).toBe(`sent-messages-${today}.csv`);
  const lines = readFileSync(await download.path(), "utf8").split("\r\n").filter(Boolean);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain("Executable Special");
});
