// Drip campaigns (issue 15): the Welcome Series built from the sample on /automation, its first step given a picture
// in the editor (issue 33), a contact enrolled from /contact-lists with "Add to drip", step 1 delivered through the
// simulator with the picture byte for byte and step 2 scheduled, as the enrolment's history shows in the account's
// time zone. Screenshots at 1280 and 390 in dist/screenshots/drips/.
import { expect, test, type Page } from "@playwright/test";
import { photoJpeg } from "../support/media-fixtures";
import { Appliance } from "./harness";
import { atBothWidths } from "./widths";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

async function apiAs(page: Page) {
  const session = await app.sessionHeaders(page);
  return async <T>(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...session },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(r.status, `${path}: ${await r.clone().text()}`).toBeLessThan(300);
    return (await r.json()) as T;
  };
}

// The browser in Tokyo, the account in Los Angeles: times read in the account's zone (they showed the browser's).
test.use({ timezoneId: "Asia/Tokyo" });

test("the Welcome Series from its sample: a contact enrolled gets step 1 delivered and step 2 scheduled", async ({ page }) => {
  await app.signUp(page, { email: `drips${Date.now()}@example.com` });
  const call = await apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false, timezone: "America/Los_Angeles" }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  await call("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550123" });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Automation" }).click();
  await expect(page.getByRole("heading", { name: "Automation" })).toBeVisible();
  await page.getByRole("tab", { name: "Drip Campaigns" }).click();
  await page.getByRole("button", { name: "Start from Welcome Series" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Drip Campaign" });
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveValue("Welcome Series");
  await expect(dialog.getByTestId("drip-step")).toHaveCount(4);
  await expect(dialog.getByLabel("Step 2 delay", { exact: true })).toHaveValue("1");
  // Step 1 carries a picture: uploaded at once, shown as a chip with its thumbnail.
  const photo = Buffer.from(photoJpeg(240, 180, 85, 41));
  const step1 = dialog.getByTestId("step-1-attachments");
  await step1.getByTestId("attach-input").setInputFiles({ name: "welcome.jpg", mimeType: "image/jpeg", buffer: photo });
  await expect(step1.getByTestId("attachment-thumbnail")).toBeVisible();
  await expect(step1.getByTestId("form-attachments")).toContainText("welcome.jpg");
  await expect(dialog.getByTestId("step-2-attachments").getByTestId("form-attachments")).toHaveCount(0);
  // Each step's links go out as short links unless its switch is turned off: step 2's is.
  await expect(dialog.getByRole("checkbox", { name: "Step 1: shorten links and count clicks" })).toBeChecked();
  await dialog.getByRole("checkbox", { name: "Step 2: shorten links and count clicks" }).uncheck();
  await dialog.getByRole("button", { name: "Create Drip Campaign" }).click();
  await expect(dialog).toBeHidden();
  const card = page.getByTestId("drip-card").filter({ hasText: "Welcome Series" });
  await expect(card).toContainText("Contact opts in · 4 steps: day 0, day 1 10:00, day 3 10:00, day 7 10:00");
  // Saved with the step, and shown again when the drip is opened to edit.
  const saved = (
    await call<{ data: { name: string; steps: { mediaIds?: string[]; shortenLinks?: false; media: { filename: string; size: number }[] }[] }[] }>("/api/drip-campaigns")
  ).data.find(
    (d) => d.name === "Welcome Series",
  )!;
  expect(saved.steps.map((s) => s.media.map((m) => [m.filename, m.size]))).toEqual([[["welcome.jpg", photo.length]], [], [], []]);
  expect(saved.steps.map((s) => s.shortenLinks ?? true)).toEqual([true, false, true, true]);
  await card.getByRole("button", { name: "Edit" }).click();
  const editor = page.getByRole("dialog", { name: "Edit Drip Campaign" });
  await expect(editor.getByTestId("step-1-attachments").getByTestId("form-attachments")).toContainText("welcome.jpg");
  await expect(editor.getByRole("checkbox", { name: "Step 2: shorten links and count clicks" })).not.toBeChecked();
  await expect(editor.getByRole("checkbox", { name: "Step 3: shorten links and count clicks" })).toBeChecked();
  await page.keyboard.press("Escape");
  await expect(editor).toBeHidden();

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Customer Lists" }).click();
  await page.getByLabel("Select Grace Hopper").check();
  await page.getByRole("toolbar", { name: "Bulk actions" }).getByRole("button", { name: "Add to drip" }).click();
  const picker = page.getByRole("dialog", { name: "Add to drip" });
  await picker.getByLabel("Drip campaign").selectOption({ label: "Welcome Series" });
  await picker.getByRole("button", { name: "Enrol 1 contact" }).click();
  await expect(page.getByText("1 contact(s) enrolled.")).toBeVisible();

  // The job runner runs step 1 within seconds; the simulator delivers it.
  await expect
    .poll(async () => (await call<{ data: { phone: string; content: string; status: string }[] }>("/api/messages")).data.map((m) => [m.phone, m.status]), { timeout: 20_000 })
    .toEqual([["+14155550123", "delivered"]]);
  // The step's message is an MMS: the simulator got the picture; it is served as it was uploaded.
  const [sent] = (await call<{ data: { media: { id: string }[] }[] }>("/api/messages")).data;
  expect(sent!.media.map((m) => m.id)).toEqual(saved.steps[0]!.mediaIds);
  const served = await page.request.get(`${app.url}/api/media/${sent!.media[0]!.id}`);
  expect(Buffer.from(await served.body()).equals(photo)).toBe(true);

  await page.goto(`${app.url}/automation?tab=drips`);
  await card.getByRole("button", { name: "Enrolments" }).click();
  const enrolment = card.getByTestId("enrolment");
  await expect(enrolment).toContainText("Grace Hopper");
  await expect(enrolment.getByTestId("enrolment-history")).toHaveCount(1);
  await expect(enrolment.getByTestId("enrolment-history")).toContainText("Step 1 sent");
  const drips = await call<{ data: { id: string; name: string }[] }>("/api/drip-campaigns");
  const dripId = drips.data.find((d) => d.name === "Welcome Series")!.id;
  const [enrolled] = (await call<{ data: { nextAt: string; history: { at: string }[] }[] }>(`/api/drip-campaigns/${dripId}/enrolments`)).data;
  const { locale } = await call<{ locale: string }>("/api/auth/user");
  const inLosAngeles = (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: "America/Los_Angeles" }).format(new Date(iso));
  await expect(enrolment.getByTestId("enrolment-next")).toHaveText(`Step 2 scheduled for ${inLosAngeles(enrolled!.nextAt)}`);
  await expect(enrolment.getByTestId("enrolment-history")).toHaveText(`Step 1 sent ${inLosAngeles(enrolled!.history[0]!.at)}`);
  await expect(card.getByTestId("drip-counts")).toHaveText("1 waiting · 0 completed · 0 exited");
  // Issue 28 item 9: the enrolment's times in the account's zone, at both widths.
  await atBothWidths(page, "drips", "enrolment-times");
});
