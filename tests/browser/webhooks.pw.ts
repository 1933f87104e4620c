import { expect, test } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { addressKind, parseIp } from "../../src/http/ip-ranges";
import { Appliance } from "./harness";

const shots = join(import.meta.dirname, "..", "..", "dist", "screenshots", "webhooks");
/**
 * The receiver listens on this machine's own network address (never loopback, which the appliance never calls): it
 * stands in for an n8n on the LAN, which the administrator allow-lists.
 */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

const ADMIN_EMAIL = "root@example.com";
const ADMIN_PASSWORD = "admin-secret-123";

// The browser in Los Angeles; the account keeps its time in Tokyo (the delivery log follows the account).
test.use({ timezoneId: "America/Los_Angeles" });

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
  if (lanAddress) await new Promise<void>((r) => receiver.listen(0, lanAddress, () => r()));
});
test.afterAll(async () => {
  receiver?.close();
  await app.stop();
});

test("add a webhook on /integrations, send a test event, see it in the delivery log", async ({ page, browser }) => {
  test.skip(!lanAddress, "this machine has no network address besides loopback");
  // The receiver is on the LAN: an administrator allow-lists its address in Admin Panel > Settings first.
  const adminPage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await adminPage.goto(`${app.url}/admin`);
  await adminPage.getByLabel("Email").fill(ADMIN_EMAIL);
  await adminPage.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
  await adminPage.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(adminPage.getByRole("heading", { name: "Admin Panel" })).toBeVisible();
  // A sign-in is not a confirmation: the settings' change would ask for the password (reauth.pw.ts shows it).
  await app.confirm(adminPage, ADMIN_PASSWORD);
  await adminPage.getByRole("tab", { name: "Settings" }).click();
  const list = adminPage.getByRole("textbox", { name: "Webhook allow-list" });
  await expect(list).toHaveValue("");
  // Loopback can never be listed: the reason shows and nothing is saved.
  await list.fill("127.0.0.0/8");
  await adminPage.getByRole("button", { name: "Save allow-list" }).click();
  await expect(adminPage.getByRole("alert")).toHaveText(
    '"127.0.0.0/8" cannot be allowed: it includes 127.0.0.0/8 (a loopback address). Webhooks never call loopback, link-local or cloud metadata addresses.',
  );
  await adminPage.screenshot({ path: join(shots, "allow-list-refused-1280.png") });
  await list.fill(`${lanAddress}\nn8n.lan`);
  await adminPage.getByRole("button", { name: "Save allow-list" }).click();
  await expect(adminPage.getByTestId("toast").filter({ hasText: "Webhook allow-list saved (2 entries)" })).toBeVisible();
  await expect(list).toHaveValue(`${lanAddress}/32\nn8n.lan`);
  await adminPage.setViewportSize({ width: 390, height: 844 });
  await adminPage.screenshot({ path: join(shots, "allow-list-390.png"), fullPage: true });
  await adminPage.close();

  await app.signUp(page, { email: `webhooks${Date.now()}@example.com` });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click();
  await expect(page.getByRole("heading", { name: "Integrations", exact: true })).toBeVisible();
  // Honest cards: how to connect, never "connected".
  await expect(page.getByRole("region", { name: "Zapier" })).toContainText("Catch Hook");
  await page.getByRole("tab", { name: "E-commerce" }).click();
  await expect(page.getByTestId("integration-card")).toHaveCount(2);
  await expect(page.getByText("Connected")).toHaveCount(0);

  const url = `http://${lanAddress}:${(receiver.address() as AddressInfo).port}/hook`;
  await page.getByRole("button", { name: "Add Webhook" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Webhook" });
  await dialog.getByLabel("Name").fill("Local n8n");
  await dialog.getByLabel("URL").fill(url);
  await dialog.getByRole("button", { name: "Add Webhook" }).click();
  // Signing up (or in) is not a confirmation (issue 27 item 5): the webhook waits for the password, then is made.
  const confirm = page.getByRole("dialog", { name: "Confirm your password" });
  await expect(confirm).toBeVisible();
  await confirm.getByLabel("Password").fill("tulips-and-texts");
  await confirm.getByRole("button", { name: "Confirm", exact: true }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);

  const webhook = page.getByRole("region", { name: "Webhook Local n8n" });
  await expect(webhook).toContainText(url);
  await webhook.getByRole("button", { name: "Send test event" }).click();
  await webhook.getByRole("button", { name: "Delivery log" }).click();
  // The job runner sends it within its 5-second tick; the log refreshes every 3 seconds.
  const row = webhook.getByTestId("delivery-row").first();
  await expect(row).toContainText("webhook_test", { timeout: 20_000 });
  await expect(row).toContainText("succeeded", { timeout: 20_000 });
  // A receiver on a private network: its answer is kept from the tenant (it could be an internal service's). A
  // machine whose own address is public shows it.
  if (addressKind(parseIp(lanAddress!)!)) {
    await expect(row).toContainText("200 (answer not shown: private network)");
    await expect(row).not.toContainText("thanks");
  } else await expect(row).toContainText("200 thanks");
  expect(received.map((r) => JSON.parse(r.body).type)).toEqual(["webhook_test"]);

  // The delivery's time reads in the account's zone (Tokyo), not the browser's (Los Angeles).
  const settings = await page.evaluate(async () => {
    const res = await fetch("/api/user/settings", { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ timezone: "Asia/Tokyo" }) });
    return res.status;
  });
  expect(settings).toBe(200);
  await page.reload();
  await webhook.getByRole("button", { name: "Delivery log" }).click();
  const attemptAt = await page.evaluate(async () => {
    const list = await (await fetch("/api/webhooks")).json();
    const log = await (await fetch(`/api/webhooks/${list.data[0].id}/deliveries`)).json();
    return log.deliveries[0].lastAttemptAt as number;
  });
  const inZone = (timeZone: string) =>
    page.evaluate(([at, timeZone]) => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short", timeZone }).format(new Date(at)), [attemptAt, timeZone] as const);
  expect(await inZone("Asia/Tokyo")).not.toBe(await inZone("America/Los_Angeles"));
  await expect(row).toContainText(await inZone("Asia/Tokyo"));
  await page.screenshot({ path: join(shots, "delivery-log-1280.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  await row.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, "delivery-log-390.png") });

  // Edit: a new name and events; the URL stays.
  await webhook.getByRole("button", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Webhook" });
  await expect(edit.getByLabel("URL")).toHaveValue(url);
  await expect(edit.getByLabel("Secret (optional)")).toHaveCount(0);
  await edit.getByLabel("Name").fill("Orders n8n");
  await edit.getByLabel("Reply received").uncheck();
  await edit.getByLabel("Contact created").check();
  await page.screenshot({ path: join(shots, "edit-390.png") });
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Webhook saved" })).toBeVisible();
  await expect(edit).toHaveCount(0);
  const edited = page.getByRole("region", { name: "Webhook Orders n8n" });
  await expect(edited).toContainText("message_delivered, contact_created");
  await expect(edited).toContainText(url);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(shots, "edited-1280.png") });
});
