import { expect, test } from "@playwright/test";
import { photoJpeg } from "../support/media-fixtures";
import { Appliance } from "./harness";

// Issue 33: an inbound MMS of three pictures shows three thumbnails in /chat, each opening full size, at 1280 and
// 390 px. The simulator's reply carries the account's uploads by signed URL, copied into storage like Twilio's.

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("three pictures received show as thumbnails in /chat that open full size, at 1280 and 390 px", async ({ browser }) => {
  const token = await app.verifiedAccount({ email: `mms${Date.now()}@example.com` });
  const call = async (path: string, body: unknown) => {
    const r = await fetch(`${app.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin: app.url },
      body: JSON.stringify(body),
    });
    expect(r.ok, `${path}: ${r.status} ${await r.clone().text()}`).toBe(true);
    return (await r.json()) as { id: string };
  };
  const upload = async (bytes: Uint8Array, filename: string) => {
    const r = await fetch(`${app.url}/api/media?filename=${filename}`, { method: "POST", headers: { authorization: `Bearer ${token}`, origin: app.url }, body: bytes as Uint8Array<ArrayBuffer> });
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: string }).id;
  };
  const provider = await call("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  await call("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550123" });
  const ids = [await upload(photoJpeg(640, 480, 85, 1), "box.jpg"), await upload(photoJpeg(480, 640, 85, 2), "stem.jpg"), await upload(PNG, "dot.png")];
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+14155550123", body: "The box arrived crushed", mediaIds: ids });

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await app.signInContext(context, token);
  const page = await context.newPage();
  await page.goto(`${app.url}/chat`);
  const row = page.getByRole("list", { name: "Conversation list" }).getByRole("listitem").filter({ hasText: "Ada Lovelace" });
  await row.getByRole("button").click();
  const thumbs = page.getByTestId("chat-messages").last().getByTestId("media-thumbnail");
  await expect(thumbs).toHaveCount(3);
  // Every thumbnail loaded from our own storage (a broken image has no natural width).
  await expect.poll(() => thumbs.evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth > 0))).toEqual([true, true, true]);
  await expect(page.getByTestId("chat-messages").last()).toContainText("The box arrived crushed");
  await page.screenshot({ path: `${shots}/mms-01-thumbnails-1280.png` });

  // A thumbnail opens the picture full size in a tab of its own, served as a picture, never as a page.
  const [full] = await Promise.all([context.waitForEvent("page"), thumbs.first().click()]);
  const response = await full.waitForLoadState().then(() => full.reload());
  expect(response!.headers()["content-type"]).toBe("image/jpeg");
  expect(response!.headers()["content-security-policy"]).toBe("default-src 'none'; sandbox");
  await full.close();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await row.getByRole("button").click();
  await expect(thumbs).toHaveCount(3);
  await expect(thumbs.first()).toBeInViewport();
  await page.screenshot({ path: `${shots}/mms-02-thumbnails-390.png` });
  await context.close();
});
