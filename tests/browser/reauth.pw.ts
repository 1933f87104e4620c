import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";
import { addVirtualAuthenticator } from "./virtual-authenticator";

const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "admin-secret-123";

let app: Appliance;

test.beforeAll(async () => {
  // At localhost: WebAuthn takes no IP address as relying party (the passkey confirmation below).
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD }, { urlHost: "localhost" });
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

test("creating an API key 10 minutes after sign-in asks for the password once, then creates the key", async ({ page }) => {
  const email = `sudo${Date.now()}@example.com`;
  await app.signUp(page, { email });
  // The sign-in was 11 minutes ago, as far as sudo mode (src/auth/reauth.ts) is concerned.
  app.sql("UPDATE sessions SET confirmed_at = confirmed_at - 660000");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click();
  await expect(page.getByText("No API keys yet.")).toBeVisible();

  const create = page.getByRole("dialog", { name: "Create API Key" });
  const confirm = page.getByRole("dialog", { name: "Confirm your password" });
  await page.getByRole("button", { name: "Create API Key" }).click();
  await create.getByLabel("Name").fill("Shop sync");
  await create.getByRole("button", { name: "Create Key" }).click();

  // Closing the question leaves the key uncreated, with the server's reason.
  await confirm.getByRole("button", { name: "Close" }).click();
  await expect(confirm).toHaveCount(0);
  await expect(create.getByText("Please confirm it's you to create an API key")).toBeVisible();

  await create.getByRole("button", { name: "Create Key" }).click();
  await confirm.getByLabel("Password").fill("not-my-password");
  await confirm.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(confirm.getByText("Incorrect password")).toBeVisible();
  await confirm.getByLabel("Password").fill("tulips-and-texts");
  await confirm.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByTestId("new-api-key")).toHaveText(/^sk_live_[0-9A-Za-z]{38}$/);
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("api-key-row")).toHaveCount(1);

  // Confirmed a moment ago: the next key is created without asking.
  await page.getByRole("button", { name: "Create API Key" }).click();
  await create.getByLabel("Name").fill("Second");
  await create.getByRole("button", { name: "Create Key" }).click();
  await expect(page.getByTestId("new-api-key")).toHaveText(/^sk_live_[0-9A-Za-z]{38}$/);
  await expect(confirm).toHaveCount(0);
});

test("removing a passkey 10 minutes after sign-in is confirmed with a passkey instead of the password", async ({ page }) => {
  await addVirtualAuthenticator(await page.context().newCDPSession(page));
  await app.signUp(page, { email: `sudokey${Date.now()}@example.com` });
  await page.goto(`${app.url}/settings/security`);
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Passkeys" }) });
  await section.getByRole("button", { name: "Add Passkey" }).click();
  await section.getByLabel("Your password").fill("tulips-and-texts");
  await section.getByLabel("Passkey name").fill("Old laptop");
  await section.getByRole("button", { name: "Register Passkey" }).click();
  await expect(section.getByTestId("passkey-item")).toHaveCount(1);

  app.sql("UPDATE sessions SET confirmed_at = confirmed_at - 660000");
  await section.getByRole("button", { name: "Delete passkey Old laptop" }).click();
  await page.getByRole("dialog", { name: "Delete passkey" }).getByRole("button", { name: "Delete" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm your password" });
  await confirm.getByRole("button", { name: "Use a passkey" }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByTestId("toast").filter({ hasText: "Passkey deleted successfully" })).toBeVisible();
  await expect(section.getByText("No passkeys yet.")).toBeVisible();
});
