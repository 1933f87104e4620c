// Sent Messages (/sent-messages) with 45 campaigns written into the running appliance's database at known times:
// the server's search, date filters in the account's zone, orders, pages and CSV, as a user drives them; the
// provider banner when campaigns failed and no provider exists.
import { expect, test, type Page } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Appliance } from "./harness";

const root = join(import.meta.dirname, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-sent-messages-"));
let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start({ DATA_DIR: dataDir });
});
test.afterAll(async () => {
  await app.stop();
});

const DAY = 86_400_000;

/**
 * Writes the campaigns (name, days ago, recipients, status) with one delivered message per recipient, straight into
 * the database (WAL: the server keeps running); the messages triggers keep their counts.
 */
function seed(userId: string, campaigns: [name: string, daysAgo: number, recipients: number, status: string][]) {
  const code = `
    import { Database } from "bun:sqlite";
    const db = new Database(${JSON.stringify(join(dataDir, "smsdesk.db"))});
    db.exec("PRAGMA busy_timeout = 5000");
    const now = Date.now();
    const campaigns = ${JSON.stringify(campaigns)};
    db.transaction(() => {
      for (const [name, daysAgo, recipients, status] of campaigns) {
        const id = Bun.randomUUIDv7();
        const at = now - daysAgo * ${DAY} - 60_000;
        db.query("INSERT INTO campaigns (id, user_id, name, status, content, audience, created_at, sent_at, completed_at) VALUES (?, ?, ?, ?, ?, '{\\"kind\\":\\"all\\"}', ?, ?, ?)")
          .run(id, ${JSON.stringify(userId)}, name, status, "Hello from " + name, at, at, at);
        for (let i = 0; i < recipients; i++)
          db.query("INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, created_at, sent_at, delivered_at) VALUES (?, ?, ?, ?, 'x', 'outbound', ?, 'campaign', ?, ?, ?)")
            .run(Bun.randomUUIDv7(), ${JSON.stringify(userId)}, id, "+1312555" + String(1000 + i), status === "failed" ? "failed" : "delivered", at, at, status === "failed" ? null : at);
      }
    })();`;
  const r = spawnSync(join(root, "node_modules", ".bin", "bun"), ["-e", code], { cwd: root, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
}

async function apiAs(page: Page) {
  const session = await app.sessionHeaders(page);
  return async <T>(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> => {
    const r = await fetch(`${app.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...session },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(r.status, `${path}: ${await r.clone().text()}`).toBeLessThan(300);
    return (await r.json()) as T;
  };
}

const rowNames = (page: Page) => page.getByTestId("history-row").locator("p.font-medium").allTextContents();

test("search, date filters, orders and pages come from the server; the CSV holds every match; the banner names the missing provider", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await app.signUp(page, { email: `sent${Date.now()}@example.com` });
  const call = await apiAs(page);
  await call("/api/user/settings", { timezone: "America/New_York" }, "PATCH");
  const me = await call<{ id: string }>("/api/auth/user");
  // 40 weekly newsletters (1 to 40 recipients, one every two days from 2 days ago), and five named ones.
  const newsletters = Array.from({ length: 40 }, (_, i): [string, number, number, string] => [`Newsletter ${String(i + 1).padStart(2, "0")}`, 2 + 2 * i, i + 1, "completed"]);
  seed(me.id, [
    ...newsletters,
    ["Zebra Promo", 0, 3, "completed"],
    ["apple Offer", 5, 2, "completed"],
    ["Mango Launch", 10, 50, "completed"],
    ["Failed Blast", 20, 4, "failed"],
    ["Old Flyer", 100, 1, "completed"],
  ]);

  await page.goto(`${app.url}/sent-messages`);
  await expect(page.getByRole("heading", { name: "Sent Messages" })).toBeVisible();
  await expect(page.getByTestId("stat-Campaigns")).toHaveText("45");
  // Delivered: every recipient but the failed campaign's 4 (820 newsletter + 56 others).
  await expect(page.getByTestId("stat-Delivered")).toHaveText("876");
  // No provider, and a campaign failed: the spec's banner.
  await expect(page.getByRole("alert").filter({ hasText: "SMS Provider Not Configured" })).toBeVisible();

  // Newest first, 20 a page, 45 in all.
  await expect(page.getByTestId("history-row")).toHaveCount(20);
  expect((await rowNames(page)).slice(0, 3)).toEqual(["Zebra Promo", "Newsletter 01", "Newsletter 02"]);
  await page.getByRole("button", { name: /next/i }).click();
  await expect(page.getByTestId("history-row").first()).toContainText("Newsletter 17");
  await page.getByRole("button", { name: /next/i }).click();
  await expect(page.getByTestId("history-row")).toHaveCount(5);
  expect((await rowNames(page)).at(-1)).toBe("Old Flyer");

  // Orders (a change of order goes back to page 1).
  await page.getByLabel("Sort by").selectOption("recipients");
  await expect(page.getByTestId("history-row").first()).toContainText("Mango Launch");
  expect((await rowNames(page)).slice(0, 3)).toEqual(["Mango Launch", "Newsletter 40", "Newsletter 39"]);
  await page.getByLabel("Sort by").selectOption("name");
  await expect(page.getByTestId("history-row").first()).toContainText("apple Offer");
  await page.getByLabel("Sort by").selectOption("oldest");
  await expect(page.getByTestId("history-row").first()).toContainText("Old Flyer");

  // Search by name, then by a recipient's phone as typed.
  await page.getByLabel("Search").fill("mango");
  await expect(page.getByTestId("history-row")).toHaveCount(1);
  await expect(page.getByTestId("history-row")).toContainText("Mango Launch");
  await page.getByLabel("Search").fill("(312) 555-1045");
  await expect(page.getByTestId("history-row")).toHaveCount(1);
  await expect(page.getByTestId("history-row")).toContainText("Mango Launch");
  await page.getByLabel("Search").fill("");

  // Dates: today, the last 7 days, and a custom range whose end day is included.
  await page.getByLabel("Sort by").selectOption("newest");
  await page.getByLabel("Date").selectOption("today");
  await expect(page.getByTestId("history-row")).toHaveCount(1);
  await expect(page.getByTestId("history-row")).toContainText("Zebra Promo");
  await page.getByLabel("Date").selectOption("7d");
  await expect(page.getByTestId("history-row")).toHaveCount(5);
  await page.getByLabel("Date").selectOption("custom");
  const dayIn = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY - 60_000).toLocaleDateString("en-CA", { timeZone: "America/New_York" });
  await page.getByLabel("From").fill(dayIn(10));
  await page.getByLabel("To (inclusive)").fill(dayIn(10));
  await expect(page.getByTestId("history-row")).toHaveCount(2);
  expect((await rowNames(page)).sort()).toEqual(["Mango Launch", "Newsletter 05"]);
  await page.getByLabel("From").fill("2000-01-01");
  await page.getByLabel("To (inclusive)").fill("2000-01-02");
  await expect(page.getByText("No campaigns match these filters.")).toBeVisible();

  // The CSV: everything the filter matches (all 45 here), dated in the account's zone.
  await page.getByLabel("Date").selectOption("all");
  await expect(page.getByTestId("history-row")).toHaveCount(20);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  expect(download.suggestedFilename()).toBe(`sent-messages-${dayIn(0)}.csv`);
  const lines = readFileSync(await download.path(), "utf8").split("\r\n").filter(Boolean);
  expect(lines).toHaveLength(46);
  expect(lines[1]).toMatch(/^Zebra Promo,Completed,/);
  expect(lines.some((l) => l.startsWith("Failed Blast,Failed,"))).toBe(true);
  await page.screenshot({ path: join(process.env.PW_OUTPUT_DIR ?? "test-results", "sent-messages-server.png"), fullPage: true });
});
