// Issue 32 item 3: an A/B test made in the campaign wizard (variant B, test share, measure, by hand), sent through
// the simulator to 10 customers; a person clicks B's link; the campaign's details show each variant's figures and
// the confidence, and "Send winner now" sends B to the other 8.
import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

const CHROME = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

test("the wizard makes an A/B test; the details show the variants and the confidence; Send winner now sends B to the rest", async ({ page }) => {
  await app.signUp(page, { email: `abtest${Date.now()}@example.com` });
  const call = await app.apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  for (let i = 0; i < 10; i++) await call("/api/contacts", { firstName: `Guest${i}`, phone: `+1415555${String(300 + i).padStart(4, "0")}` });

  await page.goto(`${app.url}/campaigns`);
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByLabel("Your message").fill("Spring sale: https://shop.example.com/a");
  await wizard.getByRole("checkbox", { name: /A\/B test/ }).check();
  await expect(wizard.getByText("Write variant B.")).toBeVisible();
  await wizard.getByLabel("Variant B").fill("Half off today only");
  await expect(wizard.getByText("Every variant needs a link for the click rate (or pick the winner by replies).")).toBeVisible();
  await wizard.getByLabel("Variant B").fill("Half off today only: https://shop.example.com/b");
  await wizard.getByLabel("Test share (%)").fill("20");
  await expect(wizard.getByText("Each variant goes to about 10%")).toBeVisible();
  await wizard.getByLabel("Winner by").selectOption("clicks");
  await wizard.getByLabel("Pick the winner").selectOption("hand");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("radio", { name: /All customers/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  const review = wizard.getByTestId("wizard-review");
  await expect(review).toContainText("2 variants to 20% of the audience, split evenly; the rest get the one with the higher human click rate, picked by you");
  // 10 customers, 20%: one a variant, 8 kept for the winner; each text is one segment.
  await expect(review).toContainText("up to 10 segments (A: 1, B: 1 per recipient; the rest counted at the longest)");
  await wizard.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Campaign started" })).toBeVisible();
  await expect(page).toHaveURL(/\/sent-messages$/);

  const row = page.getByTestId("history-row").filter({ hasText: /Promotion - / });
  await row.getByRole("button", { name: /View details of/ }).click();
  const details = page.getByRole("dialog", { name: /Promotion - / });
  const report = details.getByTestId("ab-test-report");
  await expect(report.getByTestId("ab-variant-rest")).toContainText("8 waiting for the winner");
  type Message = { content: string; status: string; phone: string };
  const messages = async () => (await call<{ data: Message[] }>("/api/messages?pageSize=100")).data.filter((m) => m.content.includes("/l/"));
  await expect.poll(async () => (await messages()).filter((m) => m.status === "delivered").length, { timeout: 15_000 }).toBe(2);

  // Past the scanner window after the delivery report, a person opens B's link.
  await page.waitForTimeout(5_500);
  const b = (await messages()).find((m) => m.content.startsWith("Half off"))!;
  const link = /http:\/\/\S+\/l\/[0-9A-Za-z]{7}/.exec(b.content)![0];
  expect((await fetch(link.replace(/^http:\/\/[^/]+/, app.url), { redirect: "manual", headers: { "user-agent": CHROME } })).status).toBe(302);

  await expect(report.getByTestId("ab-variant-B")).toContainText("100%", { timeout: 15_000 });
  await expect(report.getByTestId("ab-variant-A").getByRole("cell").nth(4)).toHaveText("0%");
  await expect(report.getByTestId("ab-test-verdict")).toHaveText(
    "No clear winner: B leads with a click rate of 100.0% against 0.0% for A, at 84.3% confidence (95% makes a clear winner).",
  );
  await report.screenshot({ path: `${process.env.PW_OUTPUT_DIR ?? "test-results"}/ab-test-report.png` });
  await report.getByRole("button", { name: "Send winner now (B)" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Variant B is the winner" })).toBeVisible();
  await expect(report.getByTestId("ab-test-decision")).toContainText("Variant B was sent to the rest of the audience, picked by you on");
  await expect(report.getByRole("button", { name: /Pick|Send winner/ })).toHaveCount(0);
  await expect.poll(async () => (await messages()).filter((m) => m.content.startsWith("Half off")).length, { timeout: 15_000 }).toBe(9);
  expect((await messages()).length).toBe(10);
  await expect(report.getByTestId("ab-variant-rest")).toContainText("Sent variant B", { timeout: 15_000 });
  await expect(report.getByTestId("ab-variant-rest").getByRole("cell").nth(1)).toHaveText("8", { timeout: 15_000 });

  // /help says what the rule does without a clear winner, from the server's own figures (shared/campaigns/ab-stats.ts).
  await page.goto(`${app.url}/help`);
  await page.getByRole("searchbox").fill("A/B");
  const answer = page.locator("dt", { hasText: "How do A/B tests work?" }).locator("xpath=following-sibling::dd");
  await expect(answer).toContainText("the version with the higher rate goes to the rest, through the same outbox and within quiet hours, even when the difference is not clear");
  await expect(answer).toContainText("a two-proportion z-test (pooled, two-sided). At 95% or more it names a clear winner");
});
