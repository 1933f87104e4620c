import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

// Issue 30 item 4: the routes check their search parameters (ui/lib/search.ts); an odd address gets the default.
let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("search parameters: /automation?tab, /license?onboarding and a reset link's token, with odd values", async ({ page }) => {
  await page.goto(`${app.url}/auth/reset-password`);
  await expect(page.getByRole("heading", { name: "Invalid Reset Link" })).toBeVisible();
  // An empty token, or one the router reads as a number (no emailed token is), is no token.
  await page.goto(`${app.url}/auth/reset-password?token=`);
  await expect(page.getByRole("heading", { name: "Invalid Reset Link" })).toBeVisible();
  await page.goto(`${app.url}/auth/reset-password?token=12345`);
  await expect(page.getByRole("heading", { name: "Invalid Reset Link" })).toBeVisible();

  await app.verifiedAccount({ email: `search${Date.now()}@example.com` }, page.request);
  await page.goto(`${app.url}/automation?tab=drips`);
  await expect(page.getByRole("tab", { name: "Drip Campaigns" })).toHaveAttribute("aria-selected", "true");
  await page.goto(`${app.url}/automation?tab=nonsense`);
  await expect(page.getByRole("tab", { name: "Automation Rules" })).toHaveAttribute("aria-selected", "true");

  await page.goto(`${app.url}/license?onboarding`);
  await expect(page.getByRole("heading", { name: "Welcome! Do you have a license code?" })).toBeVisible();
  await page.goto(`${app.url}/license`);
  await expect(page.getByRole("heading", { name: "License", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Welcome! Do you have a license code?" })).toHaveCount(0);
});
