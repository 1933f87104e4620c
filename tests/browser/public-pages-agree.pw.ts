// Issue 28 item 9 (screens that agree) on the public pages, in Chromium: /pricing promises what the product does (a
// 14-day Starter trial with its limits, sends refused at the limit, never billed) and /help answers where replies and
// keywords are handled, never "in a later version", and shows the state rule table. Screenshots at 1280 and 390
// pixels wide go to dist/screenshots/public-pages/.
import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";
import { atBothWidths } from "./widths";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("/pricing and /help say what the product does", async ({ page }) => {
  await page.goto(`${app.url}/pricing`);
  await expect(page.getByText("Start with a 14-day free trial of Starter, no credit card required.")).toBeVisible();
  await expect(page.getByText("No overage charges")).toBeVisible();
  await expect(page.getByText("At your monthly allowance new sends are refused, never billed: move to a larger plan or redeem a code to go on.")).toBeVisible();
  await expect(page.getByText(/Every new account starts with 14 days of the Starter plan for free: 5,000 SMS a month, 1,000 contacts and one phone number\./)).toBeVisible();
  await expect(page.getByText(/\$0\.02|overage billing/i)).toHaveCount(0);
  await atBothWidths(page, "public-pages", "pricing");

  await page.goto(`${app.url}/help`);
  await page.getByRole("searchbox").fill("replies");
  const answer = page.locator("dt", { hasText: "What happens when a customer replies?" }).locator("xpath=following-sibling::dd");
  await expect(answer).toHaveText(
    "Replies reach your number and appear in Chat & Replies as a conversation with the contact, live, with a notification in the app. Answer from there; STOP, START and HELP are answered automatically, and keywords reply on their own.",
  );
  await expect(page.getByText(/later version|coming soon/i)).toHaveCount(0);
  await atBothWidths(page, "public-pages", "help-replies");
  // The chat composer's paperclip (issue 33 item 1, tests/browser/mms.pw.ts) and the server's limits.
  await page.getByRole("searchbox").fill("picture");
  await expect(page.locator("dt", { hasText: "Can I send a picture or a file in a reply?" }).locator("xpath=following-sibling::dd")).toContainText(
    "the paperclip attaches up to 5 JPEG, PNG or GIF pictures, PDFs or vCards to a reply, with or without text",
  );
  await page.getByRole("searchbox").fill("keyword");
  await expect(page.locator("dt", { hasText: "What is a text-to-join keyword?" }).locator("xpath=following-sibling::dd")).toContainText(
    "Create one under Keywords: a text of that word adds or tags the contact, records their consent and replies with your welcome text",
  );
  await atBothWidths(page, "public-pages", "help-keywords");

  // The state rule table in force (issue 34 item 2), from the server's one file (src/sending/state-rules.ts).
  const rules = page.getByTestId("state-rules");
  await expect(rules.getByRole("row")).toHaveText([
    "StateTexts allowedAt most per 24 hoursLegal sourceChecked",
    "Florida8 AM–8 PM3Fla. Stat. § 501.616(6)2026-12-07",
    "Maryland8 AM–8 PM3Md. Code, Com. Law § 14-4502 (Stop the Spam Calls Act of 2023)2026-12-07",
    "Oklahoma8 AM–8 PM3Okla. Stat. tit. 15, § 775C (Telephone Solicitation Act of 2022)2026-12-07",
  ]);
  await rules.scrollIntoViewIfNeeded();
  await atBothWidths(page, "public-pages", "help-state-rules");
});

// Issue 33 item 3: /help's section on pictures and files (MMS), rendered from the server's constants, says what the
// server does: the refusals it shows are the ones an upload gets.
test("/help on pictures and files (MMS) says what an upload and the providers do", async ({ page }) => {
  const token = await app.verifiedAccount({ email: "mms-help@example.com" });
  const upload = async (bytes: Uint8Array, filename: string) => {
    const r = await fetch(`${app.url}/api/media?filename=${filename}`, { method: "POST", headers: { authorization: `Bearer ${token}`, origin: app.url }, body: bytes as Uint8Array<ArrayBuffer> });
    return { status: r.status, message: ((await r.json()) as { message: string }).message };
  };
  const svg = await upload(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), "photo.jpg");
  const html = await upload(new TextEncoder().encode("<!doctype html><h1>hi</h1>"), "photo.jpg");
  const gif = new Uint8Array(Math.round(1.2 * 1024 * 1024));
  gif.set(new TextEncoder().encode("GIF89a"));
  const bigGif = await upload(gif, "party.gif");
  expect([svg.status, html.status, bigGif.status]).toEqual([415, 415, 413]);
  expect(html.message).toBe(svg.message);

  await page.goto(`${app.url}/help`);
  const mms = page.getByTestId("mms");
  await expect(mms.getByRole("heading", { level: 2 })).toHaveText("Pictures and files (MMS)");
  await expect(mms.getByTestId("mms-types")).toHaveText(
    "Attach JPEG, PNG and GIF pictures and PDF and vCard files, up to 5 per message, to a reply in Chat, a campaign (in the wizard or the full form), a template, a drip step, or a message sent with the API (upload each with POST /api/v1/media, then pass their ids as mediaIds of POST /api/v1/messages).",
  );
  // Where attachments go (issue 33 items 1-2: campaigns, templates, drip steps) and the price setting (Results & Stats).
  await expect(mms.getByTestId("mms-where")).toContainText("drips send from your default number, so it must be one whose provider sends MMS");
  await expect(mms.getByTestId("mms-price")).toContainText("Until you set that price under Results & Stats (Price per MMS), the provider's list price");
  await expect(mms.getByTestId("mms-price")).toContainText("Results & Stats counts what was sent, delivered and spent in MMS apart from SMS");
  await expect(mms.getByTestId("mms-size")).toContainText("Every item is kept within 600 KB, what carriers deliver reliably. A larger JPEG or PNG is made smaller");
  await expect(mms.getByTestId("mms-refusals").locator("dd")).toHaveText([
    svg.message,
    bigGif.message,
    "Brevo cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments",
  ]);
  expect(svg.message).toBe("This file is not a JPEG, PNG or GIF image, a PDF or a vCard, the files an MMS can carry (SVG and HTML files are refused)");
  expect(bigGif.message).toBe("This GIF is 1.2 MB and could not be made smaller than 600 KB, the most an MMS carries");
  await expect(mms.getByTestId("mms-providers").getByRole("row")).toHaveText([
    "ProviderSends MMSDefault price",
    "TwilioYes$0.020 per MMS (default)",
    "TelnyxYes$0.015 per MMS (default)",
    "The simulatorYesFree: nothing is really sent (default)",
    "BrevoNo—",
    "TextMagicNo—",
    "ClickSendNo—",
  ]);
  await expect(mms.getByTestId("mms-received")).toContainText("(up to 10, each up to 5.0 MB) is copied at once from the provider into your own storage");
  await mms.scrollIntoViewIfNeeded();
  await atBothWidths(page, "public-pages", "help-mms");
});
