// Issue 28 item 1, walked in Chromium: a keyword's double opt-in answered YES gets the keyword's welcome (not START's
// "subscribed again"), the consent history shows that text as sent with the keyword and the number texted, and the
// HELP reply, edited under Sending & Compliance, carries the business's contact. Texts come in through the
// simulator; what it was handed is the outbound message in /chat. Screenshots at 1280 and 390 pixels wide go to
// dist/screenshots/compliance-replies/.
import { expect, test, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = join(import.meta.dirname, "..", "..", "dist", "screenshots", "compliance-replies");
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const NUMBER = "+14155550100";
const WELCOME = "Rosa's Flowers: Thanks for joining, friend! Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel.";
const QUESTION = "Rosa's Flowers: Reply Y within 24 hours to confirm you want texts from us (keyword DEALS). Msg & data rates may apply. Reply STOP to cancel.";

let app: Appliance;
test.beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

async function both(page: Page, name: string) {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(shots, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(shots, `${name}-390.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

// The link's name may carry an unread count ("Chat & Replies 3").
const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: new RegExp(`^${name}`) });

test("YES confirms a double opt-in with the keyword's welcome, logged as sent; HELP gives the business's contact", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize(DESKTOP);
  await app.signUp(page, { email: `compliance${Date.now()}@example.com` }, { business: "Rosa's Flowers" });
  const call = await app.apiAs(page);
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: NUMBER, isDefault: true });
  await call("/api/keywords", { keyword: "DEALS", doubleOptIn: true, tags: ["deals"], autoReply: "{business}: Thanks for joining, {firstName|friend}! Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel." });
  const text = (from: string, body: string) => call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from, to: NUMBER, body });

  // The HELP reply: the default names the business and the contact from the Business Profile.
  await nav(page, "Account Settings").click();
  await page.getByLabel("Contact for HELP replies").fill("(415) 555-0199");
  await page.getByRole("button", { name: "Save Profile" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Profile saved" })).toBeVisible();
  await page.reload();
  const help = page.getByLabel("HELP reply");
  const byDefault = "Rosa's Flowers: For help, contact (415) 555-0199. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe.";
  await expect(help).toHaveValue(byDefault);
  const custom = "Rosa's Flowers help: call (415) 555-0199 or visit rosasflowers.example. Msg & data rates may apply. Reply STOP to opt out.";
  await help.fill(custom);
  await expect(page.getByTestId("help-reply-default")).toHaveText(byDefault);
  await page.getByLabel("HELP reply").scrollIntoViewIfNeeded();
  await both(page, "01-help-reply-setting");
  await page.getByRole("button", { name: "Save Sending Settings" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Settings saved" })).toBeVisible();

  // A phone texts DEALS, then YES; another texts HELP.
  await text("+14155550142", "deals");
  await expect.poll(async () => (await call<{ data: { pendingCount: number }[] }>("/api/keywords")).data[0]!.pendingCount).toBe(1);
  await text("+14155550142", "YES");
  await text("+14155550143", "HELP");
  // The simulator delivers the texts a moment later: the opt-in is confirmed before the screens are read.
  await expect.poll(async () => (await call<{ data: { optInCount: number }[] }>("/api/keywords")).data[0]!.optInCount).toBe(1);

  await nav(page, "Chat & Replies").click();
  await page.getByRole("list", { name: "Conversation list" }).getByRole("button", { name: /^\+1 \(415\) 555-0142/ }).click();
  const thread = page.locator("body");
  await expect(thread.getByText(WELCOME).first()).toBeVisible({ timeout: 15_000 });
  await expect(thread.getByText(QUESTION).first()).toBeVisible();
  await expect(thread.getByText("You are subscribed again")).toHaveCount(0);
  await both(page, "02-chat-yes-gets-welcome");

  // The consent history: the welcome exactly as sent, the keyword and the number texted (the chat popup, opened by
  // the texts, closed first).
  const popupClose = page.getByRole("button", { name: "Close chat" });
  if (await popupClose.isVisible()) await popupClose.click();
  await nav(page, "Customer Lists").click();
  const row = page.getByRole("row").filter({ hasText: "0142" });
  await expect(row).toContainText("deals");
  await row.getByRole("button", { name: /^Actions for/ }).click();
  await page.getByRole("menuitem", { name: "View consent history" }).click();
  const dialog = page.getByRole("dialog", { name: "Consent history" });
  await expect(dialog.getByTestId("consent-text")).toHaveText([`“${WELCOME}”`]);
  await expect(dialog).toContainText(`keyword DEALS · texted to ${NUMBER}`);
  await both(page, "03-consent-history");
  await dialog.getByRole("button", { name: "Close" }).last().click();

  // What the simulator was handed: the welcome (the consent's text) to 0142, the edited HELP reply to 0143.
  const sent = await call<{ data: { phone: string; content: string }[] }>("/api/messages?direction=outbound&pageSize=100");
  const to = (phone: string) => sent.data.filter((m) => m.phone === phone).map((m) => m.content).sort();
  expect(to("+14155550142")).toEqual([QUESTION, WELCOME].sort());
  expect(to("+14155550143")).toEqual([custom]);
});
