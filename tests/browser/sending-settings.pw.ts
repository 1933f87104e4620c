import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(() => app.stop());

test("sending settings: quiet hours, opt-out line and frequency cap are saved and survive a reload", async ({ page }) => {
  const email = `sending${Date.now()}@example.com`;
  await app.signUp(page, { email, firstName: "Ana", lastName: "Ruiz" });

  await page.goto(`${app.url}/settings`);
  await expect(page.getByRole("heading", { name: "Sending & Compliance" })).toBeVisible();
  await expect(page.getByLabel("Quiet hours start")).toHaveValue("21:00");
  await expect(page.getByLabel("Quiet hours end")).toHaveValue("08:00");
  await expect(page.getByLabel('End campaign messages with "Reply STOP to opt out"')).toBeChecked();

  await page.getByLabel("Quiet hours start").fill("20:30");
  await page.getByLabel('End campaign messages with "Reply STOP to opt out"').uncheck();
  await page.getByLabel("Frequency cap (campaign messages per contact per day)").fill("3");
  await page.getByRole("button", { name: "Save Sending Settings" }).click();
  await expect(page.getByText("Your sending settings have been updated.")).toBeVisible();

  await page.reload();
  await expect(page.getByLabel("Quiet hours start")).toHaveValue("20:30");
  await expect(page.getByLabel('End campaign messages with "Reply STOP to opt out"')).not.toBeChecked();
  await expect(page.getByLabel("Frequency cap (campaign messages per contact per day)")).toHaveValue("3");

  await page.getByLabel("Quiet hours end").fill("20:30");
  await page.getByRole("button", { name: "Save Sending Settings" }).click();
  await expect(page.getByText("Quiet hours must start and end at different times")).toBeVisible();
});
