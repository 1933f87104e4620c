// Issue 28 items 3 and 7: one way to send to a segment (the wizard's Segment audience, a segment's "Send to this
// segment", the two campaign buttons named for what they do), and quiet hours the user controls. Screenshots at
// 1280 and 390 pixels wide go to dist/screenshots/campaign-segments-quiet-hours/.
import { expect, test, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Appliance } from "./harness";

const root = join(import.meta.dirname, "..", "..");
// Not under test-results: Playwright empties that folder at the start of every run.
const shots = join(root, "dist", "screenshots", "campaign-segments-quiet-hours");

let app: Appliance;
test.beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

/** Full-page screenshots at a desktop's and a phone's width, each checked for sideways scrolling. */
async function screenshots(page: Page, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}`).toBe(width);
    await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A signed-up account with quiet hours off, the simulator with one number, and three contacts, two tagged vip. */
async function setUp(page: Page, email: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await app.signUp(page, { email });
  const call = await app.apiAs(page);
  const patch = (path: string, body: unknown) => call(path, body, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await patch(`/api/sms-providers/${provider.id}`, { settings: { deliveryDelayMs: 0 } });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  await call("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550123", tags: ["vip"] });
  await call("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550124", tags: ["vip"] });
  await call("/api/contacts", { firstName: "Alan", lastName: "Turing", phone: "+14155550125" });
  return { call, patch };
}

type Campaign = { id: string; name: string; status: string; audience: { kind: string; segmentId?: string }; counts: { recipients: number; sent: number; delivered: number } };

test("the wizard sends to a segment; a segment's 'Send to this segment' opens it with that segment chosen", async ({ page }) => {
  test.setTimeout(120_000);
  const { call, patch } = await setUp(page, `segments${Date.now()}@example.com`);
  // Quiet hours would hold the texts until morning in the recipients' zone, whenever the test runs.
  await patch("/api/user/settings", { quietHoursEnabled: false });
  const vip = await call<{ id: string }>("/api/segments", { name: "VIP customers", conditions: { tags: { contains: "vip" } } });

  // The campaign screen names its two buttons for what they do, and says how they differ.
  await page.goto(`${app.url}/sms-campaigns`);
  await expect(page.getByRole("button", { name: "New SMS Campaign" }).first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Full Campaign Form" }).first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Create Campaign" })).toHaveCount(0);
  await expect(page.getByTestId("campaign-buttons-help")).toHaveText(
    "New SMS Campaign walks you through it in four steps. Full Campaign Form puts everything on one page: a name, typed or uploaded numbers, drafts.",
  );
  await screenshots(page, "campaign-buttons");

  // The main wizard offers the segment among its audiences.
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByLabel("Your message").fill("VIP night on Friday, [Name]!");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("radio", { name: /A segment/ }).check();
  await expect(wizard.getByText("Choose a segment.")).toBeVisible();
  await expect(wizard.getByRole("button", { name: "Continue" })).toBeDisabled();
  await wizard.getByRole("combobox", { name: "Segment" }).selectOption({ label: "VIP customers (2)" });
  await expect(wizard.getByText("2 contacts", { exact: true })).toBeVisible();
  await screenshots(page, "wizard-segment-audience");
  await wizard.getByRole("button", { name: "Continue" }).click();
  const review = wizard.getByTestId("wizard-review");
  await expect(review).toContainText("AudienceSegment: VIP customers");
  await expect(review).toContainText("Recipients2 recipients");
  await wizard.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page).toHaveURL(/\/sent-messages$/);

  const first = (await call<{ data: Campaign[] }>("/api/campaigns")).data[0]!;
  expect(first.audience).toEqual({ kind: "segment", segmentId: vip.id });
  await expect.poll(async () => (await call<Campaign>(`/api/campaigns/${first.id}`)).counts.delivered).toBe(2);
  const to = (await call<{ data: { phone: string }[] }>(`/api/messages?campaignId=${first.id}`)).data.map((m) => m.phone).sort();
  expect(to).toEqual(["+14155550123", "+14155550124"]);

  // Each segment has "Send to this segment": the wizard opens with it chosen, and the review names it.
  await page.goto(`${app.url}/segments`);
  const row = page.getByTestId("segment").filter({ hasText: "VIP customers" });
  await expect(row.getByTestId("segment-count")).toHaveText("2 contacts");
  await screenshots(page, "segments-send-action");
  await row.getByRole("link", { name: "Send to this segment" }).click();
  await expect(page).toHaveURL(new RegExp(`/simple-campaign-wizard\\?segmentId=${vip.id}$`));
  const again = page.getByRole("dialog", { name: "Create New Campaign" });
  await again.getByRole("radio", { name: /Reminder/ }).click();
  await again.getByRole("button", { name: "Continue" }).click();
  await again.getByLabel("Your message").fill("Doors open at 7 for VIPs");
  await again.getByRole("button", { name: "Continue" }).click();
  await expect(again.getByRole("radio", { name: /A segment/ })).toBeChecked();
  await expect(again.getByRole("combobox", { name: "Segment" })).toHaveValue(vip.id);
  await again.getByRole("button", { name: "Continue" }).click();
  await expect(again.getByTestId("wizard-review")).toContainText("AudienceSegment: VIP customers");
  await screenshots(page, "wizard-segment-review");
  await again.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page).toHaveURL(/\/sent-messages$/);
  const second = (await call<{ data: Campaign[] }>("/api/campaigns")).data.find((c) => c.id !== first.id)!;
  expect(second.audience).toEqual({ kind: "segment", segmentId: vip.id });
  await expect.poll(async () => (await call<Campaign>(`/api/campaigns/${second.id}`)).counts.delivered).toBe(2);
});
