import { expect, test, type Page } from "@playwright/test";
import { photoJpeg } from "../support/media-fixtures";
import { Appliance } from "./harness";

// Issue 33: pictures on campaigns. The wizard attaches a JPEG, its review counts one MMS per recipient at the
// account's price per MMS, and both contacts' messages carry it (delivered by the simulator, shown in /chat); the
// full form attaches a picture to a draft, and a Brevo sender is told before sending that it cannot send MMS.

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

async function apiAs(page: Page) {
  const session = await app.sessionHeaders(page);
  return async <T>(path: string, body?: unknown, method = "POST"): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...session },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(r.ok, `${path}: ${r.status} ${await r.clone().text()}`).toBe(true);
    return (await r.json()) as T;
  };
}

test("the wizard sends a picture to every contact as one MMS each, priced per MMS; the full form attaches to a draft", async ({ page }) => {
  await app.signUp(page, { email: `campaignmms${Date.now()}@example.com` });
  const call = await apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  const main = await call<{ id: string }>("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  // The account's own price per MMS (the simulator's default is $0).
  await call(`/api/sms-providers/${provider.id}/mms-price`, { priceMicros: 25_000 }, "PUT");
  await call("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550123" });
  await call("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550124" });

  await page.goto(`${app.url}/sms-campaigns`);
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("button", { name: "Use sample message 1" }).click();
  const photo = photoJpeg(400, 300, 85, 21);
  await wizard.getByTestId("attach-input").setInputFiles({ name: "bouquet.jpg", mimeType: "image/jpeg", buffer: Buffer.from(photo) });
  const chip = wizard.getByTestId("form-attachments").getByRole("listitem");
  await expect(chip).toHaveCount(1);
  await expect(chip).toContainText("bouquet.jpg");
  await expect.poll(() => chip.getByTestId("attachment-thumbnail").evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(400);
  await expect(wizard.getByTestId("mms-refusal")).toHaveCount(0);
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("radio", { name: /All customers/ }).check();
  await wizard.getByRole("button", { name: "Continue" }).click();
  const review = wizard.getByTestId("wizard-review");
  await expect(review).toContainText("2 MMS (1 per recipient, with 1 attachment; opted-out contacts are skipped)");
  await expect(review).toContainText("bouquet.jpg");
  await expect(review.getByTestId("cost-estimate")).toHaveText("$0.05 (2 MMS × $0.025)");
  await page.screenshot({ path: `${shots}/campaign-mms-01-review.png` });
  await wizard.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Campaign started" })).toBeVisible();

  // Both messages carry the picture, byte for byte, and are delivered as MMS by the simulator.
  const campaigns = await call<{ data: { id: string; media: { id: string }[] }[] }>("/api/campaigns", undefined, "GET");
  const [sent] = campaigns.data;
  expect(sent!.media).toHaveLength(1);
  for (const phone of ["+14155550123", "+14155550124"]) {
    await expect
      .poll(async () => {
        const list = await call<{ data: { status: string; media: { id: string }[] }[] }>(`/api/messages?phone=${encodeURIComponent(phone)}`, undefined, "GET");
        return list.data.map((m) => [m.status, m.media.map((x) => x.id)]);
      }, { timeout: 30_000 })
      .toEqual([["delivered", [sent!.media[0]!.id]]]);
  }
  const served = await page.request.get(`${app.url}/api/media/${sent!.media[0]!.id}`);
  expect(Buffer.from(await served.body()).equals(Buffer.from(photo))).toBe(true);
  // In Ada's thread, the campaign's message shows the thumbnail.
  await page.goto(`${app.url}/chat`);
  await page.getByRole("list", { name: "Conversation list" }).getByRole("listitem").filter({ hasText: "Ada Lovelace" }).getByRole("button").click();
  await expect(page.getByTestId("chat-messages").last().getByTestId("media-thumbnail")).toHaveCount(1);

  // The full form: a draft with a picture, then a Brevo sender refused before anything is sent.
  await page.goto(`${app.url}/sms-campaigns`);
  await page.getByRole("button", { name: "Full Campaign Form" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Campaign" });
  await dialog.getByLabel("Campaign name").fill("Card");
  await dialog.getByLabel("Message").fill("Our card is attached");
  await dialog.getByLabel("Phone numbers").fill("+14155550123");
  await dialog.getByTestId("attach-input").setInputFiles({ name: "flyer.jpg", mimeType: "image/jpeg", buffer: Buffer.from(photoJpeg(200, 200, 80, 22)) });
  await expect(dialog.getByTestId("form-attachments")).toContainText("flyer.jpg");
  await expect(dialog.getByTestId("cost-estimate")).toHaveText("$0.03 (1 MMS × $0.025)");
  await dialog.getByRole("button", { name: "Save as Draft" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Campaign created successfully" })).toBeVisible();
  const drafts = await call<{ data: { name: string; media: { filename: string }[] }[] }>("/api/campaigns?status=draft", undefined, "GET");
  expect(drafts.data.map((c) => [c.name, c.media.map((m) => m.filename)])).toEqual([["Card", ["flyer.jpg"]]]);

  const brevo = await call<{ id: string }>("/api/sms-providers", { provider: "brevo", displayName: "Brevo", apiKey: "xkeysib-test", senderName: "Rosa" });
  // The plan has room for one number: the Brevo sender takes the simulator's place.
  await call(`/api/phone-numbers/${main.id}`, undefined, "DELETE");
  await call("/api/phone-numbers", { providerId: brevo.id, phoneNumber: "Rosa", displayName: "Brevo line", isDefault: true });
  await page.reload();
  await page.getByRole("button", { name: "Full Campaign Form" }).first().click();
  await dialog.getByLabel("Campaign name").fill("No MMS");
  await dialog.getByLabel("Message").fill("Hello");
  await dialog.getByLabel("Phone numbers").fill("+14155550124");
  await expect(dialog.getByLabel("From number")).toHaveValue("Rosa");
  await dialog.getByTestId("attach-input").setInputFiles({ name: "p.jpg", mimeType: "image/jpeg", buffer: Buffer.from(photoJpeg(64, 64, 80, 23)) });
  await expect(dialog.getByTestId("mms-refusal")).toHaveText(
    "Brevo cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments",
  );
  await page.screenshot({ path: `${shots}/campaign-mms-02-refusal.png` });
  await dialog.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Brevo cannot send pictures or files" })).toBeVisible();
});
