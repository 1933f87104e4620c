import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

const ADMIN = { email: "root@example.com", password: "correct-horse-battery" };

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
});
test.afterAll(async () => {
  await app.stop();
});

test("an administrator edits a plan's limit (a refused price says why, and the form can be sent again) and saves the backup schedule", async ({ page }) => {
  await page.goto(`${app.url}/admin`);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Admin Access Granted" })).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/dashboard/);
  await app.confirm(page, ADMIN.password);

  await page.getByRole("tab", { name: "Plans" }).click();
  const starter = page.locator("form").filter({ has: page.getByRole("heading", { name: "Starter", exact: true }) });
  const contacts = starter.getByLabel("Contacts (-1 unlimited)");
  const price = starter.getByLabel("Price ($/month)");
  await expect(contacts).toHaveValue("1000");
  const oldPrice = await price.inputValue();
  // Over the server's ceiling of $1,000,000: refused with its reason, and the button is back for another try.
  await price.fill("2000000");
  await contacts.fill("2000");
  await starter.getByRole("button", { name: "Save Plan" }).click();
  const toast = page.getByTestId("toast");
  await expect(toast.filter({ hasText: "Error" })).toContainText("The price must be a whole number of cents, 0 or more");
  await expect(starter.getByRole("button", { name: "Save Plan" })).toBeEnabled();

  await price.fill(oldPrice);
  await starter.getByRole("button", { name: "Save Plan" }).click();
  await expect(toast.filter({ hasText: "Plan saved" })).toContainText("Starter updated.");
  await page.reload();
  await page.getByRole("tab", { name: "Plans" }).click();
  await expect(contacts).toHaveValue("2000");

  await page.goto(`${app.url}/admin/backup-manager`);
  await page.getByLabel("Scheduled backups to keep").fill("9");
  await page.getByRole("button", { name: "Save schedule" }).click();
  await expect(toast.filter({ hasText: "Schedule saved" })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Scheduled backups to keep")).toHaveValue("9");
});
