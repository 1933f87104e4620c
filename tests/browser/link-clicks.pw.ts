// Issue 32 items 1 and 2: a campaign's link goes out as a short link; a person's click counts on the campaign's
// details, a link preview does not, and /help publishes the rules that tell them apart.
import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("campaign details show a person's click and its click rate, with the link preview left out", async ({ page }) => {
  await app.verifiedAccount({ email: `clicks${Date.now()}@example.com` }, page.request);
  await page.goto(`${app.url}/sent-messages`);
  const call = await app.apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  const campaign = await call<{ id: string }>("/api/campaigns", { type: "sms", name: "Spring sale", content: "Spring sale: https://shop.example.com/spring", recipients: ["+14155550142"] });
  await call(`/api/campaigns/${campaign.id}/send`, {});
  const sent = async () => (await call<{ data: { content: string; status: string }[] }>(`/api/messages?campaignId=${campaign.id}`)).data[0];
  await expect.poll(async () => (await sent())?.status, { timeout: 15_000 }).toBe("delivered");
  const message = (await sent())!;
  const shortLink = /http:\/\/\S+\/l\/[0-9A-Za-z]{7}/.exec(message.content)![0];
  // Past the scanner window after the delivery report (5 seconds), a phone's browser opens it; iMessage previewed it.
  await page.waitForTimeout(5_500);
  const open = (agent: string) => fetch(shortLink.replace(/^http:\/\/[^/]+/, app.url), { redirect: "manual", headers: { "user-agent": agent } });
  expect((await open("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Version/17.4 Mobile/15E148 Safari/604.1")).headers.get("location")).toBe(
    "https://shop.example.com/spring",
  );
  expect((await open("facebookexternalhit/1.1 Facebot Twitterbot/1.0")).status).toBe(302);

  await page.reload();
  const row = page.getByTestId("history-row").filter({ hasText: "Spring sale" });
  await row.getByRole("button", { name: /View details of/ }).click();
  const details = page.getByRole("dialog", { name: /Spring sale/ });
  await expect(details.getByTestId("details-Human clicks")).toHaveText("1", { timeout: 10_000 });
  await expect(details.getByTestId("details-Click rate")).toHaveText("100%");
  await expect(details.getByTestId("link-clicks")).toContainText("https://shop.example.com/spring");
  await expect(details.getByTestId("clicks-not-counted")).toContainText("Not counted: 1 link preview.");

  await page.goto(`${app.url}/help`);
  await page.getByRole("searchbox").fill("clicks");
  await expect(page.locator("dt", { hasText: "Which clicks count?" }).locator("xpath=following-sibling::dd")).toContainText(
    "Link previews: A user agent of a preview fetcher: Apple iMessage (facebookexternalhit/1.1 Facebot Twitterbot/1.0), WhatsApp (WhatsApp/)",
  );
});

test("the wizard shortens a campaign's link with the UTM parameters and expiry chosen, and counts it as a short link", async ({ page }) => {
  await app.verifiedAccount({ email: `wizardlinks${Date.now()}@example.com` }, page.request);
  await page.goto(`${app.url}/sent-messages`);
  const call = await app.apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  await call("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550143" });
  const { linkDomain, linkDomainDefault } = await call<{ linkDomain: string | null; linkDomainDefault: string }>("/api/user/settings");
  const domain = linkDomain ?? linkDomainDefault;

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Send Messages" }).click();
  await page.getByRole("button", { name: "New SMS Campaign" }).first().click();
  const wizard = page.getByRole("dialog", { name: "Create New Campaign" });
  await wizard.getByRole("radio", { name: /Promotion/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  const url = "https://shop.example.com/collections/spring-sale-2026?ref=sms-campaign";
  await wizard.getByLabel("Your message").fill(`Spring sale: ${url}`);

  // The switch is on by default; the counter counts the link as the short link it becomes, and the long one when off.
  const shorten = wizard.getByLabel(`Shorten links and count clicks (${domain}/l/…)`);
  await expect(shorten).toBeChecked();
  // The counter's "N characters" (its second figure, after the encoding's).
  const characters = async () => Number(await wizard.getByTestId("segment-counter").locator("span").nth(1).locator("strong").textContent());
  await expect(wizard.getByTestId("link-options")).toBeVisible();
  const short = await characters();
  await shorten.uncheck();
  await expect(wizard.getByTestId("link-options")).toHaveCount(0);
  await expect.poll(characters).toBe(short + url.length - `${domain}/l/XXXXXXX`.length);
  await shorten.check();
  await expect.poll(characters).toBe(short);
  await wizard.getByLabel("utm_source").fill("sms");
  await wizard.getByLabel("utm_campaign").fill("spring");
  await wizard.getByLabel("Links expire after (days)").fill("30");
  await wizard.getByRole("button", { name: "Continue" }).click();
  await wizard.getByRole("radio", { name: /All customers/ }).click();
  await wizard.getByRole("button", { name: "Continue" }).click();
  await expect(wizard.getByTestId("wizard-review")).toContainText(
    `LinksShortened to ${domain}/l/…, clicks counted, utm_source=sms, utm_campaign=spring; they expire after 30 days`,
  );
  await wizard.getByRole("button", { name: "Send Campaign" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Campaign started" })).toBeVisible();

  // What was saved and sent: the short link, which sends a browser to the page with the UTM parameters.
  const campaigns = await call<{ data: { id: string; name: string; shortenLinks: boolean; utmSource: string | null; utmMedium: string | null; utmCampaign: string | null; linkExpiryDays: number }[] }>(
    "/api/campaigns",
  );
  const campaign = campaigns.data.find((c) => c.name.startsWith("Promotion - "))!;
  expect([campaign.shortenLinks, campaign.utmSource, campaign.utmMedium, campaign.utmCampaign, campaign.linkExpiryDays]).toEqual([true, "sms", null, "spring", 30]);
  const sent = async () => (await call<{ data: { content: string; status: string }[] }>(`/api/messages?campaignId=${campaign.id}`)).data[0];
  await expect.poll(async () => (await sent())?.status, { timeout: 15_000 }).toBe("delivered");
  const shortLink = new RegExp(`${domain.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/l/[0-9A-Za-z]{7}`).exec((await sent())!.content)![0];
  const res = await fetch(shortLink.replace(domain, app.url), { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Safari/604.1" } });
  expect(res.headers.get("location")).toBe(`${url}&utm_source=sms&utm_campaign=spring`);
});

test("the segment builder offers 'Clicked campaign' and 'Clicked a link', and automation the 'Link clicked' trigger", async ({ page }) => {
  await app.verifiedAccount({ email: `clickui${Date.now()}@example.com` }, page.request);
  await page.goto(`${app.url}/segments`);
  const call = await app.apiAs(page);
  await call("/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await call<{ id: string }>("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await call("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
  const ada = await call<{ id: string }>("/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550144" });
  await call("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550145" });
  const campaign = await call<{ id: string }>("/api/campaigns", { type: "sms", name: "Autumn sale", content: "Autumn sale: https://shop.example.com/autumn", audience: { kind: "all" } });
  await call(`/api/campaigns/${campaign.id}/send`, {});
  const messages = async () => (await call<{ data: { content: string; status: string; phone: string }[] }>(`/api/messages?campaignId=${campaign.id}`)).data;
  await expect.poll(async () => (await messages()).filter((m) => m.status === "delivered").length, { timeout: 15_000 }).toBe(2);
  const adaLink = /http:\/\/\S+\/l\/[0-9A-Za-z]{7}/.exec((await messages()).find((m) => m.phone === "+14155550144")!.content)![0];
  // Past the scanner window after the delivery report, Ada's phone opens her link.
  await page.waitForTimeout(5_500);
  await fetch(adaLink.replace(/^http:\/\/[^/]+/, app.url), { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Safari/604.1" } });

  // The segment builder: Clicked campaign, chosen by name, and a link clicked in the last 7 days.
  await page.reload();
  await page.getByRole("button", { name: "Create Segment" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Segment" });
  await dialog.getByLabel("Segment name").fill("Clicked autumn");
  await dialog.getByLabel("Condition 1 field").selectOption("clickedCampaign");
  await expect(dialog.getByLabel("Condition 1 operator")).toHaveCount(0);
  await dialog.getByLabel("Condition 1 value").selectOption({ label: "Autumn sale" });
  await dialog.getByRole("button", { name: "+ Add condition" }).click();
  await dialog.getByLabel("Condition 2 field").selectOption("lastClicked");
  await dialog.getByLabel("Condition 2 operator").selectOption({ label: "within the last" });
  await dialog.getByLabel("Condition 2 value").fill("7");
  await dialog.getByRole("button", { name: "Create Segment" }).click();
  await expect(dialog).toHaveCount(0);
  const card = page.getByTestId("segment").filter({ hasText: "Clicked autumn" });
  await expect(card).toContainText("Clicked campaign “Autumn sale” · Clicked a link in the last 7 days");
  const segments = await call<{ data: { id: string; name: string; conditions: unknown }[] }>("/api/segments");
  const segment = segments.data.find((s) => s.name === "Clicked autumn")!;
  expect(segment.conditions).toEqual({ clickedCampaign: { eq: campaign.id }, lastClicked: { gte: "-7d" } });
  await expect
    .poll(async () => (await call<{ data: { id: string }[] }>(`/api/segments/${segment.id}/contacts`)).data.map((c) => c.id), { timeout: 15_000 })
    .toEqual([ada.id]);

  // Automation: a rule on a person's click of this campaign's links.
  await page.goto(`${app.url}/automation`);
  await page.getByRole("button", { name: "Create Automation Rule" }).click();
  const rule = page.getByRole("dialog", { name: "Create Automation Rule" });
  await rule.getByLabel("Rule name").fill("Autumn clickers");
  await rule.getByLabel("Trigger").selectOption({ label: "Link clicked (people only)" });
  await rule.getByLabel("Campaign").selectOption({ label: "Autumn sale" });
  await rule.getByLabel("Add tags").fill("clicked-autumn");
  await rule.getByRole("button", { name: "Create Rule" }).click();
  await expect(rule).toHaveCount(0);
  await expect(page.getByTestId("rule-card").filter({ hasText: "Autumn clickers" })).toContainText("Link clicked (people only)");
  const rules = await call<{ data: { name: string; trigger: string; triggerConfig: unknown }[] }>("/api/automation-rules");
  expect(rules.data.filter((r) => r.name === "Autumn clickers").map((r) => [r.trigger, r.triggerConfig])).toEqual([["link_clicked", { campaignId: campaign.id }]]);
});
