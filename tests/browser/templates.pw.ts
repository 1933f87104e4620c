// Templates and /advanced-sms (issue 14): a template created on /templates goes into the wizard through the
// picker, counting a real use, and its merge fields are filled per contact; /advanced-sms sends a template to two
// numbers with the segments and the cost at the sender's provider account's price per segment (its default, then
// the user's own set there), through the simulator.
import { expect, test, type Page } from "@playwright/test";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

/** Calls the API as the signed-in user, with the session cookie the app signed in with. */
async function apiAs(page: Page) {
  const session = await app.sessionHeaders(page);
  return async <T>(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...session },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(r.status, `${path}: ${await r.clone().text()}`).toBe(method === "POST" ? 201 : 200);
    return (await r.json()) as T;
  };
}

type Message = { phone: string; content: string; status: string };

test("a template goes into the wizard and to each contact by name; /advanced-sms sends it with its cost", async ({ page }) => {
  await app.signUp(page, { email: `templates${Date.now()}@example.com` });
  const call = await apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  await call("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550123" });
  await call("/api/contacts", { firstName: "", lastName: "Hopper", phone: "+14155550124" });

  // /templates: the samples at zero uses; a new template with its variables found as it is typed.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Templates" }).click();
  await expect(page.getByRole("heading", { name: "SMS Templates" })).toBeVisible();
  const cards = page.getByTestId("template-card");
  await expect(cards).toHaveCount(6);
  await expect(cards.filter({ hasText: "Weekend Special Offer" }).getByTestId("usage-count")).toHaveText("Sample · Used 0 times");
  await page.getByRole("tab", { name: "Fitness" }).click();
  await expect(cards).toHaveCount(1);
  await expect(cards).toContainText("Class Reminder");
  await page.getByRole("tab", { name: "All" }).click();

  await page.getByRole("button", { name: "Create Template" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Template" });
  await dialog.getByLabel("Name", { exact: true }).fill("Thank you");
  await dialog.getByLabel("Category").selectOption("retail");
  await dialog.getByLabel("Message", { exact: true }).fill("Thanks {firstName|friend}! See you soon at ");
  await dialog.getByLabel("Insert a merge field").selectOption("{business}");
  await expect(dialog.getByLabel("Message", { exact: true })).toHaveValue("Thanks {firstName|friend}! See you soon at {business}");
  await expect(dialog.getByTestId("template-variables")).toHaveText("Variables: {firstName}, {business}");
  await dialog.getByRole("button", { name: "Create Template" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Template created" })).toBeVisible();
  const mine = cards.filter({ hasText: "Thank you" });
  await expect(mine.getByTestId("usage-count")).toHaveText("Used 0 times");
  await page.getByLabel("Search templates").fill("see you soon");
  await expect(cards).toHaveCount(1);

  // The wizard: the picker fills the message; the preview is the first contact's text.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Send Messages" }).click();
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("button", { name: "Use a template" }).click();
  const picker = page.getByRole("dialog", { name: "Choose a template" });
  await picker.getByLabel("Search templates").fill("thank");
  await picker.getByRole("button", { name: "Use Thank you" }).click();
  await expect(picker).toHaveCount(0);
  await expect(wizard.getByLabel("Your message")).toHaveValue("Thanks {firstName|friend}! See you soon at {business}");
  await expect(wizard.getByTestId("message-preview")).toContainText("Thanks Ada! See you soon at Rosa Diaz");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("radio", { name: /All customers/ }).check();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Campaign started" })).toBeVisible();

  // Each contact got their own text: the one without a first name the fallback.
  const campaigns = await call<{ data: { id: string; name: string }[] }>("/api/campaigns?type=sms");
  const promo = campaigns.data.find((c) => c.name.startsWith("Promotion"))!;
  await expect
    .poll(async () => (await call<{ data: Message[] }>(`/api/messages?campaignId=${promo.id}`)).data.map((m) => [m.phone, m.content]).sort())
    .toEqual([
      ["+14155550123", "Thanks Ada! See you soon at Rosa Diaz\nReply STOP to opt out"],
      ["+14155550124", "Thanks friend! See you soon at Rosa Diaz\nReply STOP to opt out"],
    ]);

  // The use was counted.
  await page.goto(`${app.url}/templates`);
  await expect(cards.filter({ hasText: "Thank you" }).getByTestId("usage-count")).toHaveText("Used 1 time");

  // /advanced-sms: two numbers, the template, segments and the cost at the sending account's price, sent now.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Advanced SMS" }).click();
  await expect(page.getByRole("heading", { name: "Advanced SMS" })).toBeVisible();
  await expect(page.getByLabel("Send from")).toHaveValue("+14155550100");
  await page.getByLabel("Phone numbers").fill("+14155550123\n+14155550124");
  await page.getByRole("button", { name: "Use a template" }).click();
  await page.getByRole("dialog", { name: "Choose a template" }).getByRole("button", { name: "Use Thank you" }).click();
  await expect(page.getByLabel("Message", { exact: true })).toHaveValue("Thanks {firstName|friend}! See you soon at {business}");
  await page.getByLabel("Add the opt-out line").uncheck();
  await expect(page.getByTestId("segment-counter")).toContainText("GSM-7");
  await expect(page.getByTestId("segment-counter")).toContainText("1 segment");
  await expect(page.getByTestId("longest-message")).toHaveText("Counted on the longest message once merge fields are filled: Hopper’s.");
  // The simulator's default price, said to be one; a price entered here is that provider account's.
  await expect(page.getByTestId("cost-estimate")).toHaveText("2 messages, 2 segments × $0.00 = $0.00 (default price)");
  await expect(page.getByTestId("price-source")).toHaveText("Using the default, $0.00: the simulator sends nothing and costs nothing.");
  await page.getByLabel("Price per segment (USD)").fill("0.0079");
  await page.getByRole("button", { name: "Save price" }).click();
  await expect(page.getByTestId("cost-estimate")).toHaveText("2 messages, 2 segments × $0.0079 = $0.0158");
  await expect(page.getByTestId("price-source")).toHaveText(
    "Your price for this provider account, also used by campaigns and Results & Stats. The default would be $0.00.",
  );
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Message sent" })).toContainText("2 messages queued");

  const adv = (await call<{ data: { id: string; name: string }[] }>("/api/campaigns?type=sms")).data.find((c) => c.name.startsWith("Advanced SMS"))!;
  await expect
    .poll(async () => (await call<{ data: Message[] }>(`/api/messages?campaignId=${adv.id}`)).data.map((m) => [m.phone, m.content, m.status]).sort(), {
      timeout: 30_000,
    })
    .toEqual([
      ["+14155550123", "Thanks Ada! See you soon at Rosa Diaz", "delivered"],
      ["+14155550124", "Thanks friend! See you soon at Rosa Diaz", "delivered"],
    ]);
  // The price was saved on the provider account, where the campaigns' estimates and the dashboards' spend read it.
  expect((await call<{ data: { providerId: string; customPriceMicros: number | null }[] }>("/api/sms-providers/segment-prices")).data).toEqual([
    expect.objectContaining({ providerId: provider.id, priceMicros: 7900, customPriceMicros: 7900 }),
  ]);
});
