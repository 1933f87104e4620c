// Accessible to everyone (issue 28 item 10): axe (@axe-core/playwright) over every signed-in page, a customer's with
// real data (five weeks of history, a campaign, a reply, so charts, tables and the chat button's count are there) and
// the administrator's, at a desktop's and a phone's width; the chat popup open; each Admin Panel tab. A serious or
// critical violation fails the test, named with the page, the rule and the elements. Screenshots of each page at 1280
// and 390 go to dist/screenshots/accessibility/.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Appliance } from "./harness";

const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "dist", "screenshots", "accessibility");
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-a11y-"));
const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "correct-horse-battery";

/** Every page a signed-in customer reaches from the sidebar and the home screens. */
const CUSTOMER_PAGES = [
  "/dashboard",
  "/advanced",
  "/simple",
  "/contact-lists",
  "/segments",
  "/templates",
  "/automation",
  "/keywords",
  "/advanced-sms",
  "/sms-campaigns",
  "/campaigns",
  "/simple-campaign-wizard",
  "/sent-messages",
  "/analytics",
  "/chat",
  "/chat/archived",
  "/phone-settings",
  "/integrations",
  "/email-campaigns",
  "/settings",
  "/settings/security",
  "/license",
];
const ADMIN_PAGES = ["/admin/dashboard", "/admin/backup-manager", "/real-time-demo"];

let app: Appliance;
test.describe.configure({ mode: "serial" });
test.beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await new Appliance().start({ DATA_DIR: dataDir, ADMIN_EMAIL, ADMIN_PASSWORD });
});
test.afterAll(async () => {
  await app.stop();
});

type Found = { page: string; width: number; rule: string; impact: string; help: string; targets: string[] };

/**
 * axe's WCAG 2.0/2.1 A and AA rules and its best practices, plus the label-content-name-mismatch check (a control's
 * accessible name must contain its visible text: axe ships it as experimental). Serious and critical only.
 */
async function serious(page: Page, name: string, width: number): Promise<Found[]> {
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice", "experimental"])
    .options({ rules: { "label-content-name-mismatch": { enabled: true } } })
    .analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      page: name,
      width,
      rule: v.id,
      impact: v.impact!,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(" ")).slice(0, 5),
    }));
}

/** Checks the page as it is at 1280 and at 390 pixels wide, with a screenshot of each. */
async function check(page: Page, name: string): Promise<Found[]> {
  const found: Found[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(200);
    found.push(...(await serious(page, name, width)));
    await page.screenshot({
      path: join(shots, `${name.replace(/^\//, "").replace(/[^a-z0-9]+/gi, "-") || "home"}-${width}.png`),
      fullPage: true,
    });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

/** Opens a page and waits for its first heading (the screen has rendered, not just the shell). */
async function open(page: Page, path: string) {
  await page.goto(`${app.url}${path}`);
  await expect(page.locator("main h1, main h2").first()).toBeVisible();
  // Data the screen loads after its heading (tables, charts, counts).
  await page.waitForLoadState("networkidle");
}

test("the customer's pages have no serious or critical violation, with data, at 1280 and 390 px", async ({ page }) => {
  test.setTimeout(360_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await app.signUp(page, { email: `a11y${Date.now()}@example.com` });
  const call = await app.apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false, timezone: "America/Chicago" }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call(`/api/sms-providers/${provider.id}`, { settings: { deliveryDelayMs: 0 } }, "PATCH");
  await call("/api/phone-numbers", {
    providerId: provider.id,
    phoneNumber: "+14155550100",
    displayName: "Main line",
    isDefault: true,
  });
  const me = await call<{ id: string }>("/api/auth/user");
  const seeded = spawnSync(
    join(root, "node_modules", ".bin", "bun"),
    ["tests/browser/dashboards-seed.ts", join(dataDir, "smsdesk.db"), me.id],
    { cwd: root, encoding: "utf8" },
  );
  expect(seeded.status, seeded.stderr).toBe(0);
  const recipients = ["+13125550101", "+13125550102", "+13125550103"];
  for (const [i, phone] of recipients.entries())
    await call("/api/contacts", { firstName: `Guest ${i + 1}`, lastName: "Today", phone });
  const campaign = await call<{ id: string }>("/api/campaigns", {
    name: "Today's Special",
    content: "Soup of the day: tomato",
    recipients,
    fromNumber: "+14155550100",
  });
  await call(`/api/campaigns/${campaign.id}/send`, {});
  await expect
    .poll(async () => (await call<{ status: string }>(`/api/campaigns/${campaign.id}`)).status, { timeout: 30_000 })
    .toBe("completed");
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+13125550101", body: "Yum, see you at noon" });
  await call("/api/templates", { name: "Weekly special", content: "This week: {firstName}, 10% off" });

  const found: Found[] = [];
  for (const path of CUSTOMER_PAGES) {
    await open(page, path);
    found.push(...(await check(page, path)));
  }
  // The results dashboard's charts shown as tables (a scrolling table a keyboard must reach).
  await open(page, "/analytics");
  for (const button of await page.getByRole("button", { name: "table", exact: true }).all()) await button.click();
  found.push(...(await check(page, "/analytics (tables)")));
  // The chat popup open over a page, with the unread reply in it.
  await open(page, "/contact-lists");
  const popup = page.getByRole("region", { name: "Chat" });
  if (!(await popup.isVisible())) await page.getByRole("button", { name: /^Open chat/ }).click();
  await expect(popup).toBeVisible();
  found.push(...(await check(page, "/contact-lists (chat open)")));
  expect(found).toEqual([]);
});

test("the administrator's pages and every Admin Panel tab have no serious or critical violation", async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto(`${app.url}/admin`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Admin Panel" })).toBeVisible();

  const found: Found[] = [];
  for (const path of ADMIN_PAGES) {
    await open(page, path);
    found.push(...(await check(page, path)));
  }
  await open(page, "/admin/dashboard");
  const tabs = await page.getByRole("tab").allTextContents();
  expect(tabs.length).toBeGreaterThan(3);
  for (const tab of tabs) {
    await page.getByRole("tab", { name: tab, exact: true }).click();
    await page.waitForLoadState("networkidle");
    found.push(...(await check(page, `/admin/dashboard (${tab})`)));
  }
  expect(found).toEqual([]);
});
