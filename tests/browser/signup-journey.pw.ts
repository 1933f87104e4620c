import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("a new user signs up from the landing page, verifies the emailed code, saves settings, signs out and in again", async ({ page }) => {
  const email = `owner${Date.now()}@example.com`;
  const password = "tulips-and-texts";

  await page.goto(app.url);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Get Started" }).first().click();

  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("tab", { name: "Sign Up" })).toHaveAttribute("aria-selected", "true");
  await dialog.getByLabel("First name").fill("Rosa");
  await dialog.getByLabel("Last name").fill("Diaz");
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Password", { exact: true }).fill(password);
  await dialog.getByLabel("Confirm password").fill("something-else");
  await dialog.getByRole("button", { name: "Create Account" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Passwords do not match");
  await dialog.getByLabel("Confirm password").fill(password);
  await dialog.getByRole("button", { name: "Create Account" }).click();

  await expect(page.getByRole("heading", { name: "Verify your email" })).toBeVisible();
  await page.getByLabel("Verification code").fill("000000" === (await app.codeFor(email)) ? "111111" : "000000");
  await page.getByRole("button", { name: "Verify Email" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Invalid verification code" })).toBeVisible();

  await page.getByLabel("Verification code").fill(await app.codeFor(email));
  await page.getByRole("button", { name: "Verify Email" }).click();
  await expect(page.getByText("Email verified successfully!").first()).toBeVisible();
  // The emailed code signed the page in by the httpOnly cookie alone (issue 27 item 5).
  await app.expectSessionOnlyInCookie(page);
  // The setup wizard follows the verification and ends on /dashboard; the home page's first visit is a welcome.
  await app.completeOnboarding(page);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Welcome, Rosa!" })).toBeVisible();
  await expect(page.getByTestId("stat-Total Customers")).toHaveText("0");
  await expect(page.getByTestId("stat-Response Rate")).toHaveText("-");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account Settings" }).click();
  await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
  await page.getByLabel("Timezone").selectOption("Europe/Paris");
  await page.getByLabel("Language & Region").selectOption("fr-FR");
  await page.getByLabel("Date Format").selectOption("YYYY-MM-DD");
  await expect(page.getByTestId("preview-date")).toHaveText(/^\d{4}-\d{2}-\d{2}$/);
  await page.getByRole("button", { name: "Save Settings" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Settings saved" })).toBeVisible();

  await page.reload();
  await expect(page.getByLabel("Timezone")).toHaveValue("Europe/Paris");
  await expect(page.getByLabel("Date Format")).toHaveValue("YYYY-MM-DD");

  await page.getByRole("button", { name: "Sign Out" }).click();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  // Signing out clears the session cookie.
  expect(await app.sessionCookie(page)).toBeUndefined();

  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("wrong-password");
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();
  await expect(page.getByRole("alert").filter({ hasText: "Invalid email or password" })).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();
  await expect(page.getByRole("heading", { name: "Welcome back, Rosa!" })).toBeVisible();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account Settings" }).click();
  await expect(page.getByLabel("Language & Region")).toHaveValue("fr-FR");
});
