// The installable app and the lighter UI, in Chromium: the landing page's JavaScript as the browser downloads it,
// the service worker's app shell offline after one visit, /pwa-demo's status rows and install flow, the install
// card, and /test-error-demo's four buttons.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { Appliance } from "./harness";

const ADMIN = { email: "root@example.com", password: "correct-horse-battery-staple" };

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
});
test.afterAll(async () => {
  await app.stop();
});

async function signedIn(browser: Browser, email: string): Promise<Page> {
  const context = await browser.newContext();
  await app.verifiedAccount({ email }, context.request);
  return context.newPage();
}

/** Chromium's install offer, as the browser would fire it; `decide` answers the user's choice in its dialog. */
async function offerInstall(page: Page) {
  await page.evaluate(() => {
    const event = new Event("beforeinstallprompt", { cancelable: true }) as Event & Record<string, unknown>;
    let decide!: (outcome: string) => void;
    event.userChoice = new Promise((resolve) => (decide = (outcome) => resolve({ outcome, platform: "web" })));
    event.prompt = async () => {};
    (window as unknown as { decide: typeof decide }).decide = decide;
    window.dispatchEvent(event);
  });
}

test("the landing page loads one small script and none of the app; after one visit the app shell opens offline", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(app.url);
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  const scripts = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((e) => new URL(e.name).pathname.endsWith(".js"))
      .map((e) => ({ path: new URL(e.name).pathname, bytes: (e as PerformanceResourceTiming).encodedBodySize })),
  );
  const total = scripts.reduce((n, s) => n + s.bytes, 0);
  console.log(`landing page JavaScript in Chromium: ${scripts.map((s) => `${s.path} ${s.bytes} bytes`).join(", ")}`);
  expect(scripts).toHaveLength(1);
  expect(scripts[0]!.path).toMatch(/^\/assets\/index-[a-z0-9]{8}\.js$/);
  // Brotli on the wire, well under the 150 KB budget.
  expect(total).toBeLessThanOrEqual(150_000);

  // The service worker is active once its precache of the shell is complete.
  expect(await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL)).toBe(`${app.url}/sw.js`);

  // The connection drops while the page is open: the banner says so. (Chromium 150 under Playwright's offline
  // emulation says navigator.onLine is true again in a reloaded document, so the banner is checked before the reload.)
  await context.setOffline(true);
  await expect(page.getByText("No internet connection. Some features may not work.")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  // Screens never opened before: their chunks came with the precache.
  for (const path of ["/pricing", "/features"]) {
    await page.goto(`${app.url}${path}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  }
  // A navigation outside the app (a download, the API) gets the offline page.
  await page.goto(`${app.url}/api/health`);
  await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
  await context.setOffline(false);
  await context.close();
});

/**
 * The appliance behind a small proxy that can hand out a different /sw.js, as an upgraded appliance would (a new
 * build's precache revisions change it); Chromium fetches a worker's script itself, out of Playwright's routing.
 */
async function upgradableProxy() {
  let nextVersion = false;
  const server = createServer(async (req, res) => {
    const upstream = await fetch(`${app.url}${req.url}`, { headers: { accept: req.headers.accept ?? "*/*" } });
    let body = Buffer.from(await upstream.arrayBuffer());
    if (req.url === "/sw.js" && nextVersion) body = Buffer.concat([body, Buffer.from("\n// the next version\n")]);
    const headers = Object.fromEntries([...upstream.headers].filter(([k]) => !["content-encoding", "content-length"].includes(k)));
    res.writeHead(upstream.status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    upgrade: () => (nextVersion = true),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test("a new version of the UI: 'Update available', and Reload brings the page under the new service worker", async ({ browser }) => {
  const proxy = await upgradableProxy();
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(proxy.url);
  await page.evaluate(async () => void (await navigator.serviceWorker.ready));
  // Controlled by the worker from the next load on, as a returning visitor is.
  await page.reload();
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${proxy.url}/sw.js`);
  await expect(page.getByText("Update available")).toHaveCount(0);

  proxy.upgrade();
  await page.evaluate(async () => void (await (await navigator.serviceWorker.getRegistration())!.update()));
  const prompt = page.getByRole("status").filter({ hasText: "Update available: a new version of smsdesk is ready." });
  await expect(prompt).toBeVisible();
  const before = await page.evaluate(() => performance.timeOrigin);
  await prompt.getByRole("button", { name: "Reload" }).click();
  await expect.poll(() => page.evaluate(() => performance.timeOrigin).catch(() => before)).not.toBe(before);
  await expect(page.getByRole("button", { name: "Get Started" }).first()).toBeVisible();
  await expect(page.getByText("Update available")).toHaveCount(0);
  // The new worker controls the page; none is left waiting.
  expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.waiting)).toBeNull();
  await context.close();
  await proxy.close();
});

test("/pwa-demo: the status rows, Install Now through the browser's dialog, and the install card's Later", async ({ browser }) => {
  const page = await signedIn(browser, "installer@example.com");
  await page.goto(`${app.url}/pwa-demo`);
  await expect(page.getByRole("heading", { name: "Install the App" })).toBeVisible();
  const rows = page.locator('dl[aria-label="App status"]');
  await expect(rows).toContainText("PWA supportSupported");
  await expect(rows).toContainText("Service workerActive");
  await expect(rows).toContainText("App statusWeb Version");
  await expect(rows).toContainText("Display modeBrowser");

  // No offer from the browser yet: Install Now says what to do instead.
  await page.getByRole("button", { name: "Install Now" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "This browser has not offered to install smsdesk" })).toBeVisible();

  await offerInstall(page);
  await expect(page.getByText("Your browser can install smsdesk now.")).toBeVisible();
  // The card stays away from the page that has its own button.
  await expect(page.getByRole("dialog", { name: "Install smsdesk" })).toHaveCount(0);
  await page.getByRole("button", { name: "Install Now" }).click();
  await expect(page.getByRole("button", { name: "Installing..." })).toBeDisabled();
  await page.evaluate(() => {
    (window as unknown as { decide: (o: string) => void }).decide("accepted");
    window.dispatchEvent(new Event("appinstalled"));
  });
  await expect(page.getByText("smsdesk is installed on this device.")).toBeVisible();
  await expect(rows).toContainText("App statusInstalled");

  // Another page, another offer: the card, bottom right; Later hides it on this device.
  await page.goto(`${app.url}/templates`);
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await offerInstall(page);
  const card = page.getByRole("dialog", { name: "Install smsdesk" });
  await expect(card).toBeVisible();
  await expect(card.getByRole("button", { name: "Install" })).toBeVisible();
  await card.getByRole("button", { name: "Later" }).click();
  await expect(card).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await offerInstall(page);
  // Renders have run since the offer (another screen opened in the app): still no card this week.
  await page.getByRole("link", { name: "Sent Messages" }).first().click();
  await expect(page).toHaveURL(`${app.url}/sent-messages`);
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await expect(card).toHaveCount(0);
  await page.context().close();
});

test("/test-error-demo: a render error, an uncaught error, a rejection and a report that reaches the administrators", async ({ browser }) => {
  const page = await signedIn(browser, "tester@example.com");
  await page.goto(`${app.url}/test-error-demo`);
  await expect(page.getByRole("heading", { name: "Error Reporting Test" })).toBeVisible();

  await page.getByRole("button", { name: "Throw a render error" }).click();
  await expect(page.getByRole("heading", { name: "Something went wrong" })).toBeVisible();
  await expect(page.getByText("Test render error from /test-error-demo")).toBeVisible();
  await page.getByRole("button", { name: "Try Again" }).click();
  await expect(page.getByRole("button", { name: "Throw a render error" })).toBeVisible();

  const card = page.getByRole("alert").filter({ hasText: "Error" });
  await page.getByRole("button", { name: "Throw an uncaught error" }).click();
  await expect(card.filter({ hasText: "Test uncaught error from /test-error-demo" })).toBeVisible();
  await card.getByRole("button", { name: "Dismiss" }).click();
  await page.getByRole("button", { name: "Reject a promise" }).click();
  await expect(card.filter({ hasText: "Test unhandled rejection from /test-error-demo" })).toBeVisible();
  await card.getByRole("button", { name: "Dismiss" }).click();

  await page.getByRole("button", { name: "Send a test report" }).click();
  await expect(page.getByText("✓ Report sent")).toBeVisible();
  const login = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.url },
    body: JSON.stringify(ADMIN),
  });
  const { token } = (await login.json()) as { token: string };
  const reports = (await (await fetch(`${app.url}/api/admin/error-reports`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: { message: string; url: string }[];
  };
  expect(reports.data.map((r) => [r.message, r.url])).toContainEqual(["Test error report from /test-error-demo", `${app.url}/test-error-demo`]);
  await page.context().close();
});

test("/email-campaigns: the Soon page, leading to text campaigns", async ({ browser }) => {
  const page = await signedIn(browser, "emailer@example.com");
  await page.goto(`${app.url}/email-campaigns`);
  await expect(page.getByRole("heading", { name: "Email Marketing" })).toBeVisible();
  await expect(page.getByText("Soon", { exact: true })).toBeVisible();
  await page.getByRole("link", { name: "Send a text campaign" }).click();
  await expect(page).toHaveURL(`${app.url}/sms-campaigns`);
  await page.context().close();
});

test("the signed-in app loads each screen's code when it opens: /chat's only once Chat & Replies is clicked", async ({ browser }) => {
  const page = await signedIn(browser, "chunks@example.com");
  const scripts = () =>
    page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname).filter((p) => p.endsWith(".js")));
  await page.goto(`${app.url}/email-campaigns`);
  await expect(page.getByRole("heading", { name: "Email Marketing" })).toBeVisible();
  expect((await scripts()).some((p) => /^\/assets\/email-campaigns-page-[a-z0-9]{8}\.js$/.test(p))).toBe(true);
  expect((await scripts()).filter((p) => p.includes("chat-page"))).toEqual([]);
  await page.getByRole("link", { name: "Chat & Replies" }).first().click();
  await expect(page).toHaveURL(`${app.url}/chat`);
  await expect.poll(async () => (await scripts()).filter((p) => /^\/assets\/chat-page-[a-z0-9]{8}\.js$/.test(p)).length).toBe(1);
  await page.context().close();
});

test("a page opened before an upgrade (no service worker) reloads into the new version when a chunk is gone", async ({ browser }) => {
  // Plain http on a LAN address has no service worker; the old chunk then really is gone from the server.
  const context = await browser.newContext({ serviceWorkers: "block" });
  await app.verifiedAccount({ email: "upgraded@example.com" }, context.request);
  const page = await context.newPage();
  await page.goto(`${app.url}/email-campaigns`);
  await expect(page.getByRole("heading", { name: "Email Marketing" })).toBeVisible();
  let refused = 0;
  await context.route(/\/assets\/chat-page-[a-z0-9]{8}\.js$/, (route) =>
    refused++ === 0 ? route.fulfill({ status: 404, body: "Not found" }) : route.continue(),
  );
  const before = await page.evaluate(() => performance.timeOrigin);
  await page.getByRole("link", { name: "Chat & Replies" }).first().click();
  await expect(page.getByText("Select a conversation").first()).toBeVisible();
  expect(await page.evaluate(() => performance.timeOrigin)).not.toBe(before);
  expect(refused).toBe(2);
  await context.close();
});
