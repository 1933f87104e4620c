// Issue 28 items 4 and 5 in Chromium: an international list imported through the dialog ('00' before the country
// code, Mexican mobiles written '+52 1'), the invalid numbers' reasons naming the country they were read as, all the
// rejected rows downloaded as a CSV in the file's own columns, and the list by name as people read it. Screenshots at
// 1280 and 390 pixels go to dist/screenshots/contacts-international/.
import { expect, test, type Page } from "@playwright/test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = join(import.meta.dirname, "..", "..", "dist", "screenshots", "contacts-international");
let app: Appliance;
let dir: string;
test.beforeAll(async () => {
  app = await new Appliance().start();
  dir = mkdtempSync(join(tmpdir(), "smsdesk-international-"));
  mkdirSync(shots, { recursive: true });
});
test.afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

// The whole page at 1280; at 390 what the phone shows (the list runs 50 cards long).
const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: join(shots, name), fullPage });

test("an international list imports, its rejected rows download as a CSV, and Name A–Z reads as people read", async ({ page }) => {
  await app.signUp(page, { email: `intl${Date.now()}@example.com` });
  await page.goto(`${app.url}/settings`);
  await page.getByLabel("Default country for phone numbers").selectOption("US");
  await page.getByRole("button", { name: "Save Settings" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Settings saved" })).toBeVisible();

  // 10 good rows and 52 UK mobiles written as at home (more than the 50 the dialog lists).
  const good = [
    ["Jonas", "Weber", "0049 160 1234567"],
    ["Amelia", "Clarke", "0044 7500 123456"],
    ["Lucía", "Hernández", "0052 55 1234 5678"],
    ["Mateo", "García", "+52 1 55 8765 4321"],
    ["Zoë", "Quinn", "(415) 555-0301"],
    ["Łukasz", "Nowak", "(415) 555-0302"],
    ["JOHN", "Smith", "(415) 555-0303"],
    ["Íñigo", "Montoya", "(415) 555-0304"],
    ["adams", "Lee", "(415) 555-0305"],
    ["Ángel", "Ruiz", "(415) 555-0306"],
  ];
  const bad = Array.from({ length: 52 }, (_, i) => [`Guest${i}`, "Leeds", `07911 123${String(i).padStart(3, "0")}`]);
  const file = join(dir, "international.csv");
  writeFileSync(file, `First Name,Last Name,Mobile\r\n${[...good, ...bad].map((r) => r.join(",")).join("\r\n")}\r\n`);

  await page.goto(`${app.url}/contact-lists`);
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Import Contacts" });
  await dialog.getByLabel("CSV file").setInputFiles(file);
  await expect(dialog.getByLabel("Column Mobile")).toHaveValue("phone");
  await expect(dialog.getByLabel("Country of numbers without +")).toHaveValue("US");
  await dialog.getByRole("button", { name: "Import Contacts" }).click();
  const result = dialog.getByTestId("import-result");
  await expect(result).toContainText("Import completed: 10 new contacts added, 52 invalid rows", { timeout: 30_000 });
  const errors = dialog.getByTestId("import-errors");
  await expect(errors.locator("li").first()).toHaveText(
    "Line 12: Invalid phone number: 07911 123000 (read as a United States number: add +44 or choose the country)",
  );
  await expect(errors.locator("li")).toHaveCount(51);
  await expect(errors.locator("li").last()).toHaveText("…and 2 more");
  await shot(page, "import-result-1280.png");

  // Every rejected row, in the file's columns with its line and problem: fixed, it imports.
  const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByRole("button", { name: "Download all 52 rejected rows (CSV)" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^rejected-rows-\d{4}-\d{2}-\d{2}\.csv$/);
  const rejected = readFileSync(await download.path(), "utf8").split("\r\n");
  expect(rejected.length).toBe(54);
  expect(rejected[0]).toBe("\uFEFFFirst Name,Last Name,Mobile,Line,Problem");
  expect(rejected[1]).toBe("Guest0,Leeds,07911 123000,12,Invalid phone number: 07911 123000 (read as a United States number: add +44 or choose the country)");
  expect(rejected[52]).toBe("Guest51,Leeds,07911 123051,63,Invalid phone number: 07911 123051 (read as a United States number: add +44 or choose the country)");
  const fixed = join(dir, "fixed.csv");
  writeFileSync(fixed, rejected.join("\r\n").replaceAll(",07911 ", ",+44 7911 "));
  await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  await dialog.getByLabel("CSV file").setInputFiles(fixed);
  await expect(dialog.getByLabel("Column Problem")).toHaveValue("skip");
  await dialog.getByRole("button", { name: "Import Contacts" }).click();
  await expect(result).toContainText("Import completed: 52 new contacts added", { timeout: 30_000 });
  await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
  // The import's toast would cover the list in the screenshots.
  await page.getByTestId("toast").getByRole("button", { name: "Dismiss" }).click();
  await expect(page.getByTestId("toast")).toHaveCount(0);

  // The numbers as stored, then Name A–Z: accented letters with their base letter, any case.
  const names = () => page.getByRole("row").locator("td:nth-child(2) span.font-medium").allInnerTexts();
  await page.getByLabel("Search contacts").fill("lukasz");
  await expect.poll(names).toEqual(["Łukasz Nowak"]);
  await page.getByLabel("Search contacts").fill("");
  await page.getByLabel("Sort contacts").selectOption({ label: "Name A–Z" });
  await expect.poll(names).toEqual([
    "adams Lee", "Amelia Clarke", "Ángel Ruiz", "Guest0 Leeds", "Guest1 Leeds", "Guest10 Leeds", "Guest11 Leeds", "Guest12 Leeds", "Guest13 Leeds", "Guest14 Leeds",
    "Guest15 Leeds", "Guest16 Leeds", "Guest17 Leeds", "Guest18 Leeds", "Guest19 Leeds", "Guest2 Leeds", "Guest20 Leeds", "Guest21 Leeds", "Guest22 Leeds", "Guest23 Leeds",
    "Guest24 Leeds", "Guest25 Leeds", "Guest26 Leeds", "Guest27 Leeds", "Guest28 Leeds", "Guest29 Leeds", "Guest3 Leeds", "Guest30 Leeds", "Guest31 Leeds", "Guest32 Leeds",
    "Guest33 Leeds", "Guest34 Leeds", "Guest35 Leeds", "Guest36 Leeds", "Guest37 Leeds", "Guest38 Leeds", "Guest39 Leeds", "Guest4 Leeds", "Guest40 Leeds", "Guest41 Leeds",
    "Guest42 Leeds", "Guest43 Leeds", "Guest44 Leeds", "Guest45 Leeds", "Guest46 Leeds", "Guest47 Leeds", "Guest48 Leeds", "Guest49 Leeds", "Guest5 Leeds", "Guest50 Leeds",
  ]);
  await shot(page, "by-name-a-z-1280.png", false);
  await page.getByLabel("Search contacts").fill("a");
  await expect.poll(names).toEqual(["adams Lee", "Amelia Clarke", "Ángel Ruiz"]);
  await page.getByLabel("Search contacts").fill("");
  await page.getByLabel("Sort contacts").selectOption({ label: "Name Z–A" });
  await expect.poll(async () => (await names()).slice(0, 9)).toEqual([
    "Zoë Quinn", "Mateo García", "Łukasz Nowak", "Lucía Hernández", "Jonas Weber", "JOHN Smith", "Íñigo Montoya", "Guest9 Leeds", "Guest8 Leeds",
  ]);
  await expect(page.getByRole("row").filter({ hasText: "Jonas Weber" })).toContainText("+49");
  await expect(page.getByRole("row").filter({ hasText: "Mateo García" })).toContainText("+52");
  await shot(page, "by-name-z-a-1280.png", false);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByLabel("Sort contacts").selectOption({ label: "Name A–Z" });
  await expect(page.getByTestId("contact-cards").locator("li").first()).toContainText("adams Lee");
  await expect(page.getByTestId("contact-cards").locator("li").nth(2)).toContainText("Ángel Ruiz");
  await page.getByTestId("contact-cards").locator("li").nth(3).scrollIntoViewIfNeeded();
  await shot(page, "by-name-a-z-390.png", false);
  await page.getByLabel("Sort contacts").selectOption({ label: "Name Z–A" });
  await expect(page.getByTestId("contact-cards").locator("li").first()).toContainText("Zoë Quinn");
  await expect(page.getByTestId("contact-cards").locator("li").nth(6)).toContainText("Íñigo Montoya");
  await page.getByTestId("contact-cards").locator("li").nth(3).scrollIntoViewIfNeeded();
  await shot(page, "by-name-z-a-390.png", false);
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  await dialog.getByLabel("CSV file").setInputFiles(file);
  await dialog.getByRole("button", { name: "Import Contacts" }).click();
  await expect(result).toContainText("52 invalid rows", { timeout: 30_000 });
  const download390 = dialog.getByRole("button", { name: "Download all 52 rejected rows (CSV)" });
  await download390.scrollIntoViewIfNeeded();
  const box = await download390.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await shot(page, "import-result-390.png", false);
});
