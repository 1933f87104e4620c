import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  isValidPhone,
  measureSms,
  parseRecipients,
  zonedInputToIso,
} from "../../ui/routes/app/campaigns/model";
import { recipientsFromCsv } from "../../ui/routes/app/campaigns/recipients-csv";
import { Appliance } from "./harness";
import { atBothWidths } from "./widths";

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

/** Calls the API as the signed-in user, with the session cookie the app signed in with. */
async function apiAs(page: Page) {
  const session = await app.sessionHeaders(page);
  return async <T>(path: string, body: unknown, method = "POST", expected = method === "POST" ? 201 : 200): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...session },
      body: JSON.stringify(body),
    });
    // Every POST here creates something (201); the PATCH saves settings (200).
    expect(r.status, `${path}: ${await r.clone().text()}`).toBe(expected);
    return (await r.json()) as T;
  };
}

test("the wizard sends a promotion to every contact through the simulator; sent messages show it delivered", async ({ page }) => {
  await app.signUp(page, { email: `campaigns${Date.now()}@example.com` });
  const post = await apiAs(page);
  // Quiet hours would hold the texts until morning in the recipients' time zone, whenever the test runs.
  await post("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await post<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await post("/api/phone-numbers", {
    providerId: provider.id,
    phoneNumber: "+14155550100",
    displayName: "Main line",
    isDefault: true,
  });
  await post("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550123" });
  await post("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550124" });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Send Messages" }).click();
  await expect(page.getByRole("heading", { name: "SMS Campaigns" })).toBeVisible();
  await expect(page.getByText("No SMS campaigns yet")).toBeVisible();

  // Step 1: a type is needed before Continue.
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await expect(wizard.getByRole("button", { name: "Continue" })).toBeDisabled();
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();

  // Step 2: over 160 characters turns the counter red without blocking; a sample fills the message and the preview.
  // The count is the message as it will be sent, with its opt-out line (22 characters): the one the segment counter
  // reads, so "140/160" never stands beside "2 segments".
  await wizard.getByLabel("Your message").fill("x".repeat(170));
  await expect(wizard.getByTestId("message-length")).toHaveText("192/160 Too long");
  await wizard.getByLabel("Your message").fill("x".repeat(140));
  await expect(wizard.getByTestId("message-length")).toHaveText("162/160 Too long");
  await expect(wizard.getByTestId("segment-counter")).toContainText("162 characters2 segments");
  await wizard.getByLabel("Your message").fill("x".repeat(138));
  await expect(wizard.getByTestId("message-length")).toHaveText("160/160");
  await expect(wizard.getByTestId("segment-counter")).toContainText("160 characters1 segment");
  await expect(wizard.getByRole("button", { name: "Continue" })).toBeEnabled();
  await wizard.getByRole("button", { name: "Use sample message 1" }).click();
  await expect(wizard.getByLabel("Your message")).toHaveValue(/^Hi \[Name\]! This weekend only/);
  // The preview is the first customer's text, signed with the account's name (no business name was given).
  await expect(wizard.getByTestId("message-preview")).toContainText(
    "Hi Ada! This weekend only: 20% off everything at Rosa Diaz.",
  );
  await expect(wizard.getByTestId("message-preview")).toContainText("Reply STOP to opt out");
  await expect(wizard.getByTestId("segment-counter")).toContainText("GSM-7");
  await expect(wizard.getByLabel("Send from")).toHaveValue("+14155550100");
  await wizard.getByRole("button", { name: "Continue" }).click();

  // Step 3: exact audience counts; send now.
  await expect(wizard.getByRole("button", { name: "Continue" })).toBeDisabled();
  const all = wizard.getByRole("radio", { name: /All customers/ });
  await expect(wizard.getByText("2 contacts").first()).toBeVisible();
  await all.check();
  await wizard.getByRole("button", { name: "Continue" }).click();

  // Step 4: review, then send; the app lands on the sent messages.
  await expect(wizard.getByTestId("wizard-review")).toContainText("2 recipients");
  await expect(wizard.getByTestId("wizard-review")).toContainText("Promotion");
  await expect(wizard.getByTestId("wizard-review")).toContainText("2 segments (1 per recipient; opted-out contacts are skipped)");
  await expect(wizard.getByTestId("wizard-review")).toContainText("(2 segments × $0.00");

  // A name can tip one recipient's text into a second segment: "Hi Ada! " + 130 + the opt-out line is 160, Grace's
  // 162. The length, the counter, the review and the cost all count the longest and the real total (the review once
  // said 246 segments above a cost of 280).
  await wizard.getByRole("button", { name: "Back" }).click();
  await wizard.getByRole("button", { name: "Back" }).click();
  await wizard.getByLabel("Your message").fill(`Hi [Name]! ${"x".repeat(130)}`);
  await expect(wizard.getByTestId("message-length")).toHaveText("162/160 Too long");
  await expect(wizard.getByTestId("segment-counter")).toContainText("162 characters2 segments");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByTestId("wizard-review")).toContainText("3 segments (up to 2 per recipient; opted-out contacts are skipped)");
  await expect(wizard.getByTestId("wizard-review")).toContainText("(3 segments × $0.00");
  await wizard.getByRole("button", { name: "Back" }).click();
  await wizard.getByRole("button", { name: "Back" }).click();
  await wizard.getByRole("button", { name: "Use sample message 1" }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByTestId("wizard-review")).toContainText("2 segments (1 per recipient; opted-out contacts are skipped)");
  await wizard.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Campaign started" })).toBeVisible();
  await expect(page).toHaveURL(/\/sent-messages$/);
  await expect(page.getByRole("heading", { name: "Sent Messages" })).toBeVisible();
  const row = page.getByTestId("history-row").filter({ hasText: /Promotion - / });
  await expect(row).toHaveCount(1);

  // Details: both recipients reach Delivered (the simulator reports delivery after about a second).
  await row.getByRole("button", { name: /View details of/ }).click();
  const details = page.getByRole("dialog", { name: /Promotion - / });
  const recipients = details.getByTestId("recipient-list").getByRole("listitem");
  await expect(recipients).toHaveCount(2);
  await expect(recipients.filter({ hasText: "Ada Lovelace" })).toContainText("Delivered", { timeout: 30_000 });
  await expect(recipients.filter({ hasText: "Grace Hopper" })).toContainText("Delivered", { timeout: 30_000 });
  await expect(details.getByTestId("details-Delivered")).toHaveText("2", { timeout: 10_000 });
  await expect(details.getByTestId("details-Success rate")).toHaveText("100%");
  await page.screenshot({ path: join(shots, "campaign-details.png") });
  await details.getByRole("button", { name: "Close", exact: true }).last().click();

  await expect(page.getByTestId("stat-Delivered")).toHaveText("2", { timeout: 10_000 });
  await expect(page.getByTestId("stat-Delivery Rate")).toHaveText("100%");
  await expect(page.getByTestId("stat-Campaigns")).toHaveText("1");

  // Date filter and CSV export.
  await page.getByLabel("Date").selectOption("custom");
  await page.getByLabel("From").fill("2000-01-01");
  await page.getByLabel("To (inclusive)").fill("2000-01-02");
  await expect(page.getByText("No campaigns match these filters.")).toBeVisible();
  await page.getByLabel("Date").selectOption("today");
  await expect(row).toContainText("Completed");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^sent-messages-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync(await download.path(), "utf8");
  expect(csv.split("\r\n")[0]).toContain("Campaign,Status");
  expect(csv).toMatch(/Promotion - .*,Completed,/);
  await page.screenshot({ path: join(shots, "sent-messages.png"), fullPage: true });

  // The campaign screen lists it as a card.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Send Messages" }).click();
  const card = page.getByTestId("campaign-card").filter({ hasText: /Promotion - / });
  await expect(card).toContainText("Completed");
  await expect(card).toContainText("100%");
});

test("a campaign whose every message failed at the provider says so, not that no provider is set up", async ({ page }) => {
  await app.signUp(page, { email: `failed${Date.now()}@example.com` });
  const post = await apiAs(page);
  await post("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await post<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await post("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  // The simulator rejects 0180-0189 at send (21211, invalid number): nothing goes out and the campaign fails.
  const campaign = await post<{ id: string }>("/api/campaigns", { type: "sms", name: "Unreachable", content: "Hello", recipients: ["+14155550180", "+14155550181"] });
  await post(`/api/campaigns/${campaign.id}/send`, {}, "POST", 202);
  await page.goto(`${app.url}/sent-messages`);
  const row = page.getByTestId("history-row").filter({ hasText: "Unreachable" });
  await expect(row).toContainText("Failed", { timeout: 30_000 });
  await row.getByRole("button", { name: /View details of/ }).click();
  const details = page.getByRole("dialog", { name: /Unreachable/ });
  const help = details.getByTestId("failed-help");
  await expect(help).toContainText("Your provider refused or failed every message.");
  await expect(help).not.toContainText("No SMS provider is configured");
  await help.getByRole("button", { name: "Show the failed recipients" }).click();
  await expect(details.getByLabel("Filter recipients")).toHaveValue("failed");
  await expect(details.getByTestId("recipient-list").getByRole("listitem")).toHaveCount(2);
  await atBothWidths(page, "campaigns", "failed-campaign-help");
});

test("the create dialog validates, saves a draft, and the draft can be deleted", async ({ page }) => {
  await app.signUp(page, { email: `drafts${Date.now()}@example.com` });
  await page.goto(`${app.url}/sms-campaigns`);
  await page.getByRole("button", { name: "Full Campaign Form" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Campaign" });
  await expect(dialog.getByText("You have no sender numbers yet")).toBeVisible();

  await dialog.getByRole("button", { name: "Save as Draft" }).click();
  await expect(dialog.getByText("Campaign name is required")).toBeVisible();
  await expect(dialog.getByText("Content is required")).toBeVisible();
  await expect(dialog.getByText("Recipients are required")).toBeVisible();

  await dialog.getByLabel("Campaign name").fill("Spring sale");
  await dialog.getByLabel("Message").fill("Spring sale: 20% off ✨ this weekend");
  await expect(dialog.getByTestId("segment-counter")).toContainText("UCS-2");
  await expect(dialog.getByTestId("segment-counter")).toContainText("✨");
  await dialog.getByLabel("Phone numbers").fill("+14155550123, 12345");
  await dialog.getByRole("button", { name: "Save as Draft" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Invalid Recipients" })).toContainText(
    "Please enter valid phone numbers",
  );

  // Send needs a sender number; the user has none.
  await dialog.getByLabel("Phone numbers").fill("+14155550123\n(415) 555-0124");
  await dialog.getByRole("button", { name: "Send Campaign" }).click();
  await expect(dialog.getByText("SMS campaigns require a from number")).toBeVisible();

  await dialog.getByRole("button", { name: "Save as Draft" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Campaign created successfully" })).toBeVisible();
  await expect(dialog).toHaveCount(0);
  const card = page.getByTestId("campaign-card").filter({ hasText: "Spring sale" });
  await expect(card).toContainText("Draft");
  await expect(card.getByRole("button", { name: "Continue Editing" })).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(shots, "campaigns-390.png"), fullPage: true });

  await card.getByRole("button", { name: "Actions for Spring sale" }).click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  const confirmDelete = page.getByRole("dialog", { name: "Delete draft" });
  await expect(confirmDelete).toContainText("Delete the draft “Spring sale”? This cannot be undone.");
  await confirmDelete.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(card).toHaveCount(0);
  await expect(page.getByText("No SMS campaigns yet")).toBeVisible();
});

test("helpers: recipients, CSV columns, safe CSV cells, segments, time zones, inclusive date ranges", () => {
  expect(parseRecipients(" +14155550123 ,\n\n(415) 555-0124,")).toEqual(["+14155550123", "(415) 555-0124"]);
  expect(isValidPhone("+1 (415) 555-0123")).toBe(true);
  expect(isValidPhone("555-0123")).toBe(false);
  expect(isValidPhone("+1415555012a")).toBe(false);

  const byHeader = recipientsFromCsv("Name,Mobile Number\nAda,+14155550123\nBad,n/a\nAgain,+1 415 555 0123\n");
  expect(byHeader).toMatchObject({ phones: ["+14155550123"], column: "Mobile Number", rows: 3, invalid: 1, duplicates: 1 });
  const headerless = recipientsFromCsv("Ada,+14155550123\nGrace,(415) 555-0124\n");
  expect(headerless).toMatchObject({ phones: ["+14155550123", "(415) 555-0124"], column: "column 2" });

  expect(measureSms("a".repeat(160), false)).toMatchObject({ encoding: "GSM-7", characters: 160, segments: 1 });
  expect(measureSms("a".repeat(160), true).segments).toBe(2);
  expect(measureSms("{}[]", false).characters).toBe(8);
  expect(measureSms("Café ✨", false)).toMatchObject({ encoding: "UCS-2", unicodeCharacters: ["✨"] });

  expect(zonedInputToIso("2026-03-14T09:30", "America/New_York")).toBe("2026-03-14T13:30:00.000Z");
  expect(zonedInputToIso("2026-07-01T00:00", "Europe/Berlin")).toBe("2026-06-30T22:00:00.000Z");

  // The custom date range (its end day included) is the server's now: tests/api/sent-messages.test.ts.
});
