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

test("Name A–Z and Z–A across pages as people read the names, and the search folds ß, æ, ø, ł and accents", async ({ page }) => {
  await app.signUp(page, { email: `names${Date.now()}@example.com` });
  // 18 names written every way, and 40 more (Kim Filler10-49) so that the list runs to a second page of 50.
  const people = [
    ["Zoë", "Quinn"], ["Ángel", "Ruiz"], ["Íñigo", "Montoya"], ["Łukasz", "Nowak"], ["adams", "Lee"], ["Mette", "Østergaard"],
    ["Æsa", "Berg"], ["Hans", "Straße"], ["Ana", "Straße"], ["JOHN", "Smith"], ["Mette", "Quist"], ["Hans", "Stuart"],
    ["Émile", "Zola"], ["Mette", "Olsen"], ["Hans", "Strand"], ["Ana", "Strasse"], ["Jose", "Alvarez"], ["José", "Álvarez"],
    ...Array.from({ length: 40 }, (_, i) => ["Kim", `Filler${10 + i}`]),
  ];
  const file = join(dir, "names.csv");
  writeFileSync(file, `First Name,Last Name,Mobile\r\n${people.map(([f, l], i) => `${f},${l},+1415555${String(500 + i).padStart(4, "0")}`).join("\r\n")}\r\n`);
  await page.goto(`${app.url}/contact-lists`);
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Import Contacts" });
  await dialog.getByLabel("CSV file").setInputFiles(file);
  await dialog.getByRole("button", { name: "Import Contacts" }).click();
  await expect(dialog.getByTestId("import-result")).toContainText("Import completed: 58 new contacts added", { timeout: 30_000 });
  await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
  await page.getByTestId("toast").getByRole("button", { name: "Dismiss" }).click();
  await expect(page.getByTestId("toast")).toHaveCount(0);

  const names = () => page.getByRole("row").locator("td:nth-child(2) span.font-medium").allInnerTexts();
  const kims = (from: number, to: number) => Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => `Kim Filler${from < to ? from + i : from - i}`);
  // Names with the same letters once folded (Ana Straße and Ana Strasse, Jose and José Álvarez) in the order imported.
  const az = [
    "adams Lee", "Æsa Berg", "Ana Straße", "Ana Strasse", "Ángel Ruiz", "Émile Zola", "Hans Strand", "Hans Straße", "Hans Stuart",
    "Íñigo Montoya", "JOHN Smith", "Jose Alvarez", "José Álvarez", ...kims(10, 49), "Łukasz Nowak", "Mette Olsen", "Mette Østergaard", "Mette Quist", "Zoë Quinn",
  ];
  const summary = page.getByTestId("pagination-summary");
  await page.getByLabel("Sort contacts").selectOption({ label: "Name A–Z" });
  await expect.poll(names).toEqual(az.slice(0, 50));
  await expect(summary).toHaveText("Showing 1–50 of 58");
  await shot(page, "names-a-z-page-1-1280.png", false);
  await page.getByRole("button", { name: "Next" }).click();
  await expect.poll(names).toEqual(az.slice(50));
  await expect(summary).toHaveText("Showing 51–58 of 58");
  await shot(page, "names-a-z-page-2-1280.png");
  await page.getByLabel("Sort contacts").selectOption({ label: "Name Z–A" });
  const za = [...az].reverse();
  await expect.poll(names).toEqual(za.slice(0, 50));
  await page.getByRole("button", { name: "Next" }).click();
  await expect.poll(names).toEqual(za.slice(50));
  await shot(page, "names-z-a-page-2-1280.png");

  // Each way of writing a name finds the others, listed in the order chosen (Z–A).
  const search = page.getByLabel("Search contacts");
  for (const [q, found] of [
    ["strasse", ["Hans Straße", "Ana Strasse", "Ana Straße"]],
    ["Straße", ["Hans Straße", "Ana Strasse", "Ana Straße"]],
    ["jose", ["José Álvarez", "Jose Alvarez"]],
    ["JOSÉ", ["José Álvarez", "Jose Alvarez"]],
    ["ostergaard", ["Mette Østergaard"]],
    ["Øster", ["Mette Østergaard"]],
    ["aesa", ["Æsa Berg"]],
    ["lukasz", ["Łukasz Nowak"]],
  ] as const) {
    await search.fill(q);
    await expect.poll(names, { message: q }).toEqual(found);
  }
  await search.fill("strasse");
  await expect.poll(names).toEqual(["Hans Straße", "Ana Strasse", "Ana Straße"]);
  await shot(page, "names-search-strasse-1280.png", false);
  await search.fill("");

  await page.setViewportSize({ width: 390, height: 844 });
  const cards = page.getByTestId("contact-cards").locator("li");
  await page.getByLabel("Sort contacts").selectOption({ label: "Name A–Z" });
  await expect(cards.first()).toContainText("adams Lee");
  await expect(cards.nth(1)).toContainText("Æsa Berg");
  await expect(cards.nth(4)).toContainText("Ángel Ruiz");
  await shot(page, "names-a-z-page-1-390.png", false);
  await page.getByRole("button", { name: "Next" }).click();
  await expect(summary).toHaveText("Showing 51–58 of 58");
  await expect(cards.nth(3)).toContainText("Łukasz Nowak");
  await expect(cards.nth(5)).toContainText("Mette Østergaard");
  await expect(cards.last()).toContainText("Zoë Quinn");
  await page.getByRole("button", { name: "Next" }).scrollIntoViewIfNeeded();
  await shot(page, "names-a-z-page-2-390.png", false);
  await search.fill("straße");
  await expect(cards).toHaveCount(3);
  await expect(cards.first()).toContainText("Ana Straße");
  await expect(cards.last()).toContainText("Hans Straße");
  await shot(page, "names-search-strasse-390.png", false);
});
