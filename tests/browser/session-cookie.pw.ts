import { expect, test, type Page } from "@playwright/test";
import { Appliance } from "./harness";

// Issue 27 item 5: the page keeps the session in the server's httpOnly cookie only, never in its storage.
const ADMIN = { email: "root@example.com", password: "correct-horse-battery" };

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
});
test.afterAll(async () => {
  await app.stop();
});

/** Records what the page sends on its live WebSocket. */
function recordSocketFrames(page: Page) {
  const sent: string[] = [];
  page.on("websocket", (ws) => ws.on("framesent", (frame) => sent.push(String(frame.payload))));
  return sent;
}

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${app.url}/auth`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).last().click();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Rosa!$/ })).toBeVisible();
}

test("a user's session lives in the httpOnly cookie only: API calls and the live socket work by it, and signing out clears it", async ({
  page,
}) => {
  const email = `cookie${Date.now()}@example.com`;
  await app.verifiedAccount({ email });
  // A token an older version of the page left in storage is removed when the page loads.
  await page.goto(app.url);
  await page.evaluate(() => {
    localStorage.setItem("auth_token", "stale.session.token-from-an-older-version");
    localStorage.setItem("admin_token", "stale.admin.token-from-an-older-version");
  });
  const frames = recordSocketFrames(page);

  await signIn(page, email, "tulips-and-texts");
  const token = await app.expectSessionOnlyInCookie(page);

  // A screen that reads the API shows what was made with the same cookie, and the live socket connects by it.
  const call = await app.apiAs(page);
  await call("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550111" });
  await page.goto(`${app.url}/contact-lists`);
  await expect(page.getByText("Ada Lovelace")).toBeVisible();
  await page.goto(`${app.url}/chat`);
  await expect(page.getByText("Connected", { exact: true })).toBeVisible();
  // The socket was authenticated by the cookie at the upgrade: the page says only where to resume.
  expect(frames.length).toBeGreaterThan(0);
  for (const frame of frames) expect(JSON.parse(frame)).toMatchObject({ type: "resume" });
  expect(frames.join("")).not.toContain(token);
  expect(await app.expectSessionOnlyInCookie(page)).toBe(token);

  // Signing out revokes the session and clears the cookie: the old token opens nothing.
  await page.getByRole("button", { name: "Sign Out", exact: true }).click();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  expect(await app.sessionCookie(page)).toBeUndefined();
  expect(await page.evaluate(() => document.cookie)).not.toContain("smsdesk_signed_in");
  const after = await fetch(`${app.url}/api/auth/user`, { headers: { cookie: `smsdesk_session=${token}` } });
  expect(after.status).toBe(401);
  await page.reload();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();

  // The privacy policy says so.
  await page.goto(`${app.url}/privacy`);
  await expect(
    page.getByText("A session cookie keeps you signed in. Scripts on the page cannot read it, and no session token is kept in your browser's storage."),
  ).toBeVisible();
});

test("the administrator's session at /admin lives in the same httpOnly cookie, and the portal and live socket work by it", async ({
  page,
}) => {
  await page.goto(`${app.url}/admin`);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard/);
  // The portal's list of users comes from the API.
  await expect(page.getByTestId("admin-user-row").filter({ hasText: ADMIN.email })).toBeVisible();
  const token = await app.expectSessionOnlyInCookie(page);

  // A change made with the cookie from the appliance's own origin is accepted; from another site it is refused.
  const health = await page.request.get(`${app.url}/api/admin/health`);
  expect(health.status()).toBe(200);
  const crossSite = await fetch(`${app.url}/api/admin/license-codes`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `smsdesk_session=${token}`, origin: "https://evil.example" },
    body: JSON.stringify({ planId: "professional", durationDays: 30, count: 1 }),
  });
  expect(crossSite.status).toBe(403);
  expect(await crossSite.json()).toEqual({ message: `Cross-site request refused: open smsdesk at ${app.url}`, code: "csrf" });

  await page.goto(`${app.url}/chat`);
  await expect(page.getByText("Connected", { exact: true })).toBeVisible();
  expect(await app.expectSessionOnlyInCookie(page)).toBe(token);

  await page.getByRole("button", { name: "Sign Out", exact: true }).click();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  expect(await app.sessionCookie(page)).toBeUndefined();
});
