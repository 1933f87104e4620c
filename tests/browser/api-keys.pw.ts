import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "admin-secret-123";

let app: Appliance;

test.beforeAll(async () => {
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

test("create an API key on /integrations, copy it once, see it masked afterwards, revoke it", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
  await app.signUp(page, { email: `keys${Date.now()}@example.com` });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click();
  await expect(page.getByRole("heading", { name: "API Keys" })).toBeVisible();
  await expect(page.getByText("No API keys yet.")).toBeVisible();

  await page.getByRole("button", { name: "Create API Key" }).click();
  const dialog = page.getByRole("dialog", { name: "Create API Key" });
  await dialog.getByLabel("Name").fill("Shop sync");
  await dialog.getByLabel("Service (optional)").fill("Shopify");
  await dialog.getByLabel("Send messages").uncheck();
  await dialog.getByRole("button", { name: "Create Key" }).click();
  // Signing up (or in) is not a confirmation (issue 27 item 5): the key waits for the password, then is made.
  const confirm = page.getByRole("dialog", { name: "Confirm your password" });
  await expect(confirm).toBeVisible();
  await confirm.getByLabel("Password").fill("tulips-and-texts");
  await confirm.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(confirm).toHaveCount(0);

  const shown = page.getByTestId("new-api-key");
  await expect(shown).toHaveText(/^sk_live_[0-9A-Za-z]{38}$/);
  const key = (await shown.textContent())!;
  await page.getByRole("button", { name: "Copy key" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  // The key works on the public API with the permissions chosen.
  const list = await fetch(`${app.url}/api/v1/contacts`, { headers: { authorization: `Bearer ${key}` } });
  expect(list.status).toBe(200);
  const send = await fetch(`${app.url}/api/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ phone: "+14155550123", content: "Hi" }),
  });
  expect(send.status).toBe(403);

  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("new-api-key")).toHaveCount(0);
  const row = page.getByTestId("api-key-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Shop sync");
  await expect(row).toContainText(`${key.slice(0, 14)}••••••••`);
  await expect(row).toContainText("contacts:read, contacts:write, messages:read");
  await expect(row).not.toContainText(key);

  // After a reload the full key is nowhere on the page.
  await page.reload();
  await expect(page.getByTestId("api-key-row")).toContainText(`${key.slice(0, 14)}••••••••`);
  await expect(page.locator("body")).not.toContainText(key);

  page.once("dialog", (d) => d.accept());
  await page.getByTestId("api-key-row").getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByTestId("api-key-row")).toContainText("revoked");
  expect((await fetch(`${app.url}/api/v1/contacts`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
});
