// Issue 34 item 3: a text the plain-words matcher is unsure of puts its thread at the top of /chat with a "Possible
// opt-out" badge; one click on "Opt out" opts the contact out (with STOP's confirmation) and the badge goes.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { OPT_OUT_PHRASES, PLAIN_RULES } from "../../shared/keywords/plain-opt-out";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

/** axe's serious and critical findings inside one part of the page. */
async function axeWithin(page: Page, selector: string) {
  const result = await new AxeBuilder({ page })
    .include(selector)
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a possible opt-out is listed first on /chat with its badge, and one click opts the contact out", async ({ page }) => {
  await app.verifiedAccount({ email: `possible${Date.now()}@example.com` }, page.request);
  await page.goto(`${app.url}/chat`);
  const call = await app.apiAs(page);
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  await call("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550142" });
  await call("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550143" });
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+14155550142", body: "how do I unsubscribe?" });
  await call(`/api/sms-providers/${provider.id}/simulate-inbound`, { from: "+14155550143", body: "Are you open on Sunday?" });

  const list = page.getByRole("list", { name: "Conversation list" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  // The older text is on top: it waits for the owner's answer.
  await expect(list.getByRole("listitem").first()).toContainText("Grace Hopper");
  await expect(list.getByRole("listitem").first().getByText("Possible opt-out")).toBeVisible();
  await expect(list.getByRole("listitem").nth(1).getByText("Possible opt-out")).toHaveCount(0);

  await list.getByRole("button", { name: /Grace Hopper/ }).click();
  const mark = page.getByRole("region", { name: "Possible opt-out" });
  await expect(mark).toContainText("“how do I unsubscribe?”");
  expect(await axeWithin(page, '[role="region"][aria-label="Possible opt-out"]')).toEqual([]);
  await page.screenshot({ path: `${shots}/possible-opt-out-1280.png` });
  await mark.getByRole("button", { name: "Opt out" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Opted out. The opt-out confirmation was sent." })).toBeVisible();
  await expect(mark).toHaveCount(0);
  await expect(list.getByText("Possible opt-out")).toHaveCount(0);
  await expect(page.getByTestId("chat-messages")).toContainText("You have been unsubscribed and will receive no more messages.");
  const contacts = await call<{ data: { phone: string; status: string }[] }>("/api/contacts");
  expect(Object.fromEntries(contacts.data.map((c) => [c.phone, c.status]))).toEqual({
    "+14155550142": "opted_out",
    "+14155550143": "subscribed",
  });
});

test("/help lists the matcher's rules and every phrase from its own lists", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${app.url}/help`);
  const section = page.getByRole("region", { name: "Opt-outs in plain words" });
  await expect(section.getByText(PLAIN_RULES[0])).toBeVisible();
  const table = section.getByRole("table", { name: "Opt out wherever they stand" });
  await expect(table).toBeHidden();
  await section.getByText(/^Every phrase \(\d+\) and word group/).click();
  await expect(table.getByRole("row")).toHaveCount(OPT_OUT_PHRASES.length + 1);
  await expect(section.getByRole("cell", { name: "{dejen} de {escribirme}", exact: true })).toBeVisible();
  expect(await axeWithin(page, "#plain-opt-outs")).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: `${shots}/help-plain-opt-outs-390.png`, fullPage: true });
  // A search for a phrase finds the section with its lists open.
  await page.getByRole("searchbox").fill("borrenme");
  await expect(section.getByRole("cell", { name: "{borrenme}", exact: true })).toBeVisible();
});
