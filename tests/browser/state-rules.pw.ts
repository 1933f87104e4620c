// State rules (issue 34 item 2) in Chromium: an administrator sets Florida's line in the admin portal's Settings tab
// (hours that leave out the present hour in Florida), /help shows it, a user's campaign to a Florida number is held
// and its recipient says which rule held it; restoring the built-in line brings back the table of the source file.
import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";
import { atBothWidths } from "./widths";

const ADMIN = { email: "root@example.com", password: "correct-horse-battery" };

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
});
test.afterAll(async () => {
  await app.stop();
});

test("an administrator's line for Florida holds a user's text, and the recipient says which rule held it", async ({ page, browser }) => {
  test.setTimeout(120_000);
  // One hour of texts that is not now in Florida (Miami's clock): the test holds whenever it runs.
  const hour = Number(new Intl.DateTimeFormat("en-US", { hour: "numeric", hourCycle: "h23", timeZone: "America/New_York" }).format(new Date()));
  const [from, until, label] = hour < 12 ? ["13:00", "14:00", "1 PM–2 PM"] : ["01:00", "02:00", "1 AM–2 AM"];

  await page.goto(`${app.url}/admin`);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard/);
  await page.getByRole("tab", { name: "Settings" }).click();
  const lines = page.getByRole("listitem").filter({ hasText: "Florida" });
  await expect(lines).toHaveText(/Florida: 8 AM–8 PM, 3 per 24 hours · Fla\. Stat\. § 501\.616\(6\) · checked 2026-12-07/);
  await lines.getByRole("button", { name: "Edit" }).click();
  await expect(page.getByLabel("State (two letters)")).toHaveValue("FL");
  await page.getByLabel("Texts allowed from").fill(from);
  await page.getByLabel("Until").fill(until);
  await page.getByLabel("Legal source").fill("Test line");
  await page.getByRole("button", { name: "Save state rule" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Rule for FL saved" })).toBeVisible();
  await expect(lines).toContainText(`Florida: ${label}, 3 per 24 hours · Test line`);
  await expect(lines).toContainText("(yours)");
  await atBothWidths(page, "state-rules", "admin-settings");

  await page.goto(`${app.url}/help`);
  await expect(page.getByTestId("state-rules").getByRole("row").filter({ hasText: "Florida" })).toHaveText(/^Florida.*Test line/);

  // A user's campaign to a Florida number, their own quiet hours off: the state's line holds it.
  const user = await browser.newPage();
  await app.signUp(user, { email: `fl${Date.now()}@example.com` });
  const call = await app.apiAs(user);
  await call("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  const c = await call<{ id: string }>("/api/campaigns", { type: "sms", name: "Miami tulips", content: "Tulips are in", recipients: ["+13055550161"] });
  await call(`/api/campaigns/${c.id}/send`, {});
  await user.goto(`${app.url}/sent-messages`);
  await user.getByTestId("history-row").filter({ hasText: "Miami tulips" }).getByRole("button", { name: /View details of/ }).click();
  const details = user.getByRole("dialog", { name: "Miami tulips" });
  const held = details.getByTestId("held-reason");
  await expect(held).toHaveText(new RegExp(`^Held: Florida law allows texts ${label} \\(Test line\\) · goes `), { timeout: 15_000 });
  await expect(details.getByTestId("quiet-wait")).toHaveText("Waiting for state law (each recipient says which rule): 1 message");
  await atBothWidths(user, "state-rules", "held-recipient");

  // Back to the built-in line.
  await page.goto(`${app.url}/admin/dashboard#settings`);
  await lines.getByRole("button", { name: "Restore built-in" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Built-in rule for FL restored" })).toBeVisible();
  await expect(lines).toHaveText(/Florida: 8 AM–8 PM, 3 per 24 hours · Fla\. Stat\. § 501\.616\(6\)/);
});
