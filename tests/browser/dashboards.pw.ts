// The three dashboards with data (issue 17 items 1-3): five weeks of history seeded into the running appliance's
// database (tests/browser/dashboards-seed.ts) plus a campaign sent today through the simulator, with a reply and an
// opt-out; the results dashboard's cards, charts (and their tables), ranges, price per segment, price per MMS and an
// MMS sent at it counted apart from the SMS (issue 33), the advanced home's comparisons and campaign actions, the
// simple home's cards and a ready-made template. Screenshots of each at 1280 and 390 pixels wide go to
// dist/screenshots/dashboards/.
import { expect, test, type Page } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { photoJpeg } from "../support/media-fixtures";
import { Appliance } from "./harness";

const root = join(import.meta.dirname, "..", "..");
// Not under test-results: Playwright empties that folder at the start of every run (other suites' too).
const shots = join(root, "dist", "screenshots", "dashboards");
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-dashboards-"));
let app: Appliance;
test.beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await new Appliance().start({ DATA_DIR: dataDir });
});
test.afterAll(async () => {
  await app.stop();
});

async function apiAs(page: Page) {
  const session = await app.sessionHeaders(page);
  return async <T>(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...session },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(r.status, `${path}: ${await r.clone().text()}`).toBeLessThan(300);
    return (await r.json()) as T;
  };
}

/** Full-page screenshots at a desktop's and a phone's width. */
async function screenshots(page: Page, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // Charts follow their box's width; give them a frame to redraw.
    await page.waitForTimeout(300);
    // Nothing wider than the screen: a phone never scrolls sideways.
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !e.closest(".overflow-x-auto, .overflow-auto, .sr-only"))
        .slice(0, 5)
        .map((e) => `${e.tagName}.${e.className}`.slice(0, 120)),
    );
    expect(wide, `${name} at ${width}`).toEqual([]);
    // Nor do the campaign tables: a row that scrolled hid its View button off the card's edge on a phone.
    const scrolling = await page.evaluate(() =>
      [...document.querySelectorAll("table[aria-label]")]
        .map((t) => t.parentElement!)
        .filter((box) => box.scrollWidth > box.clientWidth + 1)
        .map((box) => box.querySelector("table")!.getAttribute("aria-label")),
    );
    expect(scrolling, `${name} at ${width}`).toEqual([]);
    await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("the results dashboard, the advanced home and the simple home show the account's real figures", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await app.signUp(page, { email: `dashboards${Date.now()}@example.com` });
  const call = await apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false, timezone: "America/Chicago" }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call(`/api/sms-providers/${provider.id}`, { settings: { deliveryDelayMs: 0 } }, "PATCH");
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  const me = await call<{ id: string }>("/api/auth/user");
  // The price the history below went at (the seed records it on each message sent, as the outbox store does).
  await call(`/api/sms-providers/${provider.id}/segment-price`, { priceMicros: 7900 }, "PUT");

  const seeded = spawnSync(join(root, "node_modules", ".bin", "bun"), ["tests/browser/dashboards-seed.ts", join(dataDir, "smsdesk.db"), me.id], { cwd: root, encoding: "utf8" });
  expect(seeded.status, seeded.stderr).toBe(0);

  // Today: a campaign through the simulator (one number fails after sending), then a reply and a STOP.
  const recipients = ["+13125550101", "+13125550102", "+13125550103", "+13125550104", "+13125550150"];
  for (const [i, phone] of recipients.entries()) await call("/api/contacts", { firstName: `Guest ${i + 1}`, lastName: "Today", phone });
  const campaign = await call<{ id: string }>("/api/campaigns", { name: "Today's Special", content: "Soup of the day: tomato", recipients, fromNumber: "+14155550100" });
  await call(`/api/campaigns/${campaign.id}/send`, {});
  await expect
    .poll(async () => (await call<{ status: string }>(`/api/campaigns/${campaign.id}`)).status, { timeout: 30_000 })
    .toBe("completed");
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+13125550101", body: "Yum, see you at noon" });
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+13125550102", body: "STOP" });
  await expect.poll(async () => (await call<{ totals: { optOuts: number } }>("/api/results/series?days=7")).totals.optOuts).toBeGreaterThan(0);

  // The reply opened the chat popup; close it so it covers nothing.
  const popup = page.getByRole("region", { name: "Chat" });
  await expect(popup).toBeVisible();
  await popup.getByRole("button", { name: "Close chat", exact: true }).click();

  // Results & Stats, from the sidebar (sign-up ended on it, before the data: the home first, so it loads anew).
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard", exact: true }).click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Results & Stats" }).click();
  await expect(page.getByRole("heading", { name: "Results & Stats" })).toBeVisible();
  const month = await call<{
    totals: { sent: number; delivered: number; bounced: number; replies: number; deliveryRate: number };
    campaigns: { name: string }[];
  }>("/api/results/series?days=30");
  const fmt = (v: number) => new Intl.NumberFormat("en-US").format(v);
  await expect(page.getByTestId("stat-Total Sent")).toHaveText(fmt(month.totals.sent));
  await expect(page.getByTestId("stat-Delivered")).toHaveText(fmt(month.totals.delivered));
  await expect(page.getByTestId("stat-Opened")).toHaveText("—");
  await expect(page.getByTestId("stat-Bounced")).toHaveText(fmt(month.totals.bounced));
  await expect(page.getByTestId("stat-Replies")).toHaveText(fmt(month.totals.replies));
  expect(month.totals.sent).toBeGreaterThan(1000);
  for (const chart of ["chart-outcomes", "chart-delivery-rate", "chart-replies", "chart-senders"]) {
    await expect(page.getByTestId(chart).locator("canvas").first()).toBeVisible();
  }
  // Each chart's table: there for screen readers, and shown on demand.
  const outcomes = page.getByTestId("chart-outcomes");
  await expect(outcomes.getByRole("table", { name: "Messages per day", includeHidden: true })).toHaveCount(1);
  await outcomes.getByRole("button", { name: "table" }).click();
  await expect(outcomes.getByRole("table", { name: "Messages per day" })).toBeVisible();
  await expect(outcomes.getByRole("row")).toHaveCount(31);
  await outcomes.getByRole("button", { name: "chart" }).click();
  await expect(page.getByTestId("chart-senders")).toContainText("Main line (+14155550100)");
  await expect(page.getByTestId("campaign-spend").first()).toBeVisible();
  await expect(page.getByTestId("recent-campaign").first()).toContainText("Today's Special");

  // A new price per segment: estimates take it; what was sent keeps the price it went at.
  const priced = await call<{ months: { spendMicros: number }[] }>("/api/results/overview");
  expect(priced.months.at(-1)!.spendMicros).toBeGreaterThan(0);
  const spend = page.getByTestId("stat-Spend");
  await expect(spend).not.toHaveText("$0.00");
  const spent = (await spend.textContent())!;
  const prices = page.getByLabel("Simulator (simulator)", { exact: true });
  await expect(prices).toHaveValue("0.0079");
  await prices.fill("0.0085");
  await prices.press("Enter");
  await expect(page.getByText("Price saved").first()).toBeVisible();
  expect((await call<{ months: { spendMicros: number }[] }>("/api/results/overview")).months).toEqual(priced.months);
  await expect(spend).toHaveText(spent);

  // The price per MMS (issue 33): a Brevo account says it sends none; the simulator's default labelled, then 3 cents
  // set on screen; one MMS sent at it.
  const brevo = await call<{ id: string }>("/api/sms-providers", { provider: "brevo", displayName: "Brevo", apiKey: "xkeysib-test", senderName: "Rosa" });
  await page.reload();
  await expect(page.getByTestId(`mms-price-${brevo.id}`)).toHaveText("Brevo (brevo)Sends no MMS: pictures and files go from a Twilio or Telnyx number.");
  const mmsSource = page.getByTestId(`mms-price-${provider.id}-source`);
  await expect(mmsSource).toHaveText("Using the default, $0.00: the simulator sends nothing and costs nothing.");
  const mmsPrice = page.getByLabel("Price per MMS, Simulator (simulator)");
  await mmsPrice.fill("0.03");
  await mmsPrice.press("Enter");
  await expect(mmsSource).toHaveText("Your price. The default would be $0.00.");
  const [account] = (await call<{ data: { mmsPriceMicros: number; customMmsPriceMicros: number | null }[] }>("/api/sms-providers/segment-prices")).data;
  expect(account).toMatchObject({ mmsPriceMicros: 30_000, customMmsPriceMicros: 30_000 });
  // The SMS and MMS of the month apart: none an MMS yet.
  await expect(page.getByTestId("kind-MMS").getByRole("cell")).toHaveText(["0", "0", "$0.00"]);
  const photo = await fetch(`${app.url}/api/media?filename=bouquet.jpg`, {
    method: "POST",
    headers: await app.sessionHeaders(page),
    body: photoJpeg(120, 90, 85, 7) as Uint8Array<ArrayBuffer>,
  });
  expect(photo.status).toBe(201);
  const mms = await call<{ id: string }>("/api/messages/send", { phone: "+13125550103", content: "Today's bouquet", mediaIds: [((await photo.json()) as { id: string }).id] });
  await expect.poll(async () => (await call<{ status: string }>(`/api/messages/${mms.id}`)).status, { timeout: 30_000 }).toBe("delivered");
  await page.reload();
  const withMms = await call<{ totals: { sent: number; sms: { sent: number; delivered: number; spendMicros: number } } }>("/api/results/series?days=30");
  expect(withMms.totals.sent).toBe(month.totals.sent + 1);
  await expect(page.getByTestId("kind-MMS").getByRole("cell")).toHaveText(["1", "1", "$0.03"]);
  const usd = (micros: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(micros / 1_000_000);
  await expect(page.getByTestId("kind-SMS").getByRole("cell")).toHaveText([fmt(withMms.totals.sms.sent), fmt(withMms.totals.sms.delivered), usd(withMms.totals.sms.spendMicros)]);
  expect(withMms.totals.sms.sent).toBe(month.totals.sent);
  // This month's row of spend per month (the newest first) counts the MMS in its own column.
  await expect(page.getByTestId("spend-by-month").getByRole("row").nth(1).getByRole("cell").nth(2)).toHaveText("1");

  await page.getByRole("tab", { name: "7 days" }).click();
  const week = await call<{ totals: { sent: number } }>("/api/results/series?days=7");
  await expect(page.getByTestId("stat-Total Sent")).toHaveText(fmt(week.totals.sent));
  await page.getByRole("tab", { name: "30 days" }).click();
  await expect(page.getByTestId("stat-Total Sent")).toHaveText(fmt(withMms.totals.sent));
  // Without the toast over the charts.
  await page.reload();
  await expect(page.getByTestId("chart-outcomes").locator("canvas").first()).toBeVisible();
  await screenshots(page, "results-dashboard");

  // The advanced home: this month against last, This Week, campaigns with View.
  await page.goto(`${app.url}/advanced`);
  await expect(page.getByRole("heading", { name: "Dashboard", exact: true })).toBeVisible();
  const overview = await call<{ month: { current: { sent: number } }; week: { current: { campaigns: number } } }>("/api/results/overview");
  await expect(page.getByTestId("stat-Messages Sent")).toHaveText(fmt(overview.month.current.sent));
  // The month's cards tell the SMS and the MMS apart (issue 33).
  await expect(page.getByTestId("stat-Messages Sent").locator("..")).toContainText(`${fmt(overview.month.current.sent - 1)} SMS (`);
  await expect(page.getByTestId("stat-Messages Sent").locator("..")).toContainText("segments), 1 MMS");
  await expect(page.getByTestId("stat-Spend").locator("..")).toContainText("At each text's price when sent; MMS $0.03");
  await expect(page.getByTestId("this-week")).toContainText("Average open rate");
  await expect(page.getByTestId("this-week")).toContainText(String(overview.week.current.campaigns));
  await page.getByTestId("recent-campaign").filter({ hasText: "Today's Special" }).getByRole("button", { name: "View" }).click();
  await expect(page.getByRole("dialog")).toContainText("Soup of the day: tomato");
  await page.keyboard.press("Escape");
  // New Campaign: the create dialog, with the cost before sending at the price set above.
  await page.getByRole("button", { name: "New Campaign" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Campaign" });
  await dialog.getByLabel("Campaign name").fill("Tomorrow");
  await dialog.getByLabel("Message").fill("Soup of the day: leek");
  await dialog.getByLabel("Phone numbers").fill("+13125550103\n+13125550104");
  await expect(dialog.getByTestId("cost-estimate")).toHaveText("$0.02 (2 segments × $0.0085)");
  await page.keyboard.press("Escape");
  await screenshots(page, "advanced-home");
  await page.goto(`${app.url}/home`);
  await expect(page.getByRole("heading", { name: "Dashboard", exact: true })).toBeVisible();

  // The simple home: its four cards from the same figures, and a ready-made template into the wizard.
  await page.goto(`${app.url}/`);
  const summary = await call<{ totalContacts: number; totalMessagesSent: number; responseRate: number }>("/api/analytics/summary");
  await expect(page.getByTestId("stat-Messages Sent")).toHaveText(fmt(summary.totalMessagesSent));
  await expect(page.getByTestId("stat-Total Customers")).toHaveText(fmt(summary.totalContacts));
  await expect(page.getByTestId("stat-Response Rate")).toHaveText(`${summary.responseRate}%`);
  await screenshots(page, "simple-home");
  await page.getByRole("button", { name: "Use This Template" }).first().click();
  await expect(page).toHaveURL(/simple-campaign-wizard/);
});
