import { expect, test } from "@playwright/test";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("the public header at 390 px: a Menu button opens the pages' links, a link goes there and closes it, Escape closes it", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${app.url}/pricing`);
  const menu = page.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  // The links were hidden below the md breakpoint, with nothing in their place.
  await expect(page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Features" })).toBeHidden();
  await menu.click();
  const pages = page.locator("#public-menu");
  await expect(pages.getByRole("link")).toHaveText(["Features", "Pricing", "About", "Help", "Contact"]);
  await expect(page.getByRole("button", { name: "Get Started" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  await page.screenshot({ path: join(shots, "public-menu-390.png") });
  await pages.getByRole("link", { name: "Features" }).click();
  await expect(page).toHaveURL(/\/features$/);
  await expect(pages).toHaveCount(0);
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(pages).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(pages).toHaveCount(0);

  // At 1280 px the links sit in the header and there is no menu button.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();
  await expect(page.getByRole("navigation", { name: "Pages" }).getByRole("link")).toHaveText(["Features", "Pricing", "About", "Help", "Contact"]);
  await page.screenshot({ path: join(shots, "public-header-1280.png") });
});
