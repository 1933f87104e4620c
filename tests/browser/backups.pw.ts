import { expect, test } from "@playwright/test";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = join(import.meta.dirname, "..", "..", "dist", "screenshots", "backups");
// The browser's zone differs from the account's: the screen shows the account's (issue 28 item 9).
test.use({ timezoneId: "America/Los_Angeles" });

const ADMIN_EMAIL = "backups@example.com";
const ADMIN_PASSWORD = "correct-horse-battery";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD });
});
test.afterAll(async () => {
  await app.stop();
});

test("an administrator opens the Backup Manager from the Admin Panel, creates a backup, sees it listed as good and downloads it", async ({ page }) => {
  app.sql(`UPDATE users SET timezone = 'Asia/Tokyo', locale = 'en-GB' WHERE email = '${ADMIN_EMAIL}'`);
  await page.goto(`${app.url}/admin`);
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard/);
  await expect(page.getByTestId("backup-age")).toContainText("Last good, drilled backup");
  await expect(page.getByTestId("backup-age")).toContainText("None yet");

  await page.getByRole("main").getByRole("link", { name: "Backup Manager" }).first().click();
  await expect(page).toHaveURL(/\/admin\/backup-manager$/);
  await expect(page.getByRole("heading", { name: "Backup Manager" })).toBeVisible();
  await expect(page.getByText("No backups yet.")).toBeVisible();

  await page.getByRole("button", { name: "Create backup" }).click();
  await expect(page.getByTestId("toast")).toContainText("Backup created and verified");
  const row = page.getByTestId("backup-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("manual");
  await expect(row).toContainText("Good");
  await expect(row).toContainText(/\d+ rows, schema \d{4}_\w+, version \d+\.\d+\.\d+/);
  const [made] = ((await (await page.request.get(`${app.url}/api/admin/backups`)).json()) as { data: { createdAt: number }[] }).data;
  const inTokyo = (at: number) => new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "Asia/Tokyo" }).format(at);
  await expect(row.getByRole("cell").first()).toHaveText(inTokyo(made!.createdAt));

  await expect(row.getByTestId("backup-drill")).toHaveText("Not tested");
  await row.getByRole("button", { name: "Test restore" }).click();
  await expect(page.getByTestId("toast").last()).toContainText("Restore drill passed");
  await expect(row.getByTestId("backup-drill")).toContainText("Passed");
  await expect(page.getByTestId("backup-age")).toContainText("0 minutes old");
  const drilled = ((await (await page.request.get(`${app.url}/api/admin/backups`)).json()) as { data: { drill: { at: number } }[] }).data[0]!;
  await expect(row.getByTestId("backup-drill")).toHaveText(`Passed ${inTokyo(drilled.drill.at)}`);
  await expect(page.getByTestId("backup-age")).toContainText(`(${inTokyo(made!.createdAt)}, drill passed ${inTokyo(drilled.drill.at)})`);
  await page.screenshot({ path: join(shots, "backup-manager-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(shots, "backup-manager-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  const downloading = page.waitForEvent("download");
  await row.getByRole("link", { name: "Download" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^smsdesk-\d{8}-\d{6}-manual-[0-9a-f]{6}\.tar\.gz$/);
  const path = await download.path();
  const bytes = await (await import("node:fs/promises")).readFile(path);
  // gzip magic: the archive opens with `tar xzf`.
  expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);

  // 11 minutes after the sign-in (sudo mode, src/auth/reauth.ts), a download asks for the password first.
  app.sql("UPDATE sessions SET confirmed_at = confirmed_at - 660000");
  await row.getByRole("link", { name: "Download" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm your password" });
  await confirm.getByLabel("Password").fill(ADMIN_PASSWORD);
  const again = page.waitForEvent("download");
  await confirm.getByRole("button", { name: "Confirm", exact: true }).click();
  expect((await again).suggestedFilename()).toBe(download.suggestedFilename());
  await expect(confirm).toHaveCount(0);

  // The S3-compatible destination: saved with its secret, which is never shown again.
  await page.getByLabel("Endpoint").fill("https://s3.eu-central-1.amazonaws.com");
  await page.getByLabel("Bucket").fill("agency-backups");
  await page.getByLabel("Region").fill("eu-central-1");
  await page.getByLabel("Access key id").fill("AKIAEXAMPLE");
  await page.getByLabel("Secret access key").fill("secret-example");
  await page.getByLabel("Upload scheduled backups").check();
  await page.getByRole("button", { name: "Save destination" }).click();
  await expect(page.getByTestId("toast").last()).toContainText("S3 destination saved");
  await page.reload();
  await expect(page.getByLabel("Bucket")).toHaveValue("agency-backups");
  await expect(page.getByLabel("Secret access key")).toHaveValue("");
  await expect(page.getByText("Set; leave empty to keep it")).toBeVisible();

  // The dashboard shows the age of that drilled backup.
  await page.goto(`${app.url}/admin/dashboard`);
  await expect(page.getByTestId("backup-age")).toContainText("0 minutes old");
});
