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

/**
 * Quiet hours around the present hour in New York, from an hour before to two hours after (the browser runs on the
 * real clock): every message to a New York number is held. Answers the settings and their end as a New York clock
 * reads it in the account's locale ("10:00 PM").
 */
function quietNow() {
  const hour = Number(new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hourCycle: "h23", hour: "2-digit" }).format(Date.now()));
  const clock = (h: number) => `${String((h + 24) % 24).padStart(2, "0")}:00`;
  const end = new Intl.DateTimeFormat("en-US", { timeStyle: "short", timeZone: "UTC" }).format(Date.UTC(2000, 0, 1, (hour + 2) % 24));
  return { settings: { quietHoursEnabled: true, quietHoursStart: clock(hour - 1), quietHoursEnd: clock(hour + 2) }, end };
}

test("quiet hours the user controls: held messages say so in /chat, go now on request or when quiet hours are turned off; a transactional text is not held", async ({ page }) => {
  test.setTimeout(150_000);
  const { call, patch } = await setUp(page, `quiet${Date.now()}@example.com`);
  const quiet = quietNow();
  await patch("/api/user/settings", quiet.settings);
  await call("/api/contacts", { firstName: "Nora", lastName: "Quill", phone: "+12125550121" });
  await call("/api/contacts", { firstName: "Ned", lastName: "Park", phone: "+12125550122" });
  await call("/api/contacts", { firstName: "Nia", lastName: "Lowe", phone: "+12125550123" });
  const campaignOf = (id: string) => call<Campaign & { quietWait: { count: number } | null; transactional: boolean }>(`/api/campaigns/${id}`);
  const startCampaign = async (name: string, recipients: string[]) => {
    const c = await call<{ id: string }>("/api/campaigns", { name, content: "Late-night tulips: 20% off until midnight", recipients });
    await call(`/api/campaigns/${c.id}/send`, {});
    await expect.poll(async () => (await campaignOf(c.id)).quietWait?.count, { timeout: 15_000 }).toBe(recipients.length);
    return c.id;
  };
  const waiting = `Waiting for quiet hours until ${quiet.end} (recipient's time)`;

  // 1. /chat shows a held message as waiting until the end of quiet hours on the recipient's clock, not as sent.
  const night = await startCampaign("Night sale", ["+12125550121", "+12125550122"]);
  await page.goto(`${app.url}/chat`);
  const row = page.getByRole("list", { name: "Conversation list" }).getByRole("listitem").filter({ hasText: "Nora Quill" });
  await row.getByRole("button").click();
  await expect(page.getByTestId("thread-name")).toHaveText("Nora Quill");
  const status = page.getByTestId("chat-messages").last().getByTestId("delivery-status");
  await expect(status).toHaveText(` · ${waiting}`);
  await screenshots(page, "chat-held-message");

  // 2. The campaign's card offers "Send held messages now", with the compliance warning first.
  await page.goto(`${app.url}/sms-campaigns`);
  const card = page.getByTestId("campaign-card").filter({ hasText: "Night sale" });
  await expect(card.getByTestId("quiet-wait")).toHaveText(`${waiting}: 2 messages`);
  await card.getByRole("button", { name: "Send held messages now" }).click();
  const dialog = page.getByRole("dialog", { name: "Send held messages now" });
  await expect(dialog.getByTestId("held-warning")).toContainText(`2 messages of “Night sale” wait for quiet hours to end at ${quiet.end}`);
  await expect(dialog.getByRole("alert")).toHaveText(
    "In the United States the TCPA allows marketing texts only between 8 AM and 9 PM in the recipient's time zone, and some states allow fewer hours. Send now only if these recipients expect the message at this hour: you are responsible for it.",
  );
  await screenshots(page, "send-held-warning");
  await dialog.getByRole("button", { name: "Send now" }).click();
  await expect(page.getByText("2 messages of “Night sale” are going out now; quiet hours no longer hold this campaign.")).toBeVisible();
  await expect.poll(async () => (await campaignOf(night)).counts.delivered, { timeout: 15_000 }).toBe(2);
  expect((await campaignOf(night)).quietWait).toBeNull();
  await page.goto(`${app.url}/chat`);
  await page.getByRole("list", { name: "Conversation list" }).getByRole("listitem").filter({ hasText: "Nora Quill" }).getByRole("button").click();
  await expect(page.getByTestId("chat-messages").last().getByTestId("delivery-status")).toHaveText(" · Delivered");

  // 3. Turning quiet hours off in the settings sends what they hold now, and says how many.
  const second = await startCampaign("Second chance", ["+12125550123"]);
  await page.goto(`${app.url}/settings`);
  await expect(page.getByRole("heading", { name: "Sending & Compliance" })).toBeVisible();
  await page.getByLabel("Hold campaign messages during quiet hours").uncheck();
  await expect(page.getByTestId("quiet-hours-off-note")).toHaveText(
    "Saving sends the campaign messages quiet hours hold now, whatever the hour where their recipients are.",
  );
  await screenshots(page, "quiet-hours-off");
  await page.getByRole("button", { name: "Save Sending Settings" }).click();
  await expect(page.getByText("Quiet hours are off: 1 message held for quiet hours is being sent now.")).toBeVisible();
  await expect(page.getByTestId("quiet-hours-off-note")).toHaveCount(0);
  await expect.poll(async () => (await campaignOf(second)).counts.delivered, { timeout: 15_000 }).toBe(1);

  // 4. Advanced SMS: a transactional one-off goes out inside quiet hours; marketing would wait.
  await patch("/api/user/settings", quiet.settings);
  await page.goto(`${app.url}/advanced-sms`);
  await page.getByLabel("Phone numbers").fill("+12125550124");
  await page.getByLabel("Message", { exact: true }).fill("Your order #1042 has shipped");
  await expect(page.getByTestId("delivery-note")).toContainText(`The recipient is in quiet hours now. They get it at ${quiet.end} (recipient's time).`);
  await page.getByLabel(/Transactional message/).check();
  await expect(page.getByTestId("delivery-note")).toHaveText(
    "1 recipient: transactional, so quiet hours do not hold it; it goes out right away, whatever the hour where they are.",
  );
  await screenshots(page, "advanced-sms-transactional");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByText("Message sent", { exact: true })).toBeVisible();
  const sent = (await call<{ data: (Campaign & { transactional: boolean })[] }>("/api/campaigns")).data.find((c) => c.name.startsWith("Advanced SMS"))!;
  expect(sent.transactional).toBe(true);
  await expect.poll(async () => (await campaignOf(sent.id)).counts.delivered, { timeout: 15_000 }).toBe(1);
});
