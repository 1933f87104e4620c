// Issue 28 item 6: the chat popup stays out of the way. On /chat an inbound text shows a toast (its action opens
// the thread on the page), never the popup over the thread and its Send button; a popup the user closed stays
// closed, across pages and reloads, until they open it; threads are marked read and unread, one at a time (the
// thread's menu) and in bulk (the list's selection). Screenshots at 1280 and 390 px go to dist/screenshots/chat-popup/.
import { expect, test, type Page, type WebSocket } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Appliance } from "./harness";

const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "dist", "screenshots", "chat-popup");
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const NUMBER = "+14155550100";
const ADA = "+14155550123";
const BO = "+14155550124";
const CY = "+14155550125";

let app: Appliance;
test.beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

async function api<T>(token: string, path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> {
  const r = await fetch(`${app.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin: app.url },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.ok, `${method} ${path}: ${r.status} ${await r.clone().text()}`).toBe(true);
  return (await r.json()) as T;
}

let texts = 0;
/** The contact texts the account: the simulator's inbound webhook, as the provider posts it. */
async function inbound(webhookUrl: string, from: string, body: string) {
  const url = new URL(new URL(webhookUrl).pathname + new URL(webhookUrl).search, app.url);
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ events: [{ type: "inbound", id: `IN-popup-${++texts}`, from, to: NUMBER, body }] }),
  });
  expect(r.status).toBe(200);
}

/** Runs `load` (a reload) and waits for the page's new socket to say it is live: a text sent before would not reach it. */
async function live(page: Page, load: () => Promise<unknown>) {
  let ready: Promise<unknown> | undefined;
  const onSocket = (ws: WebSocket) => (ready ??= ws.waitForEvent("framereceived", { predicate: (f) => String(f.payload).includes('"type":"ready"') }));
  page.on("websocket", onSocket);
  await load();
  await expect.poll(() => ready !== undefined).toBe(true);
  await ready;
  page.off("websocket", onSocket);
}

const popupOf = (page: Page) => page.getByRole("region", { name: "Chat" });
const rowOf = (page: Page, name: string) =>
  page.getByRole("list", { name: "Conversation list" }).getByRole("listitem").filter({ hasText: name });

test("on /chat a text shows a toast, not the popup; a closed popup stays closed across reloads until opened; threads marked read and unread, one and in bulk", async ({
  browser,
}) => {
  const token = await app.verifiedAccount({ email: `popup${Date.now()}@example.com` });
  await api(token, "/api/user/settings", { quietHoursEnabled: false }, "PATCH");
  const provider = await api<{ id: string; webhookUrl: string }>(token, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await api(token, "/api/phone-numbers", { providerId: provider.id, phoneNumber: NUMBER, displayName: "Main line", isDefault: true });
  await api(token, "/api/contacts", { firstName: "Ada", lastName: "Lovelace", phone: ADA });
  await api(token, "/api/contacts", { firstName: "Bo", lastName: "Diddley", phone: BO });
  await api(token, "/api/contacts", { firstName: "Cy", lastName: "Twombly", phone: CY });

  const context = await browser.newContext({ viewport: DESKTOP });
  await app.signInContext(context, token);
  const page = await context.newPage();
  const popup = popupOf(page);
  const toast = page.getByTestId("toast");

  // 1. On /chat, with the popup never closed: a text shows a toast and no popup; its Open action opens the thread here.
  await page.goto(`${app.url}/chat`);
  await expect(page.getByRole("heading", { name: "Chat & Replies" })).toBeVisible();
  await expect(page.getByText("Connected", { exact: true })).toBeVisible();
  await inbound(provider.webhookUrl, ADA, "Are you open on Sunday?");
  await expect(toast).toContainText("New message from Ada Lovelace");
  // At the top: the bottom of /chat is its reply box.
  expect((await toast.boundingBox())!.y).toBeLessThan(100);
  await expect(rowOf(page, "Ada Lovelace").getByLabel("1 unread")).toBeVisible();
  await expect(popup).toHaveCount(0);
  await toast.getByRole("button", { name: "Open" }).click();
  await expect(page.getByTestId("thread-name")).toHaveText("Ada Lovelace");
  await expect(rowOf(page, "Ada Lovelace").getByLabel(/unread/)).toHaveCount(0);

  // A second text while her thread is open: it joins the thread, with no toast nor popup over it, and Send answers it.
  await inbound(provider.webhookUrl, ADA, "And is parking free?");
  const thread = page.getByTestId("chat-messages");
  await expect(thread).toContainText("And is parking free?");
  await expect(toast.filter({ hasText: "And is parking free?" })).toHaveCount(0);
  await expect(popup).toHaveCount(0);
  await page.getByRole("textbox", { name: "Your reply" }).fill("Yes to both, 10 to 4.");
  await page.getByRole("button", { name: "Send reply" }).click();
  await expect(thread.locator('li[data-direction="outbound"]').filter({ hasText: "Yes to both, 10 to 4." })).toHaveCount(1);
  await page.screenshot({ path: join(shots, "01-chat-inbound-toast-1280.png") });

  // 2. Elsewhere the popup opens on a text by itself, until the user closes it.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();
  await inbound(provider.webhookUrl, BO, "Can I change my order?");
  await expect(popup.getByTestId("popup-thread-name")).toHaveText("Bo Diddley");
  await popup.getByRole("button", { name: "Close chat", exact: true }).click();
  await expect(popup).toHaveCount(0);
  await inbound(provider.webhookUrl, CY, "Do you deliver?");
  await expect(toast).toContainText("New message from Cy Twombly");
  await expect(page.getByRole("button", { name: "Open chat (2 unread)" })).toBeVisible();
  await expect(popup).toHaveCount(0);
  // Closed stays closed after a reload too.
  await live(page, () => page.reload());
  await expect(page.getByRole("button", { name: "Open chat (2 unread)" })).toBeVisible();
  await inbound(provider.webhookUrl, CY, "Before noon if possible.");
  await expect(toast).toContainText("New message from Cy Twombly");
  await expect(page.getByRole("button", { name: "Open chat (3 unread)" })).toBeVisible();
  await expect(popup).toHaveCount(0);
  await page.screenshot({ path: join(shots, "02-closed-popup-stays-closed-1280.png") });
  // Opened by the user, it opens again by itself for the next text.
  // (On a wide screen it opens on the first thread waiting, Cy's, which is read once shown.)
  await page.getByRole("button", { name: "Open chat (3 unread)" }).click();
  await expect(popup.getByTestId("popup-thread-name")).toHaveText("Cy Twombly");
  await expect(popup.getByText("1 new")).toBeVisible();
  await popup.getByRole("button", { name: "Minimise chat" }).click();
  await inbound(provider.webhookUrl, ADA, "Thanks!");
  await expect(popup.getByTestId("popup-thread-name")).toHaveText("Ada Lovelace");
  await popup.getByRole("button", { name: "Close chat", exact: true }).click();

  // 3. Read and unread on /chat: Ada 1 unread (her "Thanks!", shown in a popup nobody touched), Bo 1, Cy read.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /Chat & Replies/ }).click();
  await expect(rowOf(page, "Ada Lovelace").getByLabel("1 unread")).toBeVisible();
  await expect(rowOf(page, "Bo Diddley").getByLabel("1 unread")).toBeVisible();
  await expect(rowOf(page, "Cy Twombly").getByLabel(/unread/)).toHaveCount(0);
  // In bulk: Ada and Bo read.
  await page.getByRole("checkbox", { name: "Select Ada Lovelace" }).check();
  await page.getByRole("checkbox", { name: "Select Bo Diddley" }).check();
  await page.getByRole("button", { name: "Mark read", exact: true }).click();
  await expect(toast).toContainText("2 conversations marked read");
  await expect(rowOf(page, "Ada Lovelace").getByLabel(/unread/)).toHaveCount(0);
  await expect(rowOf(page, "Bo Diddley").getByLabel(/unread/)).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Open chat" })).toBeVisible();
  // In bulk: Bo and Cy unread (each its contact's newest text).
  await page.getByRole("checkbox", { name: "Select Bo Diddley" }).check();
  await page.getByRole("checkbox", { name: "Select Cy Twombly" }).check();
  await page.getByRole("button", { name: "Mark unread", exact: true }).click();
  await expect(toast).toContainText("2 conversations marked unread");
  await expect(rowOf(page, "Bo Diddley").getByLabel("1 unread")).toBeVisible();
  await expect(rowOf(page, "Cy Twombly").getByLabel("1 unread")).toBeVisible();
  // One at a time: Ada's thread read by opening it, then marked unread from its menu (which closes it).
  await rowOf(page, "Ada Lovelace").getByRole("button").click();
  await expect(page.getByTestId("thread-name")).toHaveText("Ada Lovelace");
  await expect(rowOf(page, "Ada Lovelace").getByLabel(/unread/)).toHaveCount(0);
  await page.getByRole("button", { name: "Conversation actions" }).click();
  await page.getByRole("menuitem", { name: "Mark unread" }).click();
  await expect(toast).toContainText("Conversation marked unread");
  await expect(page.getByTestId("thread-name")).toHaveCount(0);
  await expect(rowOf(page, "Ada Lovelace").getByLabel("1 unread")).toBeVisible();
  await page.getByRole("tab", { name: "Unread" }).click();
  await expect(page.getByRole("list", { name: "Conversation list" }).getByRole("listitem")).toHaveCount(3);
  await expect(page.getByRole("button", { name: "Open chat (3 unread)" })).toBeVisible();
  await page.getByRole("checkbox", { name: "Select Ada Lovelace" }).check();
  await page.screenshot({ path: join(shots, "03-read-unread-1280.png") });
  const unread = await api<{ unreadTotal: number; unreadConversations: number }>(token, "/api/conversations/unread");
  expect(unread).toEqual({ unreadTotal: 3, unreadConversations: 3 });

  // 4. A phone: the selection's actions fit; on a thread its own text shows in it, another's a toast at the top, no
  // popup, and the Send button stays clear.
  await page.setViewportSize(PHONE);
  await live(page, () => page.reload());
  await page.getByRole("checkbox", { name: "Select Bo Diddley" }).check();
  await expect(page.getByRole("button", { name: "Mark unread", exact: true })).toBeVisible();
  await page.screenshot({ path: join(shots, "04-selection-390.png") });
  await page.getByRole("checkbox", { name: "Select Bo Diddley" }).uncheck();
  await rowOf(page, "Bo Diddley").getByRole("button").click();
  await expect(page.getByTestId("thread-name")).toHaveText("Bo Diddley");
  await inbound(provider.webhookUrl, BO, "Actually, two bunches please.");
  await expect(page.getByTestId("chat-messages")).toContainText("Actually, two bunches please.");
  await expect(toast.filter({ hasText: "two bunches" })).toHaveCount(0);
  await inbound(provider.webhookUrl, CY, "Is 11 too late?");
  await expect(toast).toContainText("New message from Cy Twombly");
  expect((await toast.boundingBox())!.y).toBeLessThan(100);
  await expect(popup).toHaveCount(0);
  await page.screenshot({ path: join(shots, "05-thread-inbound-390.png") });
  await expect(page.getByRole("button", { name: "Send reply" })).toBeVisible();
  await page.getByRole("textbox", { name: "Your reply" }).fill("Two it is.");
  await page.getByRole("button", { name: "Send reply" }).click();
  await expect(page.getByTestId("chat-messages").locator('li[data-direction="outbound"]').filter({ hasText: "Two it is." })).toHaveCount(1);
  await context.close();
});

// The round button is fixed at the bottom right; the layout keeps room for it under every page, so the end of a
// page scrolls clear of it (a 51-contact list's Next at 390 px was under it, and a click on Next hit the button).
test("the round button covers nothing at the end of a page: the contact list's Next at 390 px", async ({ browser }) => {
  const token = await app.verifiedAccount({ email: `launcher${Date.now()}@example.com` });
  for (let batch = 0; batch < 51; batch += 17) {
    await Promise.all(
      Array.from({ length: 17 }, (_, i) =>
        api(token, "/api/contacts", { firstName: `Guest${batch + i}`, lastName: "Leeds", phone: `+1415555${2100 + batch + i}` }),
      ),
    );
  }
  const context = await browser.newContext({ viewport: PHONE });
  await app.signInContext(context, token);
  const page = await context.newPage();
  await page.goto(`${app.url}/contact-lists`);
  const summary = page.getByTestId("pagination-summary");
  await expect(summary).toHaveText("Showing 1–50 of 51");
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const next = page.getByRole("button", { name: "Next", exact: true });
  const launcher = page.getByRole("button", { name: "Open chat" });
  await expect(launcher).toBeVisible();
  await expect(next).toBeInViewport();
  const a = (await next.boundingBox())!;
  const b = (await launcher.boundingBox())!;
  const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  expect(overlap, `Next ${JSON.stringify(a)} under the round button ${JSON.stringify(b)}`).toBe(false);
  // The button ends above the round button's top, with the layout's margin between them.
  expect(a.y + a.height).toBeLessThanOrEqual(b.y);
  await page.screenshot({ path: join(shots, "10-contacts-next-clear-of-button-390.png") });
  await next.click({ timeout: 5000 });
  await expect(summary).toHaveText("Showing 51–51 of 51");
  await context.close();
});
