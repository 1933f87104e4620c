import { expect, test } from "@playwright/test";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = join(import.meta.dirname, "..", "..", "dist", "screenshots", "backups");
// The browser's zone differs from the account's: the screen shows the account's (issue 28 item 9).
test.use({ timezoneId: "America/Los_Angeles" });

const ADMIN_EMAIL = "backups@example.com";
const ADMIN_PASSWORD = "correct-horse-battery";
const PASSPHRASE = "four words kept offline";

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
  // A sign-in is not a confirmation: creating and downloading backups would ask for the password (shown below).
  await app.confirm(page, ADMIN_PASSWORD);
  await expect(page.getByTestId("backup-age")).toContainText("Last good, drilled backup");
  await expect(page.getByTestId("backup-age")).toContainText("None yet");

  await page.getByRole("main").getByRole("link", { name: "Backup Manager" }).first().click();
  await expect(page).toHaveURL(/\/admin\/backup-manager$/);
  await expect(page.getByRole("heading", { name: "Backup Manager" })).toBeVisible();
  await expect(page.getByText("No backups yet.")).toBeVisible();
  // Whose backups are whose (issue 31 item 3): on the data folder's SQLite, all of it is this manager's.
  const duties = page.getByRole("region", { name: "Whose backups are whose" });
  await expect(duties.getByRole("heading")).toHaveText("Whose backups are whose (SQLite)");
  await expect(duties).toContainText(
    "This manager's job: Everything of this installation: the database (SQLite, in the data folder), secret.key and the MMS pictures and files. A restore here brings all of it back.",
  );
  await expect(duties).toContainText("The database's job: Nothing apart: the database is a file of the data folder, and these backups hold it.");

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

  // Nothing leaves the appliance before the administrator sets the passphrase it is encrypted with (issue 27 item 4).
  await row.getByRole("link", { name: "Download" }).click();
  await expect(page.getByTestId("toast").last()).toContainText("Set a backup passphrase first");
  const encryption = page.getByTestId("backup-encryption");
  await expect(encryption).toContainText("If you lose the passphrase, the backups encrypted with it cannot be restored by anyone.");
  await expect(page.getByTestId("backup-encryption-status")).toHaveText("No passphrase yet: backups cannot be downloaded or copied to S3 until you set one.");
  await encryption.getByLabel("Passphrase", { exact: true }).fill(PASSPHRASE);
  await encryption.getByLabel("Repeat the passphrase").fill(`${PASSPHRASE}!`);
  await expect(encryption).toContainText("The two passphrases differ");
  await encryption.getByLabel("Repeat the passphrase").fill(PASSPHRASE);
  await expect(encryption.getByRole("button", { name: "Set passphrase" })).toBeDisabled();
  await encryption.getByLabel("I have stored this passphrase somewhere safe").check();
  await encryption.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "encryption-setup-1280.png") });
  await encryption.getByRole("button", { name: "Set passphrase" }).click();
  await expect(page.getByTestId("toast").last()).toContainText("Backup passphrase set");
  await expect(page.getByTestId("backup-encryption-status")).toContainText("Passphrase set");
  await page.setViewportSize({ width: 390, height: 844 });
  await encryption.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "encryption-set-390.png") });
  await page.setViewportSize({ width: 1280, height: 800 });

  const downloading = page.waitForEvent("download");
  await row.getByRole("link", { name: "Download" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^smsdesk-\d{8}-\d{6}-manual-[0-9a-f]{6}\.tar\.gz\.enc$/);
  const path = await download.path();
  const bytes = await (await import("node:fs/promises")).readFile(path);
  // Encrypted: no gzip magic, no SQLite header, secret.key nowhere readable.
  expect(bytes.subarray(0, 25).toString()).toBe("SMSDESK-ENCRYPTED-BACKUP\n");
  expect(bytes.includes("SQLite format 3")).toBe(false);

  // Restoring it from the file asks for the passphrase; a wrong one is refused.
  const uploadIt = async (passphrase: string) => {
    await page.getByRole("button", { name: "Upload backup" }).click();
    const dialog = page.getByRole("dialog", { name: "Upload a backup" });
    await dialog.getByLabel("Backup file").setInputFiles(path);
    await dialog.getByLabel("Backup passphrase").fill(passphrase);
    return dialog;
  };
  await (await uploadIt("not the right passphrase")).getByRole("button", { name: "Upload and verify" }).click();
  await expect(page.getByTestId("toast").last()).toContainText("This passphrase does not open the backup");
  const dialog = await uploadIt(PASSPHRASE);
  await page.screenshot({ path: join(shots, "upload-with-passphrase-1280.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(shots, "upload-with-passphrase-390.png") });
  await page.setViewportSize({ width: 1280, height: 800 });
  await dialog.getByRole("button", { name: "Upload and verify" }).click();
  await expect(page.getByTestId("toast").last()).toContainText("Backup uploaded and verified");
  const uploaded = page.getByTestId("backup-row").filter({ hasText: "uploaded" });
  await expect(uploaded).toHaveCount(1);
  await uploaded.getByRole("button", { name: "Restore", exact: true }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Restore", exact: true }).click();
  await expect(page.getByTestId("toast").last()).toContainText("Backup restored");

  // 11 minutes after the sign-in (sudo mode, src/auth/reauth.ts), a download asks for the password first.
  app.sql("UPDATE sessions SET confirmed_at = confirmed_at - 660000");
  await page.getByTestId("backup-row").filter({ hasText: "manual" }).getByRole("link", { name: "Download" }).click();
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
