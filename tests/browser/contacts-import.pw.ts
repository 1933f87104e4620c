// Issue 11, item 1 in Chromium: an Excel file in Windows-1252 and a Google Contacts export imported through the
// dialog with the column mapping shown, the default country from Settings (English (United Kingdom) with United
// States numbers), duplicates listed with both names, and a duplicate number in the contact form.
import { expect, test, type Page } from "@playwright/test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Appliance } from "./harness";

let app: Appliance;
let dir: string;
test.beforeAll(async () => {
  app = await new Appliance().start();
  dir = mkdtempSync(join(tmpdir(), "smsdesk-import-"));
});
test.afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => page.screenshot({ path: join(process.env.PW_OUTPUT_DIR ?? "test-results", name), fullPage: true });

// The Google Contacts export header row (the current format), exactly as Google writes it.
const GOOGLE_HEADER =
  "First Name,Middle Name,Last Name,Phonetic First Name,Phonetic Middle Name,Phonetic Last Name,Name Prefix,Name Suffix,Nickname,File As," +
  "Organization Name,Organization Title,Organization Department,Birthday,Notes,Photo,Labels,E-mail 1 - Label,E-mail 1 - Value," +
  "Phone 1 - Label,Phone 1 - Value,Phone 2 - Label,Phone 2 - Value,Address 1 - Label,Address 1 - Formatted,Address 1 - Street," +
  "Address 1 - City,Address 1 - PO Box,Address 1 - Region,Address 1 - Postal Code,Address 1 - Country,Address 1 - Extended Address," +
  "Website 1 - Label,Website 1 - Value";
const googleRow = (v: Record<string, string>) => GOOGLE_HEADER.split(",").map((c) => v[c] ?? "").join(",");

test("import an Excel (Windows-1252) file and a Google Contacts export through the dialog, with the mapping shown", async ({ page }) => {
  await app.signUp(page, { email: `import${Date.now()}@example.com` });

  // Language English (United Kingdom), default country United States.
  await page.goto(`${app.url}/settings`);
  await page.getByLabel("Language & Region").selectOption("en-GB");
  await page.getByLabel("Default country for phone numbers").selectOption("US");
  await page.getByRole("button", { name: "Save Settings" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Settings saved" })).toBeVisible();

  await page.goto(`${app.url}/contact-lists`);
  await expect(page.getByRole("heading", { name: "Contacts" })).toBeVisible();

  // A contact, then another with the same number: the form offers to open the stored one.
  await page.getByRole("button", { name: "Add Customer" }).first().click();
  const form = page.getByRole("dialog", { name: "Add New Contact" });
  await expect(form.getByRole("button", { name: /^Country: United States/ })).toBeVisible();
  await form.getByLabel("First name").fill("Sofia");
  await form.getByLabel("Last name").fill("Martinez");
  await form.getByLabel("Phone number").fill("4155550150");
  await form.getByRole("button", { name: "Add Contact" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Contact added successfully" })).toBeVisible();
  await page.getByRole("button", { name: "Add Customer" }).first().click();
  await form.getByLabel("First name").fill("Mia");
  await form.getByLabel("Last name").fill("Martinez");
  await form.getByLabel("Phone number").fill("4155550150");
  await form.getByRole("button", { name: "Add Contact" }).click();
  await expect(form.getByTestId("duplicate-phone")).toContainText("Sofia Martinez already has this phone number.");
  await shot(page, "contacts-import-duplicate-form.png");
  await form.getByRole("button", { name: "Open Sofia Martinez" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Contact" });
  await expect(edit.getByLabel("First name")).toHaveValue("Sofia");
  await edit.getByRole("button", { name: "Cancel" }).click();

  // Excel's "CSV (Comma delimited)" on Windows: Windows-1252 bytes, national US numbers.
  const excel = join(dir, "customers-excel.csv");
  writeFileSync(
    excel,
    Buffer.from(
      "First Name,Last Name,Mobile Phone,E-mail Address\r\nJosé,Muñoz,(415) 555-0101,jose@example.com\r\nZoë,Brontë,(415) 555-0102,\r\nFrançois,Lefèvre,415.555.0103,francois@example.com\r\nMia,Martinez,(415) 555-0150,mia@example.com\r\n",
      "latin1",
    ),
  );
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Import Contacts" });
  await dialog.getByLabel("CSV file").setInputFiles(excel);
  await expect(dialog.getByTestId("import-file-info")).toHaveText("Windows-1252 (Excel), separated by commas, 4 columns");
  await expect(dialog.getByLabel('Column First Name')).toHaveValue("firstName");
  await expect(dialog.getByLabel('Column Last Name')).toHaveValue("lastName");
  await expect(dialog.getByLabel('Column Mobile Phone')).toHaveValue("phone");
  await expect(dialog.getByLabel('Column E-mail Address')).toHaveValue("email");
  await expect(dialog.getByTestId("import-preview")).toContainText("José Muñoz");
  await expect(dialog.getByTestId("import-preview")).toContainText("Zoë Brontë");
  await expect(dialog.getByTestId("import-preview")).toContainText("François Lefèvre");
  await expect(dialog.getByLabel("Country of numbers without +")).toHaveValue("US");
  await dialog.getByLabel("Tag every imported contact").fill("spring-fair");
  await shot(page, "contacts-import-mapping-excel.png");
  await dialog.getByRole("button", { name: "Import Contacts" }).click();
  await expect(dialog.getByTestId("import-result")).toContainText("Import completed: 3 new contacts added, 1 duplicate skipped", { timeout: 20_000 });
  await expect(dialog.getByTestId("import-duplicates")).toContainText("Line 5: “Mia Martinez” already exists as “Sofia Martinez” (+1 (415) 555-0150)");
  await expect(page.getByTestId("toast").filter({ hasText: "Duplicates Detected" })).toContainText('"Mia Martinez" already exists as "Sofia Martinez"', { timeout: 10_000 });
  await shot(page, "contacts-import-result.png");
  await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
  for (const name of ["José Muñoz", "Zoë Brontë", "François Lefèvre", "Sofia Martinez"]) await expect(page.getByRole("row").filter({ hasText: name })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "José Muñoz" })).toContainText("+1 (415) 555-0101");

  // Google Contacts (current export): refused before ("No phone column found"), mapped now.
  const google = join(dir, "contacts.csv");
  writeFileSync(
    google,
    [
      GOOGLE_HEADER,
      googleRow({ "First Name": "Åsa", "Last Name": "Ødegård", Labels: "* myContacts", "E-mail 1 - Label": "* Home", "E-mail 1 - Value": "asa@example.com", "Phone 1 - Label": "Mobile", "Phone 1 - Value": "+47 412 34 567" }),
      googleRow({ "First Name": "Łukasz", "Last Name": "Żółć", Labels: "* myContacts ::: Friends", "Phone 1 - Label": "Mobile", "Phone 1 - Value": "+1 415-555-0104 ::: +1 415-555-0105" }),
    ].join("\r\n") + "\r\n",
  );
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  await dialog.getByLabel("CSV file").setInputFiles(google);
  await expect(dialog.getByTestId("import-file-info")).toHaveText("UTF-8, separated by commas, 34 columns");
  await expect(dialog.getByLabel("Column Phone 1 - Value")).toHaveValue("phone");
  await expect(dialog.getByLabel("Column E-mail 1 - Value")).toHaveValue("email");
  await expect(dialog.getByLabel("Column Labels")).toHaveValue("tags");
  await expect(dialog.getByTestId("import-preview")).toContainText("Åsa Ødegård");
  await expect(dialog.getByTestId("import-preview")).toContainText("Łukasz Żółć");
  await shot(page, "contacts-import-mapping-google.png");
  await dialog.getByRole("button", { name: "Import Contacts" }).click();
  await expect(dialog.getByTestId("import-result")).toContainText("Import completed: 2 new contacts added", { timeout: 20_000 });
  await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
  await expect(page.getByRole("row").filter({ hasText: "Åsa Ødegård" })).toContainText("+47");
  await expect(page.getByRole("row").filter({ hasText: "Łukasz Żółć" })).toContainText("+1 (415) 555-0104");
  await expect(page.getByRole("row").filter({ hasText: "Łukasz Żółć" })).toContainText("Friends");
  await shot(page, "contacts-import-list.png");

  // The list by name, from the first page (names a CSV import adds after its contacts: src/contacts/name-order.ts),
  // accented letters with their base letter (issue 28 item 5); by phone; and back to the newest first.
  const names = () => page.getByRole("row").locator("td:nth-child(2) span.font-medium").allInnerTexts();
  await page.getByLabel("Sort contacts").selectOption({ label: "Name A–Z" });
  await expect.poll(names).toEqual(["Åsa Ødegård", "François Lefèvre", "José Muñoz", "Łukasz Żółć", "Sofia Martinez", "Zoë Brontë"]);
  await page.getByLabel("Sort contacts").selectOption({ label: "Name Z–A" });
  await expect.poll(names).toEqual(["Zoë Brontë", "Sofia Martinez", "Łukasz Żółć", "José Muñoz", "François Lefèvre", "Åsa Ødegård"]);
  await page.getByLabel("Sort contacts").selectOption({ label: "Phone number" });
  await expect.poll(names).toEqual(["José Muñoz", "Zoë Brontë", "François Lefèvre", "Łukasz Żółć", "Sofia Martinez", "Åsa Ødegård"]);
  await page.getByLabel("Sort contacts").selectOption({ label: "Newest first" });
  await expect.poll(names).toEqual(["Łukasz Żółć", "Åsa Ødegård", "François Lefèvre", "Zoë Brontë", "José Muñoz", "Sofia Martinez"]);

  // On a phone-sized screen the search and the order each take the width, and the mapping still fits: each column's
  // select beside its name.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const control of [page.getByLabel("Search contacts"), page.getByLabel("Sort contacts")]) {
    const at = await control.boundingBox();
    expect(at!.x + at!.width).toBeLessThanOrEqual(390);
  }
  await page.getByLabel("Sort contacts").selectOption({ label: "Name A–Z" });
  await expect(page.getByTestId("contact-cards").locator("li").first()).toContainText("Åsa Ødegård");
  await shot(page, "contacts-list-by-name-390.png");
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  await dialog.getByLabel("CSV file").setInputFiles(excel);
  await expect(dialog.getByLabel("Column Mobile Phone")).toBeVisible();
  const box = await dialog.getByLabel("Column Mobile Phone").boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await shot(page, "contacts-import-mapping-390.png");
});
