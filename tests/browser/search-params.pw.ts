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

test("search parameters: /auth?next, ?step and ?error, and the home page's ?auth=google, with odd values", async ({ page }) => {
  // Signed out: an error of a failed Google sign-in is shown, one the router reads as a number as its text, an
  // empty one not at all; a step other than 2fa is the ordinary sign-in.
  await page.goto(`${app.url}/auth?error=${encodeURIComponent("Google sign-in was cancelled")}`);
  await expect(page.getByText("Google sign-in was cancelled")).toBeVisible();
  await page.goto(`${app.url}/auth?error=404`);
  await expect(page.getByText("404", { exact: true })).toBeVisible();
  await page.goto(`${app.url}/auth?error=&step=nonsense`);
  await expect(page.getByRole("button", { name: "Sign In", exact: true }).last()).toBeVisible();
  await expect(page.getByLabel("Verification code")).toHaveCount(0);
  await expect(page.getByRole("alert")).toHaveCount(0);

  // Signed in, /auth goes straight to its next: a path of this site, else home.
  await app.verifiedAccount({ email: `searchauth${Date.now()}@example.com` }, page.request);
  await page.goto(`${app.url}/auth?next=${encodeURIComponent("/templates?from=mail")}`);
  await expect(page).toHaveURL(`${app.url}/templates?from=mail`);
  for (const odd of ["//evil.example/steal", "https://evil.example/", "12345", "/auth/reset-password"]) {
    await page.goto(`${app.url}/auth?next=${encodeURIComponent(odd)}`);
    await expect(page).toHaveURL(`${app.url}/`);
  }

  // Back from Google (/?auth=google) the page that sent the user to sign in, kept in the tab, opens; any other
  // value of auth is the plain home page.
  await page.evaluate(() => sessionStorage.setItem("smsdesk.next-after-google", "/keywords"));
  await page.goto(`${app.url}/?auth=GOOGLE`);
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, / })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/");
  await page.goto(`${app.url}/?auth=google`);
  await expect(page).toHaveURL(`${app.url}/keywords`);
  expect(await page.evaluate(() => sessionStorage.getItem("smsdesk.next-after-google"))).toBeNull();
});
