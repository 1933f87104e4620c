// Issue 27 item 5: long-lived credentials end with their owner's intent. A session someone else holds (signed in
// with the owner's password) sets up an API key and a webhook; the owner sees them beside that session, and a
// password change, "sign out of all other sessions" or a password reset revokes them by default, or keeps them
// when the owner says so. Screenshots at 1280 and 390 pixels wide go to dist/screenshots/session-credentials/.
import { expect, test, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Appliance } from "./harness";

const root = join(import.meta.dirname, "..", "..");
// Not under test-results: Playwright empties that folder at the start of every run.
const shots = join(root, "dist", "screenshots", "session-credentials");
const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "admin-secret-123";
const PASSWORD = "tulips-and-texts";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

let app: Appliance;
test.beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD });
  // New accounts start on the Starter trial, which sells no API access: an administrator adds it to the plan.
  const headers = { "content-type": "application/json", origin: app.url };
  const login = await fetch(`${app.url}/api/admin/auth/login`, { method: "POST", headers, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) });
  const { token } = (await login.json()) as { token: string };
  await app.confirm(token, ADMIN_PASSWORD);
  const auth = { ...headers, authorization: `Bearer ${token}` };
  const plans = (await (await fetch(`${app.url}/api/admin/plans`, { headers: auth })).json()) as { data: { id: string; features: string[] }[] };
  const starter = plans.data.find((p) => p.id === "starter")!;
  const saved = await fetch(`${app.url}/api/admin/plans/starter`, { method: "PUT", headers: auth, body: JSON.stringify({ features: [...starter.features, "api_access"] }) });
  expect(saved.status).toBe(200);
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

/** Another browser signs in with the password, confirms it, and sets up an API key and a webhook; answers the key. */
async function intruder(email: string, password: string, suffix: string) {
  const headers = { "content-type": "application/json", origin: app.url, "user-agent": FIREFOX };
  const login = await fetch(`${app.url}/api/auth/login`, { method: "POST", headers, body: JSON.stringify({ email, password }) });
  const { token } = (await login.json()) as { token: string };
  await app.confirm(token, password);
  const auth = { ...headers, authorization: `Bearer ${token}` };
  const key = await fetch(`${app.url}/api/api-keys`, { method: "POST", headers: auth, body: JSON.stringify({ name: `Backdoor ${suffix}`, permissions: ["contacts:read"] }) });
  expect(key.status).toBe(201);
  const hook = await fetch(`${app.url}/api/webhooks`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ name: `Exfil ${suffix}`, url: "https://93.184.216.34/in", events: ["message_delivered"] }),
  });
  expect(hook.status).toBe(201);
  return ((await key.json()) as { key: string }).key;
}

const keyAnswers = async (key: string) => (await fetch(`${app.url}/api/v1/contacts`, { headers: { authorization: `Bearer ${key}` } })).status;

test("a password change revokes what the other sessions set up; signing them out can keep it", async ({ page }) => {
  const email = `owner${Date.now()}@example.com`;
  await page.setViewportSize({ width: 1280, height: 900 });
  await app.signUp(page, { email });
  const stolen = await intruder(email, PASSWORD, "A");
  expect(await keyAnswers(stolen)).toBe(200);

  await page.goto(`${app.url}/settings/security`);
  const firefox = page.getByTestId("session-item").filter({ hasText: "Firefox on Windows" });
  await expect(firefox.getByTestId("session-credentials")).toHaveText("Set up API key “Backdoor A”, webhook “Exfil A”");
  const note = page.getByTestId("keep-credentials");
  await expect(note).toContainText("The API keys and webhooks those sessions set up will be revoked too: API key “Backdoor A”, webhook “Exfil A”.");
  await expect(note.getByLabel("Keep them: they were set up by me")).not.toBeChecked();
  await screenshots(page, "security-page");

  // The default: revoked with the sessions, and the toast names them.
  await page.getByLabel("Current password").fill(PASSWORD);
  await page.getByLabel("New password", { exact: true }).fill("a-brand-new-pass");
  await page.getByLabel("Confirm new password").fill("a-brand-new-pass");
  await page.getByRole("button", { name: "Change Password" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Password changed" })).toContainText(
    'Your other sessions have been signed out. Revoked what those sessions set up: API key "Backdoor A", webhook "Exfil A".',
  );
  expect(await keyAnswers(stolen)).toBe(401);
  await page.reload();
  await expect(page.getByTestId("session-item").filter({ hasText: "Firefox on Windows" })).toHaveCount(0);
  await expect(page.getByTestId("keep-credentials")).toHaveCount(0);

  // "Sign out of all other sessions", keeping what they set up this time.
  const kept = await intruder(email, "a-brand-new-pass", "B");
  await page.reload();
  await expect(page.getByTestId("session-credentials")).toHaveText("Set up API key “Backdoor B”, webhook “Exfil B”");
  await page.getByRole("button", { name: "Sign out of all other sessions" }).click();
  const dialog = page.getByRole("dialog", { name: "Sign out other sessions" });
  await expect(dialog.getByTestId("keep-credentials")).toContainText("API key “Backdoor B”, webhook “Exfil B”");
  await dialog.getByLabel("Keep them: they were set up by me").check();
  await screenshots(page, "sign-out-others");
  await dialog.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Signed out of other sessions" })).toContainText(
    '1 session signed out. Kept what those sessions set up: API key "Backdoor B", webhook "Exfil B".',
  );
  expect(await keyAnswers(kept)).toBe(200);
});

test("a password reset says what it revokes, and revokes it unless kept", async ({ page }) => {
  const email = `reset${Date.now()}@example.com`;
  await app.verifiedAccount({ email, password: PASSWORD });
  const stolen = await intruder(email, PASSWORD, "C");
  const sent = app.mails.length;
  const asked = await fetch(`${app.url}/api/auth/forgot-password`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.url },
    body: JSON.stringify({ email }),
  });
  expect(asked.status).toBe(200);
  // Quoted-printable: soft line breaks joined, "=3D" read as "=".
  const resetMail = () => app.mails.slice(sent).find((m) => m.to === email && m.raw.includes("Subject: Reset your smsdesk password"));
  const mail = () => (resetMail()?.raw ?? "").replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  await expect.poll(mail).toContain("reset-password?token=");
  const raw = mail();
  const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(raw)![1]!;

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.url}/auth/reset-password?token=${token}`);
  await expect(page.getByText("Every session of your account is signed out.")).toBeVisible();
  await expect(page.getByTestId("keep-credentials")).toContainText("The API keys and webhooks that your signed-in sessions set up will be revoked too.");
  await page.getByLabel("New password", { exact: true }).fill("reset-new-pass");
  await page.getByLabel("Confirm password").fill("reset-new-pass");
  await screenshots(page, "reset-password");
  await page.getByRole("button", { name: "Reset Password" }).click();
  await expect(page.getByTestId("reset-done")).toHaveText(
    'Your password has been reset. You can now sign in. Revoked what those sessions set up: API key "Backdoor C", webhook "Exfil C".',
  );
  await screenshots(page, "reset-done");
  expect(await keyAnswers(stolen)).toBe(401);
});
