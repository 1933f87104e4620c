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

const json = () => ({ "content-type": "application/json", origin: app.url });

const status = async (token: string) => (await fetch(`${app.url}/api/auth/user`, { headers: { authorization: `Bearer ${token}` } })).status;

test("changing the password on the security page signs out every other session", async ({ page }) => {
  const email = `pwchange${Date.now()}@example.com`;
  const elsewhere = await app.verifiedAccount({ email });

  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("tulips-and-texts");
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  await page.goto(`${app.url}/settings/security`);

  const section = page.getByRole("region", { name: "Password" });
  await section.getByLabel("Current password").fill("not-my-password");
  await section.getByLabel("New password", { exact: true }).fill("daffodils-2026");
  await section.getByLabel("Confirm new password").fill("daffodils-2026");
  await section.getByRole("button", { name: "Change Password" }).click();
  await expect(section.getByRole("alert")).toHaveText("Your current password is incorrect");
  expect(await status(elsewhere)).toBe(200);

  await section.getByLabel("Current password").fill("tulips-and-texts");
  await section.getByRole("button", { name: "Change Password" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Password changed" })).toBeVisible();
  expect(await status(elsewhere)).toBe(401);
  // This browser stays signed in.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Security", exact: true })).toBeVisible();
  await expect(page.getByRole("list", { name: "Your sessions" }).getByTestId("session-item")).toHaveCount(1);
});

test("the code step after Google (/auth?step=2fa) signs in with the pending sign-in kept in its cookie", async ({ page, context }) => {
  const email = `googlecode${Date.now()}@example.com`;
  const token = await app.verifiedAccount({ email });
  await app.confirm(token);
  const auth = { ...json(), authorization: `Bearer ${token}` };
  const setup = (await (await fetch(`${app.url}/api/auth/2fa/setup`, { method: "POST", headers: auth })).json()) as { secret: string };
  const now = Math.floor(Date.now() / 1000);
  const enabled = await fetch(`${app.url}/api/auth/2fa/enable`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ token: generateSync({ secret: setup.secret, epoch: now - 30 }) }),
  });
  expect(enabled.status).toBe(200);

  // What the Google callback leaves in the browser: the pending sign-in in an httpOnly cookie for the code step.
  const step = await fetch(`${app.url}/api/auth/login`, { method: "POST", headers: json(), body: JSON.stringify({ email, password: "tulips-and-texts" }) });
  const { pendingToken } = (await step.json()) as { pendingToken: string };
  await context.addCookies([{ name: "smsdesk_pending_2fa", value: pendingToken, url: `${app.url}/api/auth/login/2fa`, httpOnly: true }]);

  await page.goto(`${app.url}/auth?step=2fa`);
  await expect(page.getByText("Enter the 6-digit code from your authenticator app.")).toBeVisible();
  await page.getByLabel("Verification code").fill(generateSync({ secret: setup.secret, epoch: now }));
  await page.getByRole("button", { name: "Verify & Continue" }).click();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
});
