import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";
import { atBothWidths } from "./widths";

const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "correct-horse-battery";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD });
});
test.afterAll(async () => {
  await app.stop();
});

test("an administrator generates a license code at /admin; a user redeems it on /license and gets the plan", async ({ page, browser }) => {
  // The administrator signs in at /admin (no demo credentials anywhere on the page).
  await page.goto(`${app.url}/admin`);
  await expect(page.getByRole("heading", { name: "Admin Portal" })).toBeVisible();
  await expect(page.getByText(/demo/i)).toHaveCount(0);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Missing Information" })).toContainText("Please enter both email and password");

  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill("not-the-password");
  await page.getByRole("button", { name: "Show password" }).click();
  await expect(page.getByLabel("Password", { exact: true })).toHaveAttribute("type", "text");
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Access Denied" })).toContainText("Invalid admin credentials");

  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Admin Access Granted" })).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/dashboard/);
  await expect(page.getByRole("heading", { name: "Admin Panel" })).toBeVisible();
  await expect(page.getByTestId("admin-user-row").filter({ hasText: ADMIN_EMAIL })).toBeVisible();
  // A sign-in is not a confirmation: generating codes would ask for the password (the next journey shows it).
  await app.confirm(page, ADMIN_PASSWORD);

  // Health panel.
  await page.getByRole("tab", { name: "Health" }).click();
  await expect(page.getByTestId("health-Version")).toHaveText(/\d+\.\d+\.\d+/);
  await expect(page.getByTestId("health-Database size")).toHaveText(/(KB|MB)$/);

  // One Professional code for 30 days.
  await page.getByRole("tab", { name: "License Codes" }).click();
  await page.getByLabel("Plan").selectOption("professional");
  await page.getByLabel("Duration (days)").fill("30");
  await page.getByLabel("Number of codes").fill("1");
  await page.getByRole("button", { name: "Generate Codes" }).click();
  const shown = page.getByTestId("generated-codes");
  await expect(shown).toHaveText(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
  const code = (await shown.textContent())!.trim();
  await expect(page.getByRole("row").filter({ hasText: code })).toContainText("active");
  // The batch is not "shown only once" (it said so): the list keeps every code, and the note says so.
  await expect(page.getByText(/each code also stays in the list below, with its status, until it is redeemed or revoked/)).toBeVisible();
  await expect(page.getByText(/shown (only )?once/)).toHaveCount(0);
  await page.getByTestId("toast").getByRole("button", { name: "Dismiss" }).click();
  await atBothWidths(page, "admin", "license-codes");

  // A user signs up and verifies (through the API, in their own browser context), then opens /license.
  const userContext = await browser.newContext();
  const user = await userContext.newPage();
  const email = `buyer${Date.now()}@example.com`;
  await app.verifiedAccount({ email, password: "texts-galore", firstName: "Bea", lastName: "Buyer" }, user.request);

  // A normal user cannot use the admin dashboard.
  await user.goto(`${app.url}/admin/dashboard`);
  await expect(user.getByRole("heading", { name: "Access Denied" })).toBeVisible();

  await user.goto(`${app.url}/license`);
  await expect(user.getByTestId("license-plan")).toHaveText("Starter");
  await expect(user.getByText("Free trial")).toBeVisible();
  await expect(user.getByTestId("usage-contacts")).toContainText("0 / 1,000");
  await expect(user.getByText("+3 more").first()).toBeVisible();
  await expect(user.getByText("Unlimited contacts")).toBeVisible();

  await user.getByRole("button", { name: "Redeem Code" }).click();
  await expect(user.getByTestId("toast").filter({ hasText: "Invalid Code" })).toContainText("Please enter a valid license code");

  await user.getByLabel("License code").fill("zzzzzzzzzzzzzzzz");
  await expect(user.getByLabel("License code")).toHaveValue("ZZZZ-ZZZZ-ZZZZ-ZZZZ");
  await user.getByRole("button", { name: "Redeem Code" }).click();
  await expect(user.getByTestId("toast").filter({ hasText: "Redemption Failed" })).toContainText("This license code is not valid");

  // Typed lower-case without dashes: the field groups it.
  await user.getByLabel("License code").fill(code.replaceAll("-", "").toLowerCase());
  await expect(user.getByLabel("License code")).toHaveValue(code);
  await user.getByRole("button", { name: "Redeem Code" }).click();
  await expect(user.getByTestId("toast").filter({ hasText: "License Activated!" })).toContainText("Professional");
  await expect(user.getByTestId("license-plan")).toHaveText("Professional");
  await expect(user.getByTestId("usage-contacts")).toContainText("0 / 10,000");
  await expect(user.getByTestId("usage-messages")).toContainText("0 / 25,000");

  // The same code again fails.
  await user.getByLabel("License code").fill(code);
  await user.getByRole("button", { name: "Redeem Code" }).click();
  await expect(user.getByTestId("toast").filter({ hasText: "Redemption Failed" })).toContainText("already been redeemed");
  await userContext.close();

  // The administrator sees who redeemed it.
  await page.reload();
  await page.getByRole("tab", { name: "License Codes" }).click();
  const row = page.getByRole("row").filter({ hasText: code });
  await expect(row).toContainText("redeemed");
  await expect(row).toContainText(email);
});

test("making someone an administrator right after the admin sign-in asks for the password first", async ({ page }) => {
  const email = `promoted${Date.now()}@example.com`;
  await app.verifiedAccount({ email, password: "texts-galore", firstName: "Pat", lastName: "Promoted" });
  await page.goto(`${app.url}/admin`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard/);
  // A sign-in is no confirmation (src/auth/reauth.ts): the change asks for the password.
  const row = page.getByTestId("admin-user-row").filter({ hasText: email });
  await row.getByRole("button", { name: "Make admin" }).click();
  await page.getByRole("dialog", { name: "Make administrator" }).getByRole("button", { name: "Make admin" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm your password" });
  await expect(confirm).toBeVisible();
  await expect(row.getByRole("cell", { name: "User", exact: true })).toBeVisible();
  await confirm.getByLabel("Password").fill(ADMIN_PASSWORD);
  await confirm.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByTestId("toast").filter({ hasText: "User updated" })).toContainText(`${email}: make admin done.`);
  await expect(row.getByRole("cell", { name: "Admin", exact: true })).toBeVisible();
});
