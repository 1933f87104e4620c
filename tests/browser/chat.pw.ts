import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { Appliance } from "./harness";

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";
const TITLE = "smsdesk: SMS marketing";
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const ADMIN = { email: "root@example.com", password: "correct-horse-battery-staple" };

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
});
test.afterAll(async () => {
  await app.stop();
});

/**
 * A browser context signed in as the account with this token: its session cookie, as a sign-in sets it, and a record of
 * the desktop notifications the page shows (granted, so none is asked for). `away` makes the page report that it
 * has no focus, as a tab in the background does.
 */
async function signedInContext(browser: Browser, token: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP });
  await app.signInContext(context, token);
  await context.addInitScript(() => {
    const shown: { title: string; body: string }[] = [];
    (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
    class RecordedNotification {
      static permission = "granted";
      static requestPermission = async () => "granted";
      onclick: (() => void) | null = null;
      constructor(title: string, opts: { body: string }) {
        shown.push({ title, body: opts.body });
      }
      close() {}
    }
    (window as unknown as { Notification: unknown }).Notification = RecordedNotification;
    const hasFocus = document.hasFocus.bind(document);
    document.hasFocus = () => !(window as unknown as { away?: boolean }).away && hasFocus();
  });
  const page = await context.newPage();
  return { context, page };
}

async function api<T>(token: string, path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> {
  const r = await fetch(`${app.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin: app.url },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.ok, `${method} ${path}: ${r.status} ${await r.clone().text()}`).toBe(true);
  return (await r.json()) as T;
}

/** The three unread badges of a page: the popup's button or header, the sidebar entry, and the title. */
async function expectUnread(page: Page, n: number) {
  const nav = page.getByRole("navigation", { name: "Main" });
  const chatLink = nav.getByRole("link", { name: /Chat & Replies/ });
  if (n > 0) {
    await expect(chatLink.getByLabel(`${n} unread`)).toBeVisible();
    await expect(page).toHaveTitle(`(${n}) ${TITLE}`);
  } else {
    await expect(chatLink.getByLabel(/unread/)).toHaveCount(0);
    await expect(page).toHaveTitle(TITLE);
  }
  const popup = page.getByRole("region", { name: "Chat" });
  if (await popup.isVisible()) {
    if (n > 0) await expect(popup.getByText(`${n} new`)).toBeVisible();
    else await expect(popup.getByText(/\d+ new/)).toHaveCount(0);
  } else {
    await expect(page.getByRole("button", { name: n > 0 ? `Open chat (${n} unread)` : "Open chat" })).toBeVisible();
  }
}

/** The contact texts the account, typed into the simulator's "Simulate a reply" form on Phone Settings. */
async function simulateReply(page: Page, from: string, text: string) {
  // The same account's popup opens on this browser too: closed, it covers nothing of the form.
  const popup = page.getByRole("region", { name: "Chat" });
  if (await popup.isVisible()) await popup.getByRole("button", { name: "Close chat", exact: true }).click();
  const form = page.locator("details").filter({ hasText: "Simulate a reply" });
  if ((await form.getAttribute("open")) === null) await form.getByText("Simulate a reply").click();
  await form.getByLabel("From").fill(from);
  await form.getByLabel("Message").fill(text);
  await form.getByRole("button", { name: "Simulate reply" }).click();
  // Accepted: the form empties its message.
  await expect(form.getByLabel("Message")).toHaveValue("");
}

test("an inbound text opens the popup, is answered from it and read on /chat; the badges count up and clear on both browsers", async ({
  browser,
}) => {
  const email = `chat${Date.now()}@example.com`;
  const token = await app.verifiedAccount({ email });
  await api(token, "/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await api<{ id: string }>(token, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await api(token, "/api/phone-numbers", {
    providerId: provider.id,
    phoneNumber: "+14155550100",
    displayName: "Main line",
    isDefault: true,
  });
  await api(token, "/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: "+14155550123", tags: ["vip"] });

  // The desk: the user at the dashboard. The phone: the same account in a second browser, playing the contact.
  const desk = await signedInContext(browser, token);
  const phone = await signedInContext(browser, token);
  await desk.page.goto(app.url);
  await expect(desk.page.getByRole("heading", { name: /Welcome/ })).toBeVisible();
  await expectUnread(desk.page, 0);
  await phone.page.goto(`${app.url}/phone-settings`);
  await expect(phone.page.getByText("Simulate a reply")).toBeVisible();
  // The popup, opened by hand: nothing yet, and the live connection's dot is green. Minimised, not closed: a popup
  // the user closes stays closed (chat-popup.pw.ts).
  const popup = desk.page.getByRole("region", { name: "Chat" });
  await desk.page.getByRole("button", { name: "Open chat" }).click();
  await expect(popup.getByText("No conversations yet")).toBeVisible();
  await expect(popup.getByTestId("connection-dot")).toHaveClass(/bg-green-500/);
  await popup.getByRole("button", { name: "Minimise chat" }).click();

  // 1. The contact writes: the desk's popup opens on the thread, a toast previews it, every badge counts 1.
  const first = "Hi! Is the shop open on Sunday? I would like to pick up the flowers I ordered for my mother's birthday party.";
  await simulateReply(phone.page, "+14155550123", first);
  await expect(popup).toBeVisible();
  await expect(popup.getByTestId("popup-thread-name")).toHaveText("Ada Lovelace");
  await expect(popup.getByTestId("chat-messages")).toContainText(first);
  const toast = desk.page.getByTestId("toast");
  await expect(toast).toContainText("New message from Ada Lovelace");
  await expect(toast).toContainText(`${first.slice(0, 80)}…`);
  // Nobody touched the popup yet: the message stays unread, on both browsers.
  await expectUnread(desk.page, 1);
  await expectUnread(phone.page, 1);
  await desk.page.screenshot({ path: `${shots}/chat-01-popup-inbound-1280.png` });

  // 2. The answer, from the popup: Enter sends; the reply shows its delivery; reading it clears every badge.
  const box = popup.getByRole("textbox", { name: "Your reply" });
  await box.fill("Yes, 10 to 4.");
  await box.press("Shift+Enter");
  await box.pressSequentially("See you Sunday!");
  await expect(box).toHaveValue("Yes, 10 to 4.\nSee you Sunday!");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const reply = popup.locator('li[data-direction="outbound"]').filter({ hasText: "See you Sunday!" });
  await expect(reply).toHaveCount(1);
  await expect(reply.getByTestId("delivery-status")).toHaveText(" · Delivered", { timeout: 15_000 });
  await expectUnread(desk.page, 0);
  await expectUnread(phone.page, 0);

  // A double click on Send sends once: one bubble, one message on the server.
  await box.fill("Double check");
  await popup.getByRole("button", { name: "Send reply" }).dblclick();
  await expect(popup.locator('li[data-direction="outbound"]').filter({ hasText: "Double check" })).toHaveCount(1);

  // 3. Minimised to its header; a second text while the desk is away opens it again, notifies and counts 1.
  await popup.getByRole("button", { name: "Minimise chat" }).click();
  await expect(popup.getByRole("textbox", { name: "Your reply" })).toHaveCount(0);
  await desk.page.evaluate(() => ((window as unknown as { away: boolean }).away = true));
  await simulateReply(phone.page, "+14155550123", "Great, thank you!");
  await expect(popup.getByTestId("chat-messages")).toContainText("Great, thank you!");
  await expect
    .poll(() => desk.page.evaluate(() => (window as unknown as { shownNotifications: unknown[] }).shownNotifications))
    .toEqual([{ title: "New message from Ada Lovelace", body: "Great, thank you!" }]);
  await desk.page.evaluate(() => ((window as unknown as { away: boolean }).away = false));
  await expectUnread(desk.page, 1);
  await popup.getByRole("button", { name: "Close chat", exact: true }).click();
  await expectUnread(desk.page, 1);

  // 4. Read on /chat: the list shows the unread count; opening the thread shows it all in order and clears the badges.
  await desk.page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: /Chat & Replies/ })
    .click();
  await expect(desk.page.getByRole("heading", { name: "Chat & Replies" })).toBeVisible();
  const row = desk.page
    .getByRole("list", { name: "Conversation list" })
    .getByRole("listitem")
    .filter({ hasText: "Ada Lovelace" });
  await expect(row.getByLabel("1 unread")).toBeVisible();
  await expect(row).toContainText("Great, thank you!");
  await row.getByRole("button").click();
  await expect(desk.page.getByTestId("thread-name")).toHaveText("Ada Lovelace");
  const thread = desk.page.getByTestId("chat-messages").last();
  await expect(thread.getByRole("listitem").filter({ hasText: /\S/ })).toHaveText([
    new RegExp(escape(first)),
    /Yes, 10 to 4\.\s*See you Sunday!/,
    /Double check/,
    /Great, thank you!/,
  ]);
  await expectUnread(desk.page, 0);
  // The read is pushed to the other browser too.
  await expectUnread(phone.page, 0);
  await expect(desk.page.getByRole("complementary", { name: "Contact" })).toContainText("vip");
  await expect(desk.page.getByRole("complementary", { name: "Contact" })).toContainText("Subscribed");
  await desk.page.screenshot({ path: `${shots}/chat-02-chat-page-1280.png` });

  // The server holds each message once, in that order.
  const list = await api<{ data: { id: number }[] }>(token, "/api/conversations");
  const messages = await api<{ content: string }[]>(token, `/api/messages/${list.data[0]!.id}`);
  expect(messages.map((m) => m.content)).toEqual([first, "Yes, 10 to 4.\nSee you Sunday!", "Double check", "Great, thank you!"]);

  // A number that is not a contact texts in: it becomes one, which may be answered but has no marketing consent.
  // On /chat it shows a toast, not the popup over the thread.
  await simulateReply(phone.page, "+14155550131", "Who is this?");
  await expect(desk.page.getByTestId("toast")).toContainText("New message from +14155550131");
  await expect(popup).toHaveCount(0);
  const stranger = desk.page
    .getByRole("list", { name: "Conversation list" })
    .getByRole("listitem")
    .filter({ hasText: "555-0131" });
  await stranger.getByRole("button").click();
  const contactPanel = desk.page.getByRole("complementary", { name: "Contact" });
  await expect(contactPanel).toContainText("No marketing consent");
  await expect(contactPanel).toContainText(
    "They texted you first: you can reply, but campaigns leave them out until they opt in",
  );

  // Over one segment the counter warns; the box stops at 1,600 characters.
  const pageBox = desk.page.getByRole("textbox", { name: "Your reply" });
  await pageBox.fill("x".repeat(161));
  await expect(desk.page.getByTestId("chat-length")).toHaveText(
    "161/1600 · Longer than one text: this reply is billed as 2 segments.",
  );
  await pageBox.fill("y".repeat(1700));
  await expect(pageBox).toHaveValue("y".repeat(1600));
  await pageBox.fill("");
  await expectUnread(desk.page, 0);

  // 5. Send Message on a contact opens the chat panel on the same thread; a text sent there joins it.
  await desk.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Customer Lists" }).click();
  await desk.page.getByRole("button", { name: "Actions for Ada Lovelace" }).click();
  await desk.page.getByRole("menuitem", { name: "Send Message" }).click();
  const panel = desk.page.getByRole("dialog", { name: "Chat with Ada Lovelace" });
  await expect(panel.getByTestId("chat-messages")).toContainText("Great, thank you!");
  await panel.getByRole("textbox", { name: "Your reply" }).fill("Your flowers are ready.");
  await panel.getByRole("textbox", { name: "Your reply" }).press("Enter");
  await expect(panel.locator('li[data-direction="outbound"]').filter({ hasText: "Your flowers are ready." })).toHaveCount(1);
  await desk.page.screenshot({ path: `${shots}/chat-03-contact-panel-1280.png` });
  await panel.getByRole("button", { name: "Close chat with Ada Lovelace" }).click();
  await desk.page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: /Chat & Replies/ })
    .click();

  // 6. A phone-sized screen: the list, then the thread alone, and the popup.
  await desk.page.setViewportSize(PHONE);
  await desk.page.reload();
  await expect(desk.page.getByRole("heading", { name: "Chat & Replies" })).toBeVisible();
  await desk.page.screenshot({ path: `${shots}/chat-04-chat-list-390.png` });
  await row.getByRole("button").click();
  await expect(desk.page.getByTestId("thread-name")).toHaveText("Ada Lovelace");
  await desk.page.screenshot({ path: `${shots}/chat-05-chat-thread-390.png` });
  // The thread's Send button is where the popup's button would be: the button waits for the list.
  await expect(desk.page.getByRole("button", { name: "Open chat" })).toBeHidden();
  await desk.page.getByRole("button", { name: "Back to conversations" }).click();
  await desk.page.getByRole("button", { name: "Open chat" }).click();
  await desk.page.screenshot({ path: `${shots}/chat-06-popup-390.png` });

  await desk.context.close();
  await phone.context.close();
});

test("/real-time-demo: an administrator watches a campaign's delivery arrive over the socket, archives and deletes campaigns", async ({
  browser,
}) => {
  const login = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.url },
    body: JSON.stringify(ADMIN),
  });
  expect(login.status).toBe(200);
  const { token } = (await login.json()) as { token: string };
  await api(token, "/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await api<{ id: string }>(token, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await api(token, "/api/phone-numbers", {
    providerId: provider.id,
    phoneNumber: "+14155550100",
    displayName: "Main line",
    isDefault: true,
  });
  // Three numbers the simulator delivers to, one it reports failed (30003).
  const sale = await api<{ id: string }>(token, "/api/campaigns", {
    type: "sms",
    name: "Spring sale",
    content: "Spring sale: 20% off today",
    recipients: ["+14155550101", "+14155550102", "+14155550103", "+14155550150"],
  });
  await api(token, "/api/campaigns", { type: "sms", name: "Draft idea", content: "Maybe later", recipients: ["+14155550104"] });

  const { context, page } = await signedInContext(browser, token);
  await page.goto(`${app.url}/real-time-demo`);
  await expect(page.getByRole("heading", { name: "Real-Time Demo" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Real-Time Demo" })).toBeVisible();
  // The administrator's entries, in the spec's order (Backup Manager was missing).
  const adminEntries = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^(Admin Panel|Backup Manager|Real-Time Demo)$/ });
  await expect(adminEntries).toHaveText(["Admin Panel", "Backup Manager", "Real-Time Demo"]);
  await expect(page.getByText("Connected", { exact: true })).toBeVisible();
  const saleRow = page.getByTestId("demo-campaign").filter({ hasText: "Spring sale" });
  await expect(saleRow).toContainText("Draft");

  // Sent while the page is open: the counts come over the socket (the page polls only while it is disconnected).
  await api(token, `/api/campaigns/${sale.id}/send`, {});
  await expect(saleRow).toContainText("Delivered 3", { timeout: 15_000 });
  await expect(saleRow).toContainText("Failed 1");
  await expect(saleRow).toContainText("Completed");
  await page.screenshot({ path: `${shots}/chat-07-real-time-demo-1280.png` });

  // Both archived at once; they move to the Archived tab, where one is deleted after the app's question.
  await page.getByRole("checkbox", { name: "Select all on this page" }).check();
  await page.getByRole("button", { name: "Archive" }).click();
  await expect(page.getByTestId("toast")).toContainText("2 campaigns archived");
  await expect(page.getByText("No campaigns yet.")).toBeVisible();
  await page.getByRole("tab", { name: "Archived" }).click();
  await expect(page.getByTestId("demo-campaign")).toHaveCount(2);
  await page.getByRole("checkbox", { name: "Select Draft idea" }).check();
  await page.getByRole("button", { name: "Delete" }).click();
  const question = page.getByRole("dialog", { name: "Delete campaigns" });
  await expect(question).toContainText("Delete 1 campaign and their delivery records? This cannot be undone.");
  await question.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("toast")).toContainText("1 campaign deleted");
  await expect(page.getByTestId("demo-campaign")).toHaveText([/Spring sale/]);

  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${shots}/chat-08-real-time-demo-390.png` });
  await context.close();
});

test("a long thread shows its newest 50 messages and loads the earlier ones on request", async ({ browser }) => {
  const token = await app.verifiedAccount({ email: `history${Date.now()}@example.com` });
  const provider = await api<{ id: string }>(token, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await api(token, "/api/phone-numbers", {
    providerId: provider.id,
    phoneNumber: "+14155550100",
    displayName: "Main line",
    isDefault: true,
  });
  await api(token, "/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550124" });
  for (let i = 1; i <= 55; i++) {
    const r = await fetch(`${app.url}/api/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        origin: app.url,
        "idempotency-key": `history-${i}`,
      },
      body: JSON.stringify({ phone: "+14155550124", content: `Note ${i}`, direction: "outbound" }),
    });
    expect(r.status, await r.clone().text()).toBeLessThan(300);
  }
  const { context, page } = await signedInContext(browser, token);
  await page.goto(`${app.url}/chat`);
  await page.getByRole("list", { name: "Conversation list" }).getByRole("button").filter({ hasText: "Grace Hopper" }).click();
  const bubbles = page.getByTestId("chat-messages").locator("li[data-direction]");
  await expect(bubbles).toHaveCount(50);
  await expect(bubbles.first()).toContainText("Note 6");
  await expect(bubbles.last()).toContainText("Note 55");
  await page.getByRole("button", { name: "Load earlier messages" }).click();
  await expect(bubbles).toHaveCount(55);
  await expect(bubbles.first()).toContainText("Note 1");
  await expect(page.getByRole("button", { name: "Load earlier messages" })).toHaveCount(0);
  await context.close();
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
