import { expect, test } from "@playwright/test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Appliance } from "./harness";

let app: Appliance;
let dir: string;
test.beforeAll(async () => {
  app = await new Appliance().start();
  dir = mkdtempSync(join(tmpdir(), "smsdesk-contacts-"));
});
test.afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("contacts: add with a chosen country, search by digits, import a CSV, export, delete; segments", async ({ page }) => {
  await app.signUp(page, { email: `contacts${Date.now()}@example.com` });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Customer Lists" }).click();
  await expect(page.getByRole("heading", { name: "Contacts" })).toBeVisible();
  await expect(page.getByTestId("counter-Total")).toHaveText("0");
  await expect(page.getByText("No contacts yet")).toBeVisible();

  // Add a contact with a country picked in the picker (the default is the locale's region).
  await page.getByRole("button", { name: "Add Customer" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add New Contact" });
  await dialog.getByRole("button", { name: "Add Contact" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Please enter at least a first or last name");
  await dialog.getByLabel("First name").fill("Ada");
  await dialog.getByLabel("Last name").fill("Lovelace");
  await dialog.getByRole("button", { name: "Add Contact" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Please enter either a phone number or email address");

  await dialog.getByRole("button", { name: /^Country:/ }).click();
  await dialog.getByLabel("Search countries").fill("+44");
  await expect(dialog.getByRole("option", { name: /United Kingdom/ })).toBeVisible();
  await dialog.getByLabel("Search countries").fill("united king");
  await dialog.getByRole("option", { name: /United Kingdom/ }).click();
  await expect(dialog.getByLabel("Country code")).toHaveValue("+44");
  await dialog.getByLabel("Phone number").fill("07911-123 456");
  await expect(dialog.getByLabel("Phone number")).toHaveValue("07911123456");
  await dialog.getByLabel("Email").fill("ada@example.com");
  await dialog.getByRole("button", { name: "Add Contact" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Contact added successfully" })).toBeVisible();
  const ada = page.getByRole("row").filter({ hasText: "Ada Lovelace" });
  await expect(ada).toContainText("+44 7911 123456");
  await expect(ada).toContainText("Email + SMS");
  await expect(page.getByTestId("counter-Total")).toHaveText("1");

  // Import a small CSV: one new contact, one already stored (by canonical phone), one without a usable phone.
  const csv = join(dir, "customers.csv");
  writeFileSync(csv, "Phone Number,First Name,last_name,email\n(201) 555-0123,Grace,Hopper,grace@example.com\n+44 7911 123456,Ada,Again,\nnot-a-phone,Bad,Row,\n");
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  const importDialog = page.getByRole("dialog", { name: "Import Contacts" });
  await expect(importDialog.getByText("Phone Numbers (SMS Contacts)")).toBeVisible();
  writeFileSync(join(dir, "notes.txt"), "hello");
  await importDialog.getByLabel("CSV file").setInputFiles(join(dir, "notes.txt"));
  await expect(importDialog.getByRole("alert")).toHaveText("Please select a CSV file");
  await importDialog.getByLabel("CSV file").setInputFiles(csv);
  await importDialog.getByRole("button", { name: "Import Contacts" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Import completed: 1 new contacts added" })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("toast")).toContainText("Import Complete with Warnings");
  await expect(importDialog.getByTestId("import-result")).toContainText("3 rows read");
  await importDialog.getByRole("button", { name: "Close", exact: true }).last().click();
  const grace = page.getByRole("row").filter({ hasText: "Grace Hopper" });
  await expect(grace).toContainText("+1 (201) 555-0123");
  await expect(page.getByTestId("counter-Total")).toHaveText("2");

  // Search by digits typed in another format.
  await page.getByLabel("Search contacts").fill("201-555");
  await expect(grace).toBeVisible();
  await expect(ada).toHaveCount(0);
  await page.getByLabel("Search contacts").fill("");
  await expect(ada).toBeVisible();

  // Export CSV downloads a dated file with every contact.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^contacts-\d{4}-\d{2}-\d{2}\.csv$/);
  const exported = readFileSync(await download.path(), "utf8");
  expect(exported).toContain("Grace");
  expect(exported).toContain("Lovelace");

  // Delete a contact through the row menu, confirmed in the app's own dialog.
  await page.getByRole("button", { name: "Actions for Ada Lovelace" }).click();
  await page.getByRole("menuitem", { name: "Delete Contact" }).click();
  const confirmDelete = page.getByRole("dialog", { name: "Delete contact" });
  await expect(confirmDelete).toContainText("Delete Ada Lovelace? Their consent history goes with them. This cannot be undone.");
  await confirmDelete.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(ada).toHaveCount(0);
  await expect(page.getByTestId("counter-Total")).toHaveText("1");

  // Bulk tag the remaining contact, then read its consent history.
  await page.getByLabel("Select Grace Hopper").check();
  await page.getByLabel("Tags to add").fill(" vip, ,spring ");
  await page.getByRole("button", { name: "Add tags" }).click();
  await expect(grace).toContainText("vip");
  await expect(grace).toContainText("spring");
  await page.getByRole("button", { name: "Actions for Grace Hopper" }).click();
  await page.getByRole("menuitem", { name: "View consent history" }).click();
  await expect(page.getByRole("dialog", { name: "Consent history" })).toContainText("Opted in");
  await page.getByRole("dialog", { name: "Consent history" }).getByRole("button", { name: "Close", exact: true }).last().click();
  await page.screenshot({ path: join(process.env.PW_OUTPUT_DIR ?? "test-results", "contacts-page.png"), fullPage: true });

  // Segments: a quick-start template and a custom segment.
  await page.goto(`${app.url}/segments`);
  await expect(page.getByRole("heading", { name: "Contact Segments" })).toBeVisible();
  await page.getByRole("button", { name: "Use template VIP Customers" }).click();
  await expect(page.getByTestId("segment").filter({ hasText: "VIP Customers" })).toBeVisible();
  await page.getByRole("button", { name: "Create Segment" }).first().click();
  const segDialog = page.getByRole("dialog", { name: "Create Segment" });
  await segDialog.getByRole("button", { name: "Create Segment" }).click();
  await expect(segDialog.getByRole("alert")).toHaveText("Segment name is required");
  await segDialog.getByLabel("Segment name").fill("Imported");
  await segDialog.getByLabel("Condition 1 field").selectOption("source");
  await segDialog.getByLabel("Condition 1 operator").selectOption("eq");
  await segDialog.getByLabel("Condition 1 value").fill("import");
  await segDialog.getByRole("button", { name: "Create Segment" }).click();
  await expect(page.getByTestId("segment").filter({ hasText: "Imported" }).getByTestId("segment-count")).toHaveText("1 contact");
  await page.screenshot({ path: join(process.env.PW_OUTPUT_DIR ?? "test-results", "segments-page.png"), fullPage: true });
});
