// Issue 28 item 9: the sign-in returns to the page the user was sent from (?next=, same-origin paths only), and the
// API keys, sessions and passkeys screens show times in the account's zone, not the browser's.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { Appliance } from "./harness";
import { addVirtualAuthenticator } from "./virtual-authenticator";

const PASSWORD = "tulips-and-texts";
const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "admin-secret-123";
const shots = (topic: string) => {
  const dir = join(import.meta.dirname, "..", "..", "dist", "screenshots", topic);
  mkdirSync(dir, { recursive: true });
  return dir;
};

let app: Appliance;
test.beforeAll(async () => {
  // Passkeys need localhost as the relying party.
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD }, { urlHost: "localhost" });
  // New accounts start on the Starter trial, which sells no API access: an administrator adds it to the plan.
  const headers = { "content-type": "application/json", origin: app.url };
  const login = await fetch(`${app.url}/api/admin/auth/login`, { method: "POST", headers, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) });
  const adminToken = ((await login.json()) as { token: string }).token;
  // A sign-in is not a confirmation: editing a plan asks for one.
  await app.confirm(adminToken, ADMIN_PASSWORD);
  const auth = { ...headers, authorization: `Bearer ${adminToken}` };
  const plans = (await (await fetch(`${app.url}/api/admin/plans`, { headers: auth })).json()) as { data: { id: string; features: string[] }[] };
  const starter = plans.data.find((p) => p.id === "starter")!;
  const saved = await fetch(`${app.url}/api/admin/plans/starter`, { method: "PUT", headers: auth, body: JSON.stringify({ features: [...starter.features, "api_access"] }) });
  expect(saved.status).toBe(200);
});
test.afterAll(async () => {
  await app.stop();
});

// The browser in Los Angeles; the accounts below keep their time in Tokyo.
test.use({ timezoneId: "America/Los_Angeles", viewport: { width: 1280, height: 800 } });

async function signIn(page: Page, email: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();
}

test("a page opened signed out returns there after sign-in; a next that leaves the site goes home", async ({ page }) => {
  const dir = shots("sign-in-return");
  const email = `return${Date.now()}@example.com`;
  await app.verifiedAccount({ email, password: PASSWORD });

  await page.goto(`${app.url}/settings/security?from=mail#sessions`);
  await expect(page).toHaveURL(`${app.url}/auth?next=%2Fsettings%2Fsecurity%3Ffrom%3Dmail%23sessions`);
  await expect(page.getByRole("button", { name: "Sign In", exact: true }).last()).toBeVisible();
  await page.screenshot({ path: join(dir, "sign-in-with-next-1280.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(dir, "sign-in-with-next-390.png") });

  await signIn(page, email);
  await expect(page).toHaveURL(`${app.url}/settings/security?from=mail#sessions`);
  await expect(page.getByRole("heading", { name: "Security", exact: true })).toBeVisible();
  await page.screenshot({ path: join(dir, "returned-390.png") });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(dir, "returned-1280.png") });

  // Signed out, a link whose next names another site signs in to the home page.
  await page.context().clearCookies();
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${app.url}/auth?next=${encodeURIComponent("//evil.example/steal")}`);
  await signIn(page, email);
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  expect(page.url()).toBe(`${app.url}/`);
});

test("API keys, sessions and passkeys show times in the account's zone (Tokyo), not the browser's (Los Angeles)", async ({ page }) => {
  const dir = shots("account-times");
  const email = `times${Date.now()}@example.com`;
  const token = await app.verifiedAccount({ email, password: PASSWORD });
  const call = async (path: string, body: unknown, method = "POST") => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: { "content-type": "application/json", origin: app.url, authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
    return res.json();
  };
  await call("/api/user/settings", { timezone: "Asia/Tokyo" }, "PATCH");
  await call("/api/auth/confirm", { password: PASSWORD });
  // 03:30 UTC: 12:30 PM on the 15th in Tokyo, 7:30 PM on the 14th in Los Angeles.
  const expiresAt = Date.UTC(2027, 0, 15, 3, 30);
  await call("/api/api-keys", { name: "Shop sync", permissions: ["contacts:read"], expiresAt });

  await page.goto(`${app.url}/auth`);
  await signIn(page, email);
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
  /** A moment as the browser writes it in a zone: the account's zone and the browser's own. */
  const inZone = (at: string | number, timeZone: string) =>
    page.evaluate(([at, timeZone]) => new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone }).format(new Date(at)), [at, timeZone] as const);

  // API keys: the expiry.
  await page.goto(`${app.url}/integrations`);
  const row = page.getByTestId("api-key-row").filter({ hasText: "Shop sync" });
  await expect(row).toContainText(await inZone(expiresAt, "Asia/Tokyo"));
  expect((await inZone(expiresAt, "Asia/Tokyo")).replace(/\s/g, " ")).toBe("Jan 15, 2027, 12:30 PM");
  await expect(row).not.toContainText(await inZone(expiresAt, "America/Los_Angeles"));
  await row.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(dir, "api-keys-1280.png") });

  // Sessions: when this one signed in.
  const { sessions } = (await (await fetch(`${app.url}/api/auth/sessions`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    sessions: { createdAt: string; current: boolean }[];
  };
  const apiSession = sessions.find((s) => s.current)!;
  await page.goto(`${app.url}/settings/security`);
  const list = page.getByRole("list", { name: "Your sessions" });
  await expect(list).toContainText(`Signed in ${await inZone(apiSession.createdAt, "Asia/Tokyo")}`);
  await expect(list).not.toContainText(`Signed in ${await inZone(apiSession.createdAt, "America/Los_Angeles")}`);

  // Passkeys: when one was added.
  const cdp = await page.context().newCDPSession(page);
  await addVirtualAuthenticator(cdp);
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Passkeys" }) });
  await section.getByRole("button", { name: "Add Passkey" }).click();
  await section.getByLabel("Your password").fill(PASSWORD);
  await section.getByLabel("Passkey name").fill("Work laptop");
  await section.getByRole("button", { name: "Register Passkey" }).click();
  await expect(section.getByTestId("passkey-item")).toHaveCount(1);
  const passkeys = (await (await fetch(`${app.url}/api/webauthn/authenticators`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    createdAt: string;
  }[];
  const added = passkeys[0]!.createdAt;
  await expect(section.getByTestId("passkey-item")).toContainText(`Added ${await inZone(added, "Asia/Tokyo")}`);
  await expect(section.getByTestId("passkey-item")).not.toContainText(`Added ${await inZone(added, "America/Los_Angeles")}`);
  await page.screenshot({ path: join(dir, "security-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(dir, "security-390.png"), fullPage: true });
  await page.goto(`${app.url}/integrations`);
  await page.getByTestId("api-key-row").filter({ hasText: "Shop sync" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(dir, "api-keys-390.png") });
});
