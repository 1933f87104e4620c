import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "correct-horse-battery";

// Production without SMTP: no verification code or reset link reaches anyone but through the administrator.
let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD, SMTP_URL: "" });
});
test.afterAll(async () => {
  await app.stop();
});

test("without email, the administrator marks a new user verified and hands over a reset link that works", async ({ page, browser }) => {
  const email = `noemail${Date.now()}@example.com`;
  await app.register({ email, password: "first-password", firstName: "Nora", lastName: "Mail" });

  await page.goto(`${app.url}/admin`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard/);
  // A sign-in is not a confirmation: handing out a reset link would ask for the password (admin.pw.ts shows it).
  await app.confirm(page, ADMIN_PASSWORD);

  const row = page.getByTestId("admin-user-row").filter({ hasText: email });
  await expect(row).toContainText("Unverified");
  await row.getByRole("button", { name: "Mark verified" }).click();
  await page.getByRole("dialog", { name: "Mark verified" }).getByRole("button", { name: "Mark verified" }).click();
  await expect(row).toContainText("Active");
  await expect(row.getByRole("button", { name: "Mark verified" })).toHaveCount(0);

  await row.getByRole("button", { name: "Send reset link" }).click();
  await page.getByRole("dialog", { name: "Send reset link" }).getByRole("button", { name: "Send link" }).click();
  const dialog = page.getByRole("dialog", { name: "Password reset link" });
  await expect(dialog).toContainText(`Email is not configured. Give this link to ${email}`);
  const link = await dialog.getByLabel(`Reset link for ${email}`).inputValue();
  expect(link).toMatch(new RegExp(`^${app.url}/auth/reset-password\\?token=[\\w-]{40,}$`));

  // The user opens the link in their own browser and chooses a password.
  const userContext = await browser.newContext();
  const user = await userContext.newPage();
  await user.goto(link);
  await user.getByLabel("New password").fill("second-password");
  await user.getByLabel("Confirm password").fill("second-password");
  await user.getByRole("button", { name: "Reset Password" }).click();
  await expect(user.getByRole("heading", { name: "Password reset" })).toBeVisible();
  const signIn = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.url },
    body: JSON.stringify({ email, password: "second-password" }),
  });
  expect(signIn.status).toBe(200);
  await userContext.close();
});
