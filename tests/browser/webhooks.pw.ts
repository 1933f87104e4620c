import { expect, test } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Appliance } from "./harness";

const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "admin-secret-123";

let app: Appliance;
let receiver: Server;
const received: { id: string; body: string }[] = [];

test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL, ADMIN_PASSWORD });
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ id: String(req.headers["webhook-id"]), body });
      res.end("thanks");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
});
test.afterAll(async () => {
  receiver.close();
  await app.stop();
});

test("add a webhook on /integrations, send a test event, see it in the delivery log", async ({ page, browser }) => {
  // The receiver is on 127.0.0.1: an administrator allows private networks in Admin > Settings first.
  const adminPage = await (await browser.newContext()).newPage();
  await adminPage.goto(`${app.url}/admin`);
  await adminPage.getByLabel("Email").fill(ADMIN_EMAIL);
  await adminPage.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await adminPage.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(adminPage.getByRole("heading", { name: "Admin Panel" })).toBeVisible();
  await adminPage.getByRole("tab", { name: "Settings" }).click();
  const allow = adminPage.getByRole("checkbox", { name: /Allow webhooks to private networks/ });
  await expect(allow).not.toBeChecked();
  // The box shows the server's value: it turns checked once the setting is saved.
  await allow.click();
  await expect(adminPage.getByTestId("toast").filter({ hasText: "Private networks allowed" })).toBeVisible();
  await expect(allow).toBeChecked();
  await adminPage.close();

  await app.signUp(page, { email: `webhooks${Date.now()}@example.com` });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click();
  await expect(page.getByRole("heading", { name: "Integrations", exact: true })).toBeVisible();
  // Honest cards: how to connect, never "connected".
  await expect(page.getByRole("region", { name: "Zapier" })).toContainText("Catch Hook");
  await page.getByRole("tab", { name: "E-commerce" }).click();
  await expect(page.getByTestId("integration-card")).toHaveCount(2);
  await expect(page.getByText("Connected")).toHaveCount(0);

  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await page.getByRole("button", { name: "Add Webhook" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Webhook" });
  await dialog.getByLabel("Name").fill("Local n8n");
  await dialog.getByLabel("URL").fill(url);
  await dialog.getByRole("button", { name: "Add Webhook" }).click();
  await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);

  const webhook = page.getByRole("region", { name: "Webhook Local n8n" });
  await expect(webhook).toContainText(url);
  await webhook.getByRole("button", { name: "Send test event" }).click();
  await webhook.getByRole("button", { name: "Delivery log" }).click();
  // The job runner sends it within its 5-second tick; the log refreshes every 3 seconds.
  const row = webhook.getByTestId("delivery-row").first();
  await expect(row).toContainText("webhook_test", { timeout: 20_000 });
  await expect(row).toContainText("succeeded", { timeout: 20_000 });
  await expect(row).toContainText("200 thanks");
  expect(received.map((r) => JSON.parse(r.body).type)).toEqual(["webhook_test"]);
});
