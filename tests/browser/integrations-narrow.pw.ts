import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "admin-secret-123";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD });
});
test.afterAll(async () => {
  await app.stop();
});

test("/integrations on a 390 px phone: the API examples scroll inside their cards, the page does not scroll sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"));
  await page.goto(`${app.url}/integrations`);
  await expect(page.getByRole("heading", { name: "Integrations", level: 1 })).toBeVisible();
  await expect(page.getByTestId("integration-card").first()).toBeVisible();
  // The curl examples are wider than a phone: a grid column sized by them pushed every card past the screen's edge.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  const card = await page.getByTestId("integration-card").first().boundingBox();
  expect(card!.x + card!.width).toBeLessThanOrEqual(390);
});
