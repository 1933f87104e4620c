import { expect, test, type Page } from "@playwright/test";
import { Appliance } from "./harness";

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

test("a rule created in the dialog answers a simulated reply once, counts it and shows it in its history", async ({ page }) => {
  await app.signUp(page, { email: `rules${Date.now()}@example.com` });
  const post = await apiAs(page);
  const provider = await post<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await post("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });

  await page.goto(`${app.url}/automation`);
  await expect(page.getByText("No automation rules yet.")).toBeVisible();
  await page.getByRole("button", { name: "Create Automation Rule" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Automation Rule" });
  await dialog.getByRole("button", { name: "Create Rule" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Rule name is required");
  await dialog.getByLabel("Rule name").fill("Opening hours");
  await dialog.getByLabel("Trigger").selectOption("reply");
  await dialog.getByLabel("Words").fill("hours, open");
  await dialog.getByLabel("Send message").fill("We are open 9 to 5, {firstName|friend}!");
  await dialog.getByLabel("Add tags").fill("asked-hours");
  // The message's links go out as short links unless the switch (on by default) is turned off; off is saved.
  const shorten = dialog.getByRole("checkbox", { name: /Shorten links and count clicks/ });
  await expect(shorten).toBeChecked();
  await shorten.uncheck();
  await dialog.getByRole("button", { name: "Create Rule" }).click();
  await expect(dialog).toHaveCount(0);
  const rules = (await (await fetch(`${app.url}/api/automation-rules`, { headers: await app.sessionHeaders(page) })).json()) as { data: { actions: unknown }[] };
  expect(rules.data.map((r) => r.actions)).toEqual([{ sendMessage: "We are open 9 to 5, {firstName|friend}!", shortenLinks: false, addTags: ["asked-hours"] }]);
  const card = page.getByTestId("rule-card").filter({ hasText: "Opening hours" });
  await expect(card).toContainText("Reply contains words");
  await expect(card.getByTestId("rule-count")).toHaveText("fired 0 times");
  await expect(page.getByRole("switch", { name: "Opening hours active" })).toHaveAttribute("aria-checked", "true");

  // A phone texts the question: the simulator's reply button on Phone Settings.
  await nav(page, "Phone Settings").click();
  await page.getByText("Simulate a reply").click();
  await page.getByLabel("From", { exact: true }).fill("+14155550142");
  await page.getByLabel("Message", { exact: true }).fill("What are your hours?");
  await page.getByRole("button", { name: "Simulate reply" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Reply simulated" })).toBeVisible();

  await page.goto(`${app.url}/automation`);
  await expect(async () => {
    await page.reload();
    await expect(card.getByTestId("rule-count")).toHaveText("fired 1 time", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await card.getByRole("button", { name: "History" }).click();
  const runs = card.getByTestId("rule-run");
  await expect(runs).toHaveCount(1);
  await expect(runs.first()).toContainText("done");
  await expect(runs.first()).toContainText("Message queued: We are open 9 to 5, friend! · Tags added: asked-hours");

  // Switched off, it stays off.
  await page.getByRole("switch", { name: "Opening hours active" }).click();
  await expect(page.getByRole("switch", { name: "Opening hours active" })).toHaveAttribute("aria-checked", "false");
  await page.reload();
  await expect(page.getByRole("switch", { name: "Opening hours active" })).toHaveAttribute("aria-checked", "false");
});
