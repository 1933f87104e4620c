// US carrier registration on Phone Settings (issue 34 item 1): a Twilio account (a fake of its Messaging API,
// served with node:http since this runner is Node) with a number in each state; "Check now" reads them and the card
// shows each: registered, pending, rejected with the reviewers' reason, unregistered, with what it means for sending.
import { expect, test } from "@playwright/test";
import { join } from "node:path";
import { serveOnNode } from "../support/fakes/node-serve";
import { twilioRegistrationApi } from "../support/fakes/twilio-registration";
import { Appliance } from "./harness";

const BRAND = "BN" + "a".repeat(32);
const fake = twilioRegistrationApi({
  brands: [{ sid: BRAND, status: "APPROVED" }],
  services: [
    { sid: "MG" + "1".repeat(32), friendlyName: "Store alerts", numbers: ["+14155550101"], campaign: { brandSid: BRAND, status: "VERIFIED" } },
    { sid: "MG" + "2".repeat(32), friendlyName: "Promotions", numbers: ["+14155550102"], campaign: { brandSid: BRAND, status: "IN_PROGRESS" } },
    {
      sid: "MG" + "3".repeat(32),
      friendlyName: "Flash sales",
      numbers: ["+14155550103"],
      campaign: { brandSid: BRAND, status: "FAILED", errors: [{ error_code: 30886, description: "The sample messages do not say how to opt out" }] },
    },
  ],
});
let twilio: Awaited<ReturnType<typeof serveOnNode>>;
let app: Appliance;
test.beforeAll(async () => {
  twilio = await serveOnNode(fake.fetch);
  app = await new Appliance().start({ TWILIO_API_BASE: twilio.url });
});
test.afterAll(async () => {
  await app.stop();
  await twilio.close();
});

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

test("phone settings: each number's carrier registration, read on demand, with what it means", async ({ page }) => {
  await app.signUp(page, { email: `registration${Date.now()}@example.com` });
  app.sql("UPDATE plans SET phone_numbers = 10");
  const api = await app.apiAs(page);
  const provider = await api<{ id: string }>("/api/sms-providers", { provider: "twilio", displayName: "Twilio main", ...fake.credentials });
  for (const phoneNumber of ["+14155550101", "+14155550102", "+14155550103", "+14155550104"]) await api("/api/phone-numbers", { providerId: provider.id, phoneNumber });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Phone Settings" }).click();
  await page.getByRole("tab", { name: /Phone Numbers/ }).click();
  const card = page.getByRole("region", { name: "Registration of Twilio main" });
  await expect(card.getByTestId("registration-summary")).toHaveText("4 not checked yet");

  await page.getByRole("button", { name: "Check now" }).click();
  await expect(card.getByTestId("registration-summary")).toHaveText("1 registered, 1 pending, 1 rejected, 1 unregistered");
  const row = (state: string) => card.locator(`[data-testid="registration-row"][data-state="${state}"]`);
  await expect(row("registered")).toContainText("+1 (415) 555-0101");
  await expect(row("registered")).toContainText("Registered: US carriers deliver its texts within the campaign's approved throughput.");
  await expect(row("pending")).toContainText("Campaign in progress");
  await expect(row("pending")).toContainText("US carriers block its texts to US numbers until the campaign is approved.");
  await expect(row("rejected")).toContainText("Reason: The sample messages do not say how to opt out (error 30886)");
  await expect(row("rejected")).toContainText("What to do: Correct what the reviewers named, then resubmit");
  await expect(row("unregistered")).toContainText("The number is in no Messaging Service, so it is in no A2P 10DLC campaign");
  await expect(row("unregistered")).toContainText("What to do: Register a brand and an A2P 10DLC campaign");
  await expect(row("unregistered")).toContainText("Checked ");

  // The pre-submission checklist reads the account's own texts: no templates yet.
  await page.getByText("Before you submit a registration: what reviewers reject").click();
  await expect(page.locator('[data-testid="checklist-item"][data-status="fail"]').filter({ hasText: "Sample messages name the brand" })).toContainText(
    "You have no templates of your own",
  );
  await page.screenshot({ path: join(shots, "registration-card.png"), fullPage: true });
});
