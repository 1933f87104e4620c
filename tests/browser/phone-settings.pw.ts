import { expect, test } from "@playwright/test";
import { join } from "node:path";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

test("phone settings: simulator provider, connection test, numbers by hand and from the provider, webhook URLs", async ({
  page,
  context,
}) => {
  await app.signUp(page, { email: `phones${Date.now()}@example.com` });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Phone Settings" }).click();
  await expect(page.getByRole("heading", { name: "Phone Settings" })).toBeVisible();
  await expect(page.getByText("No SMS provider yet.")).toBeVisible();

  // Without a provider a number cannot be added, and the page says why.
  await page.getByRole("tab", { name: /Phone Numbers/ }).click();
  await expect(page.getByRole("button", { name: "Add Phone Number" })).toBeDisabled();
  await expect(page.getByText("Add an SMS provider first").first()).toBeVisible();
  await page.getByRole("tab", { name: /SMS Providers/ }).click();

  // The provider comes first; then every credential field is required, secrets typed unseen.
  await page.getByRole("button", { name: "Add Provider" }).first().click();
  const providerDialog = page.getByRole("dialog", { name: "Add Provider" });
  await providerDialog.getByRole("button", { name: "Add Provider" }).click();
  await expect(providerDialog.getByText("Please choose a provider")).toBeVisible();
  await providerDialog.getByLabel("Provider", { exact: true }).selectOption("twilio");
  await expect(providerDialog.getByLabel("Auth Token")).toHaveAttribute("type", "password");
  await providerDialog.getByLabel("Display name").fill("");
  await providerDialog.getByRole("button", { name: "Add Provider" }).click();
  await expect(providerDialog.getByText("Display name is required")).toBeVisible();
  await expect(providerDialog.getByText("Account SID is required")).toBeVisible();
  await expect(providerDialog.getByText("Auth Token is required")).toBeVisible();

  await providerDialog.getByLabel("Provider", { exact: true }).selectOption("simulator");
  await expect(providerDialog.getByText("The simulator sends no real messages.")).toBeVisible();
  await providerDialog.getByLabel("Display name").fill("Demo lines");
  await providerDialog.getByRole("button", { name: "Add Provider" }).click();
  await expect(providerDialog).toHaveCount(0);
  const card = page.getByRole("region", { name: "Demo lines" });
  await expect(card.getByText("Simulated", { exact: true })).toBeVisible();
  await expect(card.getByText("Default", { exact: true })).toBeVisible();
  await expect(card.getByText("it sends no real messages")).toBeVisible();
  await expect(page.getByText("No SMS provider yet.")).toHaveCount(0);

  await card.getByRole("button", { name: "Test Connection" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Connection successful!" })).toBeVisible();

  // Simulator knobs are saved as fractions and come back as the percentages typed.
  await card.getByText("Simulator behaviour").click();
  await card.getByLabel("Fail rate (%)").fill("12.5");
  await card.getByRole("button", { name: "Save simulator settings" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Simulator settings saved" })).toBeVisible();
  await page.reload();
  await page.getByText("Simulator behaviour").click();
  await expect(page.getByLabel("Fail rate (%)")).toHaveValue("12.5");

  // A contact's reply, simulated.
  await page.getByText("Simulate a reply").click();
  await page.getByLabel("From").fill("+14155550199");
  await page.getByLabel("Message").fill("See you Friday");
  await page.getByRole("button", { name: "Simulate reply" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Reply simulated" })).toBeVisible();
  // The reply arrives like any other: the chat popup opens on it; closed, it leaves the page as it was.
  const chat = page.getByRole("region", { name: "Chat" });
  await expect(chat.getByTestId("chat-messages")).toContainText("See you Friday");
  await chat.getByRole("button", { name: "Close chat", exact: true }).click();

  // A number typed by hand: the spec's validation, then the long-code rate of 1 per second.
  await page.getByRole("tab", { name: /Phone Numbers/ }).click();
  await page.getByRole("button", { name: "Add Phone Number" }).first().click();
  const numberDialog = page.getByRole("dialog", { name: "Add Phone Number" });
  await numberDialog.getByRole("radio", { name: "Enter manually" }).click();
  await numberDialog.getByRole("button", { name: "Add Number" }).click();
  await expect(numberDialog.getByRole("alert")).toHaveText("Phone number is required");
  await numberDialog.getByLabel("Phone number").fill("4155550100");
  await numberDialog.getByRole("button", { name: "Add Number" }).click();
  await expect(numberDialog.getByRole("alert")).toHaveText("Please enter the number in international format, e.g. +14155550123");
  await numberDialog.getByLabel("Phone number").fill("+18005550100");
  await expect(numberDialog.getByLabel("Kind")).toHaveValue("toll_free");
  await expect(numberDialog.getByLabel("Messages per second")).toHaveValue("3");
  await numberDialog.getByLabel("Phone number").fill("+1 415 555 0100");
  await expect(numberDialog.getByLabel("Messages per second")).toHaveValue("1");
  await numberDialog.getByLabel("Display name (optional)").fill("Front desk");
  await numberDialog.getByRole("button", { name: "Add Number" }).click();
  await expect(numberDialog).toHaveCount(0);
  const row = page.getByTestId("phone-number-row").filter({ hasText: "+1 (415) 555-0100" });
  await expect(row).toContainText("Front desk");
  await expect(row).toContainText("Long code");
  await expect(row.getByLabel("Messages per second for +14155550100")).toHaveValue("1");

  // The server refuses the same number twice; the dialog shows its words.
  await page.getByRole("button", { name: "Add Phone Number" }).first().click();
  await numberDialog.getByRole("radio", { name: "Enter manually" }).click();
  await numberDialog.getByLabel("Phone number").fill("+14155550100");
  await numberDialog.getByRole("button", { name: "Add Number" }).click();
  await expect(numberDialog.getByRole("alert")).toHaveText("This number is already added");

  // From the provider: the simulator lists its own lines; one is picked, but the trial's Starter plan allows one
  // number, and the dialog says so in the plan's words.
  await numberDialog.getByRole("radio", { name: "Fetch from provider" }).click();
  await numberDialog.getByRole("button", { name: "Fetch numbers" }).click();
  const offered = numberDialog.getByRole("group", { name: "Numbers on this account" }).getByRole("radio");
  await expect(offered.first()).toBeVisible();
  await offered.first().check();
  await numberDialog.getByRole("button", { name: "Add Number" }).click();
  await expect(numberDialog.getByRole("alert")).toHaveText(
    "Your Starter plan allows 1 phone number; you have 1. Remove one, upgrade your plan or redeem a license code to add another.",
  );
  await numberDialog.getByRole("button", { name: "Cancel" }).click();
  await expect(numberDialog).toHaveCount(0);
  await expect(page.getByTestId("phone-number-row")).toHaveCount(1);

  // The rate is edited in place.
  await row.getByLabel("Messages per second for +14155550100").fill("2");
  await row.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Sending rate saved" })).toBeVisible();
  await page.reload();
  await page.getByRole("tab", { name: /Phone Numbers/ }).click();
  await expect(page.getByLabel("Messages per second for +14155550100")).toHaveValue("2");

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(shots, "phone-settings-numbers.png"), fullPage: true });
  await page.getByRole("tab", { name: /SMS Providers/ }).click();
  await page.screenshot({ path: join(shots, "phone-settings-providers.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(shots, "phone-settings-providers-390.png"), fullPage: true });
  await page.getByRole("tab", { name: /Phone Numbers/ }).click();
  await page.screenshot({ path: join(shots, "phone-settings-numbers-390.png"), fullPage: true });

  // Delete asks first.
  await page.getByRole("button", { name: "Delete +14155550100" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete phone number" });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("phone-number-row")).toHaveCount(0);
  await page.setViewportSize({ width: 1280, height: 900 });

  // Webhook setup: the user's exact URLs, copied to the clipboard.
  await page.getByRole("link", { name: "Set up two-way SMS webhooks" }).click();
  await expect(page.getByRole("heading", { name: "Incoming SMS webhooks" })).toBeVisible();
  const twilioUrl = page.getByLabel("Twilio webhook URL", { exact: true }).first();
  await expect(twilioUrl).toHaveText(new RegExp(`^${app.url}/api/webhooks/twilio/sms/[\\w-]+$`));
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
  await page.getByRole("button", { name: "Copy Twilio webhook URL" }).first().click();
  await expect(page.getByTestId("toast").filter({ hasText: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await twilioUrl.textContent());

  await page.evaluate(() => {
    navigator.clipboard.writeText = () => Promise.reject(new Error("denied"));
  });
  await page.getByRole("button", { name: "Copy Twilio webhook URL" }).first().click();
  await expect(page.getByTestId("toast").filter({ hasText: "Failed to copy" })).toContainText("Please copy the URL manually");

  expect(await page.evaluate(() => window.getSelection()?.toString())).toBe(await twilioUrl.textContent());

  await expect(page.getByRole("tab", { name: "Twilio" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel").getByRole("listitem")).toHaveCount(5);
  await page.getByRole("tab", { name: "Brevo" }).click();
  await expect(page.getByRole("tabpanel")).toContainText("Add your Brevo account in Phone Settings first");

  // A provider that signs nothing gets a URL with its own secret, and the page says to keep it private.
  await page.getByRole("link", { name: "← Phone Settings" }).click();
  await page.getByRole("button", { name: "Add Provider" }).first().click();
  await providerDialog.getByLabel("Provider", { exact: true }).selectOption("brevo");
  await providerDialog.getByLabel("Display name").fill("Newsletter");
  await providerDialog.getByLabel("API Key").fill("xkeysib-0123456789abcdef");
  await providerDialog.getByRole("button", { name: "Add Provider" }).click();
  await expect(page.getByRole("region", { name: "Newsletter" })).toContainText("Credentials ending …cdef");
  await page.getByRole("link", { name: "Set up two-way SMS webhooks" }).click();
  await expect(page.getByRole("tab", { name: "Brevo" })).toHaveAttribute("aria-selected", "true");
  const panel = page.getByRole("tabpanel");
  await expect(panel).toContainText("Keep it private");
  await expect(panel.getByLabel("Brevo: Newsletter webhook URL", { exact: true })).toHaveText(
    new RegExp(`^${app.url}/api/webhooks/brevo/.+[?&]key=[\\w-]+$`),
  );
  await page.screenshot({ path: join(shots, "webhook-settings.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tab", { name: "Telnyx" }).click();
  await expect(panel).toContainText("HTTP POST");
  await page.screenshot({ path: join(shots, "webhook-settings-390.png"), fullPage: true });
});
