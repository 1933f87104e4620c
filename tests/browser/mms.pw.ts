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

// Issue 33 item 1: the chat composer attaches pictures. At 390 px: a JPEG and a text go out as one MMS, shown as a
// thumbnail in the thread and delivered by the simulator; an SVG is refused with the server's 415 text; the composer
// with a chip in it stays within the screen.
test("a picture attached in /chat goes out with the text, and an SVG is refused, at 390 px", async ({ browser }) => {
  const token = await app.verifiedAccount({ email: `attach${Date.now()}@example.com` });
  const call = async (path: string, body: unknown) => {
    const r = await fetch(`${app.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin: app.url },
      body: JSON.stringify(body),
    });
    expect(r.ok, `${path}: ${r.status} ${await r.clone().text()}`).toBe(true);
    return (await r.json()) as { id: string };
  };
  const provider = await call("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  await call("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550124" });
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+14155550124", body: "Which bouquet is today's?" });

  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await app.signInContext(context, token);
  const page = await context.newPage();
  await page.goto(`${app.url}/chat`);
  await page.getByRole("list", { name: "Conversation list" }).getByRole("listitem").filter({ hasText: "Grace Hopper" }).getByRole("button").click();
  const attach = page.getByRole("button", { name: "Attach a picture or file" });
  const pick = async (name: string, mimeType: string, buffer: Buffer) => {
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), attach.click()]);
    expect(chooser.isMultiple()).toBe(true);
    await chooser.setFiles({ name, mimeType, buffer });
  };

  // An SVG poses as a picture: the server reads its bytes and refuses it, and the composer says why.
  await pick("logo.svg", "image/svg+xml", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'));
  await expect(page.getByTestId("attach-error")).toHaveText(
    "logo.svg: This file is not a JPEG, PNG or GIF image, a PDF or a vCard, the files an MMS can carry (SVG and HTML files are refused)",
  );
  await expect(page.getByTestId("composer-attachments")).toHaveCount(0);

  const photo = Buffer.from(photoJpeg(160, 120, 85, 3));
  await pick("bouquet.jpg", "image/jpeg", photo);
  const chip = page.getByTestId("composer-attachments").getByRole("listitem");
  await expect(chip).toHaveCount(1);
  await expect(chip).toContainText("bouquet.jpg");
  await expect(chip).toContainText(`${Math.round(photo.length / 1024)} KB`);
  await expect(chip).not.toContainText("made smaller");
  await expect.poll(() => chip.getByTestId("attachment-thumbnail").evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(160);
  await expect(page.getByTestId("attach-error")).toHaveCount(0);
  // A photo over what carriers deliver is made smaller on upload, and says from what; removed, it is not sent.
  const big = Buffer.from(photoJpeg(1400, 1050, 90, 4));
  await pick("shop.jpg", "image/jpeg", big);
  const bigChip = chip.filter({ hasText: "shop.jpg" });
  await expect(bigChip).toContainText(`made smaller from ${Math.round(big.length / 1024)} KB`, { timeout: 15_000 });
  // Nothing of the composer reaches past the screen's edge.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  const send = page.getByRole("button", { name: "Send reply" });
  expect((await send.boundingBox())!.x + (await send.boundingBox())!.width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: `${shots}/mms-03-composer-attached-390.png` });

  await bigChip.getByRole("button", { name: "Remove shop.jpg" }).click();
  await expect(chip).toHaveCount(1);
  await page.getByRole("textbox", { name: "Your reply" }).fill("Today's bouquet");
  await send.click();
  const sent = page.locator('li[data-direction="outbound"]').filter({ hasText: "Today's bouquet" });
  await expect(sent.getByTestId("media-thumbnail")).toHaveCount(1);
  await expect(sent.getByTestId("delivery-status")).toHaveText(" · Delivered", { timeout: 15_000 });
  await expect(page.getByTestId("composer-attachments")).toHaveCount(0);

  // The server holds the message with the picture, byte for byte.
  const list = (await (await fetch(`${app.url}/api/messages?phone=%2B14155550124&direction=outbound`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: { content: string; status: string; media: { url: string; contentType: string }[] }[];
  };
  expect(list.data.map((m) => [m.content, m.status, m.media.map((x) => x.contentType)])).toEqual([["Today's bouquet", "delivered", ["image/jpeg"]]]);
  const stored = await fetch(`${app.url}${list.data[0]!.media[0]!.url}`, { headers: { authorization: `Bearer ${token}` } });
  expect(Buffer.from(await stored.arrayBuffer()).equals(photo)).toBe(true);
  await page.screenshot({ path: `${shots}/mms-04-sent-390.png` });
  await context.close();
});

// Issue 33 item 1 (templates): a picture attached to a template on the Templates screen shows on its card and when it
// is edited, and Use This Template opens the wizard with a copy of it; in /chat the composer's template picker puts
// the template's text in the box and attaches a copy of its picture, which goes out with the reply byte for byte while
// the template keeps its own.
test("a template's picture, attached on the Templates screen, goes out with a chat reply written from it", async ({ browser }) => {
  const token = await app.verifiedAccount({ email: `tmplmms${Date.now()}@example.com` });
  const call = async <T = { id: string }>(path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin: app.url },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(r.ok, `${path}: ${r.status} ${await r.clone().text()}`).toBe(true);
    return (await r.json()) as T;
  };
  const provider = await call("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", displayName: "Main line", isDefault: true });
  await call("/api/contacts", { firstName: "Rosa", lastName: "Parks", phone: "+14155550125" });
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+14155550125", body: "What flowers do you have?" });

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await app.signInContext(context, token);
  const page = await context.newPage();
  await page.goto(`${app.url}/templates`);
  await page.getByRole("button", { name: "Create Template" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Template" });
  await dialog.getByLabel("Name", { exact: true }).fill("Bouquet of the day");
  await dialog.getByLabel("Message", { exact: true }).fill("Here is today's bouquet");
  const photo = Buffer.from(photoJpeg(200, 150, 85, 51));
  await dialog.getByTestId("template-attachments").getByTestId("attach-input").setInputFiles({ name: "bouquet.jpg", mimeType: "image/jpeg", buffer: photo });
  await expect(dialog.getByTestId("attachment-thumbnail")).toBeVisible();
  await dialog.getByRole("button", { name: "Create Template" }).click();
  await expect(dialog).toBeHidden();
  const card = page.getByTestId("template-card").filter({ hasText: "Bouquet of the day" });
  await expect(card.getByRole("list", { name: "Attachments of Bouquet of the day" }).getByRole("img", { name: "bouquet.jpg" })).toBeVisible();
  const [template] = (await call<{ data: { id: string; name: string; media: { id: string; size: number }[] }[] }>("/api/templates")).data.filter((t) => t.name === "Bouquet of the day");
  expect(template!.media.map((m) => m.size)).toEqual([photo.length]);
  await card.getByRole("button", { name: "Edit" }).click();
  const editor = page.getByRole("dialog", { name: "Edit Template" });
  await expect(editor.getByTestId("form-attachments")).toContainText("bouquet.jpg");
  await editor.getByRole("button", { name: "Cancel" }).click();
  // Use This Template opens the campaign wizard on its text with a copy of its picture.
  await card.getByRole("button", { name: "Use This Template" }).click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByLabel("Your message", { exact: true })).toHaveValue("Here is today's bouquet");
  const wizardChip = wizard.getByTestId("form-attachments").getByRole("listitem");
  await expect(wizardChip).toHaveCount(1);
  await expect(wizardChip).toContainText("bouquet.jpg");
  await expect.poll(() => wizardChip.getByTestId("attachment-thumbnail").evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(200);
  await page.keyboard.press("Escape");

  await page.goto(`${app.url}/chat`);
  await page.getByRole("list", { name: "Conversation list" }).getByRole("listitem").filter({ hasText: "Rosa Parks" }).getByRole("button").click();
  await page.getByRole("button", { name: "Template", exact: true }).click();
  const picker = page.getByRole("dialog", { name: "Choose a template" });
  await picker.getByRole("button", { name: "Use Bouquet of the day" }).click();
  await expect(picker).toBeHidden();
  await expect(page.getByRole("textbox", { name: "Your reply" })).toHaveValue("Here is today's bouquet");
  const chip = page.getByTestId("composer-attachments").getByRole("listitem");
  await expect(chip).toHaveCount(1);
  await expect(chip).toContainText("bouquet.jpg");
  await expect(chip).not.toContainText("made smaller");
  await page.getByRole("button", { name: "Send reply" }).click();
  const sent = page.locator('li[data-direction="outbound"]').filter({ hasText: "Here is today's bouquet" });
  await expect(sent.getByTestId("media-thumbnail")).toHaveCount(1);
  await expect(sent.getByTestId("delivery-status")).toHaveText(" · Delivered", { timeout: 15_000 });

  // The reply carries a copy, byte for byte; the template still holds its own.
  const list = await call<{ data: { media: { id: string; url: string }[] }[] }>("/api/messages?phone=%2B14155550125&direction=outbound");
  expect(list.data).toHaveLength(1);
  const copy = list.data[0]!.media[0]!;
  expect(copy.id).not.toBe(template!.media[0]!.id);
  const stored = await fetch(`${app.url}${copy.url}`, { headers: { authorization: `Bearer ${token}` } });
  expect(Buffer.from(await stored.arrayBuffer()).equals(photo)).toBe(true);
  const after = (await call<{ data: { id: string; media: { id: string }[] }[] }>("/api/templates")).data.find((t) => t.id === template!.id)!;
  expect(after.media.map((m) => m.id)).toEqual([template!.media[0]!.id]);
  await page.screenshot({ path: `${shots}/mms-05-template-reply-1280.png` });
  await context.close();
});
