// The first hour of a new small-business user (issue 11), walked in Chromium at 1280 and at 390 pixels wide:
// sign up, verify, onboarding, the simulator provider, a small CSV import, a campaign sent while some recipients
// are in quiet hours, and its details. Screenshots go to a temporary folder (printed), to be looked at.
import { expect, test, type Page } from "@playwright/test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_QUIET_HOURS, quietUntil, zoneForRecipient } from "../../src/sending/quiet-hours";
import { Appliance } from "./harness";

const shots = process.env.FIRST_HOUR_SHOTS ?? mkdtempSync(join(tmpdir(), "smsdesk-first-hour-"));
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
  console.log(`first-hour screenshots: ${shots}`);
});
test.afterAll(async () => {
  await app.stop();
});

/**
 * Valid mobile numbers spread over the world's clocks. Whatever the hour the test runs, some are inside the default
 * quiet hours (21:00-08:00 at the recipient) and some are not; the same code as the sender decides which.
 */
const CANDIDATES = [
  "+12125550101", // New York
  "+13125550102", // Chicago
  "+14155550103", // Los Angeles
  "+18085550104", // Honolulu
  "+447911123456", // London
  "+4915123456789", // Berlin
  "+919876543210", // India
  "+819012345678", // Tokyo
  "+61412345678", // Sydney
  "+6421123456", // Auckland
  "+5511912345678", // São Paulo
];

function recipientsByQuietHours(now: number) {
  const quiet = CANDIDATES.filter((p) => quietUntil(now, zoneForRecipient(p, "America/New_York"), DEFAULT_QUIET_HOURS) !== null);
  const awake = CANDIDATES.filter((p) => !quiet.includes(p));
  expect(quiet.length, "some candidate is in quiet hours now").toBeGreaterThanOrEqual(2);
  expect(awake.length, "some candidate is awake now").toBeGreaterThanOrEqual(1);
  return { quiet: quiet.slice(0, 2), awake: awake[0]! };
}

async function shot(page: Page, name: string, fullPage = false) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage });
}

test("the first hour: sign up, verify, onboarding, simulator, import, a campaign in quiet hours, its details", async ({ page }) => {
  test.setTimeout(180_000);
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.setViewportSize(DESKTOP);

  // A visitor's pages ask nothing of the session API (no 401 in the console).
  await page.goto(app.url);
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  await page.goto(`${app.url}/help`);
  await expect(page.getByText("Live Chat")).toHaveCount(0);
  await page.goto(`${app.url}/nowhere`);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  expect(errors.filter((e) => e.includes("401"))).toEqual([]);

  // Sign up and verify.
  const email = `first-hour${Date.now()}@example.com`;
  // Verified, the setup wizard comes first, with the business's time zone and country; it ends on /dashboard.
  await app.signUp(page, { email }, { onboarding: false });
  await page.getByLabel("Business name").fill("Bloom & Co. Florist");
  await page.getByLabel("Industry").selectOption("Retail & E-commerce");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("radio").first().check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("checkbox").first().check();
  await shot(page, "02-onboarding-1280");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "You're all set, Bloom & Co. Florist!" })).toBeVisible();
  await page.getByRole("button", { name: "Go to Dashboard" }).click();
  await expect(page).toHaveURL(`${app.url}/dashboard`);
  await expect(page.getByRole("heading", { name: "Results & Stats" })).toBeVisible();

  // The home page's first visit is a welcome ("Welcome, Rosa!"), not a "welcome back"; setup is done.
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Dashboard", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Welcome, Rosa!" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Start setup" })).toHaveCount(0);
  await shot(page, "01-home-first-visit-1280");
  // The sidebar lists only screens that exist, Segments among them, and its Quick Start box is above the fold.
  await expect(nav.getByRole("link", { name: "Segments" })).toBeVisible();
  for (const built of ["Chat & Replies", "Keywords", "Results & Stats"]) await expect(nav.getByRole("link", { name: built })).toBeVisible();
  for (const gone of ["Email Marketing"]) await expect(nav.getByRole("link", { name: gone })).toHaveCount(0);
  const quickStart = nav.getByRole("link", { name: "Send a message →" });
  const box = (await quickStart.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(DESKTOP.height);

  // The simulator provider and one of its numbers.
  await nav.getByRole("link", { name: "Phone Settings" }).click();
  await page.getByRole("button", { name: "Add Provider" }).first().click();
  const providerDialog = page.getByRole("dialog", { name: "Add Provider" });
  await providerDialog.getByLabel("Provider", { exact: true }).selectOption("simulator");
  await providerDialog.getByLabel("Display name").fill("Simulator");
  await providerDialog.getByRole("button", { name: "Add Provider" }).click();
  await expect(providerDialog).toHaveCount(0);
  await page.getByRole("tab", { name: /Phone Numbers/ }).click();
  await page.getByRole("button", { name: "Add Phone Number" }).first().click();
  const numberDialog = page.getByRole("dialog", { name: "Add Phone Number" });
  await numberDialog.getByRole("radio", { name: "Fetch from provider" }).click();
  await numberDialog.getByRole("button", { name: "Fetch numbers" }).click();
  await numberDialog.getByRole("group", { name: "Numbers on this account" }).getByRole("radio").first().check();
  await numberDialog.getByLabel("Display name (optional)").fill("Main line");
  await numberDialog.getByRole("button", { name: "Add Number" }).click();
  await expect(numberDialog).toHaveCount(0);
  await shot(page, "03-phone-settings-1280");

  // A small CSV: two recipients whose clock is in quiet hours now, one whose is not.
  const { quiet, awake } = recipientsByQuietHours(Date.now());
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-first-hour-csv-"));
  const csv = join(dir, "customers.csv");
  writeFileSync(csv, `First Name,Last Name,Phone\nAda,Lovelace,${awake}\nGrace,Hopper,${quiet[0]}\nAlan,Turing,${quiet[1]}\n`);
  await nav.getByRole("link", { name: "Customer Lists" }).click();
  await page.getByRole("button", { name: "Import Contacts" }).first().click();
  const importDialog = page.getByRole("dialog", { name: "Import Contacts" });
  await importDialog.getByLabel("CSV file").setInputFiles(csv);
  // The dialog may show the file's columns first; the same button then imports.
  const importButton = importDialog.getByRole("button", { name: "Import Contacts" });
  await importButton.click();
  const done = page.getByTestId("toast").filter({ hasText: /Import/ });
  if (!(await done.isVisible().catch(() => false)) && (await importButton.isVisible())) {
    await shot(page, "04-import-mapping-1280");
    await importButton.click();
  }
  await expect(importDialog.getByTestId("import-result")).toContainText("3", { timeout: 20_000 });
  await importDialog.getByRole("button", { name: "Close", exact: true }).last().click();
  await expect(page.getByText("Grace Hopper")).toBeVisible();
  await shot(page, "05-contacts-1280");

  // The create dialog says the same before anything is sent, with a From select wide enough for the name.
  await nav.getByRole("link", { name: "Send Messages" }).click();
  await page.getByRole("button", { name: "Full Campaign Form" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Campaign" });
  await dialog.getByLabel("Campaign name").fill("Tulip week");
  await dialog.getByLabel("Message").fill("Hi [Name], tulip week starts at [Business]!");
  await dialog.getByLabel("Phone numbers").fill(`${quiet[0]}\n${awake}`);
  await expect(dialog.getByTestId("delivery-note")).toContainText("1 of 2 recipients is in quiet hours now.");
  await expect(dialog.getByTestId("dialog-preview")).toContainText("Hi Grace, tulip week starts at Bloom & Co. Florist!");
  const from = dialog.getByLabel("From number");
  // The chosen option's text, measured in the select's font, fits inside it ("(Simulato" was cut before).
  const fits = await from.evaluate((el: HTMLSelectElement) => {
    const style = getComputedStyle(el);
    const ctx = document.createElement("canvas").getContext("2d")!;
    ctx.font = `${style.fontSize} ${style.fontFamily}`;
    const text = ctx.measureText(el.options[el.selectedIndex]!.text).width;
    return text + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) <= el.clientWidth;
  });
  expect(fits).toBe(true);
  await shot(page, "06a-create-dialog-1280");
  await dialog.getByRole("button", { name: "Cancel" }).click();

  // The wizard: its preview is the first customer's own text, signed with the business name.
  await nav.getByRole("link", { name: "Send Messages" }).click();
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByLabel("Your message").fill("Hi [Name], spring tulips are in at [Business]!");
  await expect(wizard.getByTestId("message-preview")).toContainText("Hi Ada, spring tulips are in at Bloom & Co. Florist!");
  await expect(wizard.getByTestId("message-preview")).toContainText("Reply STOP to opt out");
  await expect(wizard.getByLabel("Send from")).toContainText("Main line");
  await shot(page, "06-wizard-message-1280");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("radio", { name: /All customers/ }).check();
  await wizard.getByRole("button", { name: "Continue" }).click();

  // The review says who waits for quiet hours, and until when on their own clock.
  const note = wizard.getByTestId("delivery-note");
  await expect(note).toContainText("2 of 3 recipients are in quiet hours now.");
  await expect(note).toContainText("Those get it at 8:00 AM (recipient's time); the others right away.");
  await expect(wizard.getByTestId("wizard-review")).toContainText("3 recipients");
  await expect(wizard.getByTestId("wizard-review")).toContainText(/Main line · \+1 \(\d{3}\) \d{3}-\d{4}/);
  await shot(page, "07-wizard-review-1280");
  await wizard.getByRole("button", { name: "Send Campaign" }).click();
  const toast = page.getByTestId("toast").filter({ hasText: "Campaign started" });
  await expect(toast).toContainText("3 messages queued. 2 wait for quiet hours until 8:00 AM (recipient's time).");

  // Sent Messages and the campaign card: waiting, with the count, not "sent".
  await expect(page.getByRole("heading", { name: "Sent Messages" })).toBeVisible();
  const row = page.getByTestId("history-row").first();
  await expect(row.getByTestId("quiet-wait")).toHaveText("Waiting for quiet hours until 8:00 AM (recipient's time): 2 messages", {
    timeout: 15_000,
  });
  await shot(page, "08-sent-messages-1280");
  await nav.getByRole("link", { name: "Send Messages" }).click();
  const card = page.getByTestId("campaign-card").first();
  await expect(card.getByTestId("quiet-wait")).toHaveText("Waiting for quiet hours until 8:00 AM (recipient's time): 2 messages");
  await shot(page, "09-campaigns-1280");

  // Details: Ada has it; Grace and Alan wait.
  await card.getByRole("button", { name: "View Details" }).click();
  const details = page.getByRole("dialog", { name: /Promotion - / });
  await expect(details.getByTestId("quiet-wait")).toBeVisible();
  const recipients = details.getByTestId("recipient-list").getByRole("listitem");
  await expect(recipients.filter({ hasText: "Ada Lovelace" })).toContainText("Delivered", { timeout: 30_000 });
  await expect(recipients.filter({ hasText: "Grace Hopper" })).toContainText("Pending");
  await expect(details.getByTestId("details-Sent")).toHaveText("1");
  await shot(page, "10-details-1280");
  await details.getByRole("button", { name: "Close", exact: true }).last().click();

  // A scheduled campaign: the wizard offers "Schedule Campaign", the toast says when (no "0 messages queued"),
  // and Sent Messages keeps listing only the campaign that started.
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  await wizard.getByRole("radio", { name: /Reminder/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByLabel("Your message").fill("Tulip week starts Monday at [Business]");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("radio", { name: /All customers/ }).check();
  await wizard.getByLabel("Schedule for later").check();
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  await wizard.getByLabel("Send at").fill(`${tomorrow}T10:00`);
  await wizard.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByRole("button", { name: "Schedule Campaign" })).toBeVisible();
  await wizard.getByRole("button", { name: "Schedule Campaign" }).click();
  const scheduled = page.getByTestId("toast").filter({ hasText: "Campaign scheduled" });
  await expect(scheduled).toContainText("Your message will be sent on");
  await expect(scheduled).not.toContainText("queued");
  await expect(page.getByRole("heading", { name: "Sent Messages" })).toBeVisible();
  await expect(page.getByTestId("history-row")).toHaveCount(1);

  // The home's activity: started, not sent.
  await nav.getByRole("link", { name: "Dashboard" }).click();
  await expect(page.getByText(/Campaign "Promotion - .*" started/)).toBeVisible();
  await shot(page, "11-home-activity-1280");

  // No dead ends: the results screen and an unknown address stay inside the app.
  await page.goto(`${app.url}/dashboard`);
  await expect(page.getByRole("heading", { name: "Results & Stats" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await page.goto(`${app.url}/no-such-screen`);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await shot(page, "12-not-found-in-app-1280");

  // The same screens at 390 pixels wide.
  await page.setViewportSize(PHONE);
  await page.goto(`${app.url}/contact-lists`);
  const cards = page.getByTestId("contact-cards");
  await expect(cards.getByRole("listitem")).toHaveCount(3);
  const phoneCell = cards.getByRole("listitem").filter({ hasText: "Ada Lovelace" });
  const actions = phoneCell.getByRole("button", { name: "Actions for Ada Lovelace" });
  const actionsBox = (await actions.boundingBox())!;
  expect(actionsBox.x + actionsBox.width).toBeLessThanOrEqual(PHONE.width);
  await shot(page, "13-contacts-390", true);
  await page.getByRole("button", { name: "Open menu" }).click();
  const close = page.getByRole("button", { name: "Close menu" });
  await close.click({ trial: true }); // waits until the drawer has slid in
  const badge = page.getByRole("link", { name: /Plan$/ }).last();
  const [closeBox, badgeBox] = [(await close.boundingBox())!, (await badge.boundingBox())!];
  expect(closeBox.x).toBeGreaterThanOrEqual(badgeBox.x + badgeBox.width);
  await shot(page, "14-menu-390");
  await close.click();
  await page.goto(`${app.url}/sms-campaigns`);
  const promotion = page.getByTestId("campaign-card").filter({ hasText: /Promotion - / });
  await expect(promotion.getByTestId("quiet-wait")).toBeVisible();
  await expect(page.getByTestId("campaign-card").filter({ hasText: /Reminder - / })).toContainText("Scheduled for");
  await shot(page, "15-campaigns-390", true);
  await promotion.getByRole("button", { name: "View Details" }).click();
  await expect(page.getByRole("dialog", { name: /Promotion - / })).toBeVisible();
  await shot(page, "16-details-390");
  await page.keyboard.press("Escape");
  await page.goto(`${app.url}/segments`);
  await expect(page.getByText("Total spent ≥ $500")).toBeVisible();
  await expect(page.getByText("At least 3 purchases in 90 days")).toBeVisible();
  await shot(page, "17-segments-390", true);
  // A segment is deleted through the app's dialog, not the browser's confirm().
  await page.getByRole("button", { name: "Use template VIP Customers" }).click();
  await page.getByRole("button", { name: "Delete VIP Customers" }).click();
  const confirmDelete = page.getByRole("dialog", { name: "Delete segment" });
  await expect(confirmDelete).toContainText("Delete the segment “VIP Customers”? Its contacts are not deleted.");
  await confirmDelete.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(page.getByRole("button", { name: "Delete VIP Customers" })).toHaveCount(0);
  await page.goto(`${app.url}/license`);
  await expect(page.getByText("Bulk SMS").first()).toBeVisible();
  await shot(page, "18-license-390", true);
  await page.goto(`${app.url}/`);
  await shot(page, "19-home-390", true);
});

test("an administrator's menu at 390 pixels: the Administrator badge whole, the close button beside it", async ({ page }) => {
  const admin = await new Appliance().start({ ADMIN_EMAIL: "root@example.com", ADMIN_PASSWORD: "correct-horse-battery" });
  try {
    await page.setViewportSize(PHONE);
    await page.goto(`${admin.url}/admin`);
    await page.getByLabel("Email").fill("root@example.com");
    await page.getByLabel("Password", { exact: true }).fill("correct-horse-battery");
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await expect(page).toHaveURL(/\/admin\/dashboard/);
    await page.getByRole("button", { name: "Open menu" }).click();
    await page.getByRole("button", { name: "Close menu" }).click({ trial: true }); // waits until the drawer has slid in
    const badge = page.getByRole("link", { name: "Administrator", exact: true }).last();
    await expect(badge).toBeVisible();
    expect(await badge.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    const [closeBox, badgeBox] = [(await page.getByRole("button", { name: "Close menu" }).boundingBox())!, (await badge.boundingBox())!];
    expect(closeBox.x).toBeGreaterThanOrEqual(badgeBox.x + badgeBox.width);
    await shot(page, "20-admin-menu-390");
    // At 1280 x 800 even an administrator's longer menu shows the whole Quick Start box.
    await page.keyboard.press("Escape");
    await page.setViewportSize(DESKTOP);
    await page.reload();
    const quickStart = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Send a message →" });
    const box = (await quickStart.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(DESKTOP.height - 100);
    await shot(page, "21-admin-1280");
  } finally {
    await admin.stop();
  }
});
