import { expect, test } from "@playwright/test";
import { generateSync } from "otplib";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

/** A TOTP code; `stepsAhead` 1 is the next 30 s step (the server accepts ±1 step, each step once). */
const totp = (secret: string, stepsAhead = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * 30 });

test("a user turns on two-factor authentication, keeps the backup codes, and signs in with a code", async ({ page }) => {
  const email = `twofa${Date.now()}@example.com`;
  const password = "tulips-and-texts";

  // A verified account, made through the API.
  await app.verifiedAccount({ email, password });

  // Sign in with the password only, then open the security page.
  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  // Setting up 2FA asks for a confirmation the sign-in is not (reauth.pw.ts shows the dialog).
  await app.confirm(page, password);

  await page.goto(`${app.url}/settings/security`);
  await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
  await expect(page.getByTestId("two-factor-status")).toHaveText("Disabled");
  await page.getByRole("button", { name: "Enable Two-Factor Authentication" }).click();

  // Setup: the QR code (a local PNG) and the manual key.
  await expect(page.getByRole("img", { name: "QR code for your authenticator app" })).toHaveAttribute("src", /^data:image\/png;base64,/);
  const manualKey = (await page.getByTestId("manual-entry-key").textContent())!.trim();
  expect(manualKey).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
  const secret = manualKey.replace(/\s/g, "");

  const verify = page.getByRole("button", { name: "Verify & Enable" });
  await expect(verify).toBeDisabled();
  await page.getByLabel("Verification code").fill("12345");
  await expect(verify).toBeDisabled();
  const wrong = String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, "0");
  await page.getByLabel("Verification code").fill(wrong);
  await verify.click();
  await expect(page.getByTestId("toast").filter({ hasText: "Invalid verification code. Please try again." })).toBeVisible();

  await page.getByLabel("Verification code").fill(totp(secret));
  await verify.click();

  // Enabled, with the 10 backup codes shown once: downloadable, can be hidden.
  const codes = page.getByTestId("backup-codes");
  await expect(codes.getByRole("listitem")).toHaveCount(10);
  await expect(codes.getByRole("listitem").first()).toHaveText(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  await expect(page.getByTestId("two-factor-status")).toHaveText("Enabled");
  await expect(page.getByTestId("backup-codes-count")).toHaveText("10");
  const [download] = await Promise.all([page.waitForEvent("download"), codes.getByRole("button", { name: "Download" }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.txt$/);
  const backupCode = (await codes.getByRole("listitem").first().textContent())!.trim();
  const secondBackupCode = (await codes.getByRole("listitem").nth(1).textContent())!.trim();
  const thirdBackupCode = (await codes.getByRole("listitem").nth(2).textContent())!.trim();
  await codes.getByRole("button", { name: "Hide" }).click();
  await expect(page.getByTestId("backup-codes")).toHaveCount(0);

  // Sign out, sign in again: the password alone is not enough.
  await page.getByRole("button", { name: "Sign Out", exact: true }).click();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();

  await expect(page.getByText("Enter the 6-digit code from your authenticator app.")).toBeVisible();
  expect(await app.sessionCookie(page)).toBeUndefined();
  await page.getByLabel("Verification code").fill(wrong);
  await page.getByRole("button", { name: "Verify & Continue" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Invalid verification code" })).toBeVisible();

  // The step used to enable it cannot be replayed: the next step's code (within the ±1 tolerance) is used.
  await page.getByLabel("Verification code").fill(totp(secret, 1));
  await page.getByRole("button", { name: "Verify & Continue" }).click();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  // The code step signed the page in by the httpOnly cookie alone (issue 27 item 5).
  await app.expectSessionOnlyInCookie(page);

  await page.goto(`${app.url}/settings/security`);
  await expect(page.getByTestId("two-factor-status")).toHaveText("Enabled");

  // Without the phone: a backup code signs in once.
  await page.getByRole("button", { name: "Sign Out", exact: true }).click();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();
  await page.getByLabel("Verification code").fill(backupCode);
  await page.getByRole("button", { name: "Verify & Continue" }).click();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  await page.goto(`${app.url}/settings/security`);
  await expect(page.getByTestId("backup-codes-count")).toHaveText("9");

  // Where the account is signed in: this browser, plus a session opened elsewhere (with another backup code),
  // which "Sign out of all other sessions" ends.
  const firefox = { "content-type": "application/json", origin: app.url, "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0" };
  const elsewhere = await fetch(`${app.url}/api/auth/login`, { method: "POST", headers: firefox, body: JSON.stringify({ email, password }) });
  const { pendingToken } = (await elsewhere.json()) as { pendingToken: string };
  const secondSignIn = await fetch(`${app.url}/api/auth/login/2fa`, {
    method: "POST",
    headers: firefox,
    body: JSON.stringify({ pendingToken, token: secondBackupCode }),
  });
  expect(secondSignIn.status).toBe(200);
  const otherToken = ((await secondSignIn.json()) as { token: string }).token;
  await page.reload();
  const sessions = page.getByRole("list", { name: "Your sessions" });
  await expect(sessions.getByTestId("session-item").filter({ hasText: "Firefox on Windows" })).toBeVisible();
  await expect(sessions.getByTestId("session-item").filter({ hasText: "This device" })).toHaveText(/^Chrome on LinuxThis device/);
  await page.getByRole("button", { name: "Sign out of all other sessions" }).click();
  await page.getByRole("dialog", { name: "Sign out other sessions" }).getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Signed out of other sessions" })).toBeVisible();
  await expect(sessions.getByTestId("session-item")).toHaveCount(1);
  expect((await fetch(`${app.url}/api/auth/user`, { headers: { authorization: `Bearer ${otherToken}` } })).status).toBe(401);

  // New backup codes ask for a code first.
  const regenerate = page.getByRole("button", { name: "Regenerate Backup Codes" });
  await regenerate.click();
  await expect(page.getByTestId("toast").filter({ hasText: "Enter a code from your authenticator app or a backup code" })).toBeVisible();
  await page.getByLabel(/for new backup codes/).fill(thirdBackupCode);
  await regenerate.click();
  await page.getByRole("dialog", { name: "Regenerate backup codes" }).getByRole("button", { name: "Generate" }).click();
  await expect(page.getByTestId("backup-codes").getByRole("listitem")).toHaveCount(10);
  await expect(page.getByTestId("backup-codes-count")).toHaveText("10");
  const regenerated = (await page.getByTestId("backup-codes").getByRole("listitem").nth(1).textContent())!.trim();

  // Turning it off asks for a code and a confirmation; dismissing the confirmation keeps it on.
  const disableButton = page.getByRole("button", { name: "Disable Two-Factor Authentication" });
  await page.getByLabel(/Code from your app/).fill(regenerated);
  const confirmDisable = page.getByRole("dialog", { name: "Disable two-factor authentication" });
  await disableButton.click();
  await confirmDisable.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("two-factor-status")).toHaveText("Enabled");
  await disableButton.click();
  await expect(confirmDisable).toContainText("Disable two-factor authentication?");
  await confirmDisable.getByRole("button", { name: "Disable" }).click();
  await expect(page.getByTestId("two-factor-status")).toHaveText("Disabled");
  await expect(page.getByRole("button", { name: "Enable Two-Factor Authentication" })).toBeVisible();
});
