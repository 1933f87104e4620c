import { expect, test, type Page } from "@playwright/test";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

/** Calls the API as the signed-in user, with the session cookie the app signed in with; every call here creates (201). */
async function apiAs(page: Page) {
  const session = await app.sessionHeaders(page);
  return async <T>(path: string, body: unknown): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...session },
      body: JSON.stringify(body),
    });
    expect(r.status, `${path}: ${await r.clone().text()}`).toBe(201);
    return (await r.json()) as T;
  };
}

const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name });

test("a keyword created on /keywords, texted through the simulator's reply button, adds a tagged subscriber", async ({ page }) => {
  await app.signUp(page, { email: `keywords${Date.now()}@example.com` });
  const post = await apiAs(page);
  const provider = await post<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await post("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });

  await nav(page, "Keywords").click();
  await expect(page.getByRole("heading", { name: "Keywords", exact: true })).toBeVisible();
  await expect(page.getByText("No keywords yet")).toBeVisible();
  await expect(page.getByTestId("stat-Avg. Response Rate")).toHaveText("—");

  await page.getByRole("button", { name: "Create Keyword" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Keyword" });
  // A keyword that collides with HELP is refused with the server's reason.
  await dialog.getByLabel("Keyword").fill("help");
  await dialog.getByRole("button", { name: "Create Keyword" }).click();
  await expect(dialog.getByRole("alert")).toHaveText(`"HELP" is a help word: texting it always gets the help reply, so it cannot be a keyword.`);

  // The checker names what a confirmation lacks, and the segment counter measures it.
  await dialog.getByLabel("Keyword").fill("JOIN");
  await dialog.getByLabel("Auto-reply").fill("Welcome!");
  const warnings = dialog.getByTestId("confirmation-warnings").getByRole("listitem");
  await expect(warnings).toHaveText([
    "⚠ Name your business (“Rosa Diaz” or {business}) so people know who is texting.",
    "⚠ Say how often you text, e.g. “Up to 4 msgs/month” or “Recurring messages”.",
    "⚠ Add “Msg & data rates may apply”.",
    "⚠ Tell people to reply HELP for help.",
    "⚠ Tell people to reply STOP to cancel.",
  ]);
  const reply = "{business}: Thanks for joining, {firstName|friend}! Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel.";
  await dialog.getByLabel("Auto-reply").fill(reply);
  await expect(dialog.getByText("Has the business name, frequency, rates, HELP and STOP.")).toBeVisible();
  await expect(dialog.getByTestId("segment-counter")).toContainText("1 segment");
  await dialog.getByLabel("Tags (comma separated)").fill("vip, walk-in");
  await page.screenshot({ path: join(shots, "keywords-modal.png"), fullPage: true });
  await dialog.getByRole("button", { name: "Create Keyword" }).click();
  await expect(dialog).toHaveCount(0);
  const card = page.getByTestId("keyword-card").filter({ hasText: "JOIN" });
  await expect(card).toBeVisible();
  await expect(page.getByRole("switch", { name: "Active JOIN" })).toHaveAttribute("aria-checked", "true");

  // The tester says which rule fires, sending nothing.
  await page.getByLabel("Test message").fill("STOP");
  await page.getByRole("button", { name: "Test", exact: true }).click();
  await expect(page.getByTestId("keyword-test-result")).toContainText("Opt-out: the sender is unsubscribed and gets one confirmation.");
  await page.getByLabel("Test message").fill("Join!");
  await page.getByRole("button", { name: "Test", exact: true }).click();
  await expect(page.getByTestId("keyword-test-result")).toContainText("Keyword JOIN: the sender is subscribed, tagged vip, walk-in, and gets the auto-reply once.");

  // A phone texts it: the simulator's reply button on Phone Settings.
  await nav(page, "Phone Settings").click();
  await page.getByText("Simulate a reply").click();
  await page.getByLabel("From", { exact: true }).fill("+14155550142");
  await page.getByLabel("Message", { exact: true }).fill("Join!");
  await page.getByRole("button", { name: "Simulate reply" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Reply simulated" })).toBeVisible();

  // The new subscriber, tagged, on /contact-lists.
  await nav(page, "Customer Lists").click();
  const row = page.getByRole("row").filter({ hasText: "0142" });
  await expect(async () => {
    await page.reload();
    await expect(row).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(row).toContainText("vip");
  await expect(row).toContainText("walk-in");

  // The conversation on /chat: the keyword and the confirmation, rendered for someone with no name yet.
  await nav(page, "Chat & Replies").click();
  await page.getByText("0142").first().click();
  await expect(page.getByText("Join!", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("Rosa Diaz: Thanks for joining, friend! Up to 4 msgs/month.", { exact: false }).first()).toBeVisible();

  // The card counts the opt-in.
  await nav(page, "Keywords").click();
  await expect(card.getByTestId("keyword-opt-ins")).toHaveText("1");
  await expect(page.getByTestId("stat-Total Opt-ins")).toHaveText("1");
  await page.screenshot({ path: join(shots, "keywords.png"), fullPage: true });
});

test("a keyword's replies shorten their links by the editor's switch: on by default and counted as a short link, saved off and on again", async ({ page }) => {
  await app.signUp(page, { email: `keyword-links${Date.now()}@example.com` });
  const session = await app.sessionHeaders(page);
  const saved = async () => {
    const list = (await (await fetch(`${app.url}/api/keywords`, { headers: session })).json()) as { data: { keyword: string; shortenLinks: boolean }[] };
    return list.data.map((k) => [k.keyword, k.shortenLinks]);
  };
  await nav(page, "Keywords").click();
  await page.getByRole("button", { name: "Create Keyword" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Keyword" });
  const shorten = dialog.getByRole("checkbox", { name: /Shorten links and count clicks/ });
  await expect(shorten).toBeChecked();
  await dialog.getByLabel("Keyword").fill("DEALS");
  const link = "https://shop.example.com/spring-sale/everything-half-price?ref=keyword-welcome";
  await dialog.getByLabel("Auto-reply").fill(`{business}: Deals at ${link} Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel.`);
  const counter = dialog.getByTestId("segment-counter");
  const characters = async () => Number(await counter.locator("span").nth(1).locator("strong").textContent());
  const settings = (await (await fetch(`${app.url}/api/user/settings`, { headers: session })).json()) as { linkDomain: string | null; linkDomainDefault: string };
  const origin = settings.linkDomain ?? settings.linkDomainDefault;
  await expect(dialog.getByTestId("short-link-note")).toHaveText(`The link goes out as short links such as ${origin}/l/Ab3xK9q, counted at that length.`);
  const short = await characters();
  // Off: the link is counted as written, the long link's length less the short one's more.
  await shorten.uncheck();
  await expect(dialog.getByTestId("short-link-note")).toHaveCount(0);
  await expect.poll(characters).toBe(short + link.length - `${origin}/l/Ab3xK9q`.length);
  await dialog.getByRole("button", { name: "Create Keyword" }).click();
  await expect(dialog).toHaveCount(0);
  expect(await saved()).toEqual([["DEALS", false]]);

  // Edited: the switch shows what was saved, and turned on again is saved on.
  await page.getByRole("button", { name: "Edit DEALS" }).click();
  const edit = page.getByRole("dialog", { name: "Edit keyword DEALS" });
  const again = edit.getByRole("checkbox", { name: /Shorten links and count clicks/ });
  await expect(again).not.toBeChecked();
  await again.check();
  await expect(edit.getByTestId("short-link-note")).toBeVisible();
  await edit.getByRole("button", { name: "Save Keyword" }).click();
  await expect(edit).toHaveCount(0);
  expect(await saved()).toEqual([["DEALS", true]]);
});
