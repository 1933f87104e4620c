/**
 * Sent Messages at scale (issue 17 items 4 and 5): the history's filters, orders, paging and CSV done by the
 * server, GET /api/stats and GET /api/campaign-logs from the kept counts, bulk delete and archive. Campaigns and
 * their messages are written straight into the database at known times (as the engine would leave them), so the
 * expected values are exact.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deleteFinishedCampaigns } from "../../src/campaigns/delete";
import { DETACH_CHUNK } from "../../src/messages/detach";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { turnsDuring } from "../support/turns";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

const get = (acc: Account, path: string) => t.api(path, { token: acc.token });
const post = (acc: Account, path: string, body: unknown) => t.api(path, { method: "POST", token: acc.token, body });

async function account(timezone: string): Promise<Account> {
  const acc = await t.signUpVerified();
  expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { timezone } })).status).toBe(200);
  return acc;
}

type Seed = { name: string; sentAt: string | null; statuses?: string[]; content?: string; status?: string; phones?: string[] };

/**
 * A campaign as sending leaves it: its row and one message per status given (phones +1415555 01xx unless given).
 * No message is left queued: the running engine would take it.
 */
function seed(acc: Account, c: Seed): string {
  const db = t.ctx.db.$client;
  const id = Bun.randomUUIDv7();
  const sent = c.sentAt ? Date.parse(c.sentAt) : null;
  const created = (sent ?? Date.parse("2026-01-01T00:00:00Z")) - 60_000;
  db.prepare(
    `INSERT INTO campaigns (id, user_id, name, type, status, content, recipients, audience, created_at, updated_at, sent_at)
     VALUES (?, ?, ?, 'sms', ?, ?, '[]', '{"kind":"all"}', ?, ?, ?)`,
  ).run(id, acc.user.id, c.name, c.status ?? (sent ? "completed" : "draft"), c.content ?? `Text of ${c.name}`, created, created, sent);
  (c.statuses ?? []).forEach((status, i) => {
    const wentOut = status !== "sending" && !(status === "failed" && i % 2 === 1);
    db.prepare(
      `INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, created_at, updated_at, sent_at)
       VALUES (?, ?, ?, ?, 'x', 'outbound', ?, 'campaign', ?, ?, ?)`,
    ).run(Bun.randomUUIDv7(), acc.user.id, id, c.phones?.[i] ?? `+1415555${String(100 + i).padStart(4, "0")}`, status, (sent ?? created) + i, (sent ?? created) + i, wentOut ? (sent ?? created) + i : null);
  });
  return id;
}

const names = (body: { data: { name: string }[] }) => body.data.map((c) => c.name);
const history = (acc: Account, query: string) => get(acc, `/api/campaigns?type=sms&sent=true&${query}`);

describe("GET /api/campaigns: the Sent Messages history", () => {
  let acc: Account;
  beforeAll(async () => {
    acc = await account("America/New_York");
    seed(acc, { name: "bravo", sentAt: "2026-03-01T15:00:00Z", statuses: ["delivered", "delivered", "delivered"] });
    seed(acc, { name: "Alpha", sentAt: "2026-03-05T15:00:00Z", statuses: ["delivered"] });
    seed(acc, { name: "delta", sentAt: "2026-03-03T15:00:00Z", statuses: ["delivered", "failed", "sent", "delivered", "delivered"] });
    seed(acc, { name: "Charlie", sentAt: "2026-03-04T15:00:00Z", statuses: ["delivered", "delivered"] });
    // Never sent: on the campaigns screen, not in the history.
    seed(acc, { name: "Draft", sentAt: null });
  });

  test("orders: newest, oldest, most recipients, name (case-insensitive); paged with the total", async () => {
    expect(names((await history(acc, "sort=newest")).body)).toEqual(["Alpha", "Charlie", "delta", "bravo"]);
    expect(names((await history(acc, "sort=oldest")).body)).toEqual(["bravo", "delta", "Charlie", "Alpha"]);
    expect(names((await history(acc, "sort=recipients")).body)).toEqual(["delta", "bravo", "Charlie", "Alpha"]);
    expect(names((await history(acc, "sort=name")).body)).toEqual(["Alpha", "bravo", "Charlie", "delta"]);
    const first = await history(acc, "sort=name&page=1&pageSize=3");
    expect(first.body).toMatchObject({ total: 4, page: 1, pageSize: 3 });
    expect(names(first.body)).toEqual(["Alpha", "bravo", "Charlie"]);
    expect(names((await history(acc, "sort=name&page=2&pageSize=3")).body)).toEqual(["delta"]);
    const delta = (await history(acc, "q=delta")).body.data[0];
    expect(delta.counts).toMatchObject({ recipients: 5, delivered: 3, failed: 1, sent: 1, refused: 1 });
    // The plain list keeps every campaign, drafts included.
    expect((await get(acc, "/api/campaigns?type=sms")).body.total).toBe(5);
  });

  test("search: name or text, and a typed phone number finds the campaigns that messaged it", async () => {
    expect(names((await history(acc, "q=CHAR")).body)).toEqual(["Charlie"]);
    expect(names((await history(acc, "q=Text%20of%20b")).body)).toEqual(["bravo"]);
    // delta has five recipients (+14155550100..0104); bravo three (0100..0102).
    expect(names((await history(acc, `q=${encodeURIComponent("(415) 555-0104")}`)).body)).toEqual(["delta"]);
    expect(names((await history(acc, "q=%2B14155550102&sort=oldest")).body)).toEqual(["bravo", "delta"]);
    expect((await history(acc, "q=%2B14155559999")).body.total).toBe(0);
    // LIKE wildcards are text.
    expect((await history(acc, "q=%25")).body.total).toBe(0);
  });

  test("today, 7 days and 30 days are counted from the server's clock; today in the account's zone", async () => {
    const realNow = t.ctx.now;
    // 03:00 UTC on 6 March is still 5 March (22:00) in New York: Alpha (15:00 UTC on the 5th) went out today.
    t.ctx.now = () => Date.parse("2026-03-06T03:00:00Z");
    try {
      expect(names((await history(acc, "range=today")).body)).toEqual(["Alpha"]);
      expect(names((await history(acc, "range=7d&sort=oldest")).body)).toEqual(["bravo", "delta", "Charlie", "Alpha"]);
      t.ctx.now = () => Date.parse("2026-03-08T16:00:00Z");
      expect(names((await history(acc, "range=7d&sort=oldest")).body)).toEqual(["delta", "Charlie", "Alpha"]);
      expect((await history(acc, "range=30d")).body.total).toBe(4);
      expect((await history(acc, "range=today")).body.total).toBe(0);
    } finally {
      t.ctx.now = realNow;
    }
  });

  test("custom range: whole days in the account's zone, the end day included", async () => {
    const ny = await account("America/New_York");
    // New York is on summer time (UTC-4) from 8 March 2026.
    seed(ny, { name: "9th 23:30 NY", sentAt: "2026-03-10T03:30:00Z" });
    seed(ny, { name: "10th 01:30 NY", sentAt: "2026-03-10T05:30:00Z" });
    seed(ny, { name: "12th 23:30 NY", sentAt: "2026-03-13T03:30:00Z" });
    seed(ny, { name: "13th 00:30 NY", sentAt: "2026-03-13T04:30:00Z" });
    const r = await history(ny, "range=custom&from=2026-03-10&to=2026-03-12&sort=oldest");
    expect(names(r.body)).toEqual(["10th 01:30 NY", "12th 23:30 NY"]);
    expect(names((await history(ny, "range=custom&from=2026-03-13&to=2026-03-13")).body)).toEqual(["13th 00:30 NY"]);
    // Open ends.
    expect(names((await history(ny, "range=custom&to=2026-03-09")).body)).toEqual(["9th 23:30 NY"]);
    expect((await history(ny, "range=custom&from=2026-03-10")).body.total).toBe(3);

    // In UTC the same days cut elsewhere (the case the browser used to compute).
    const utc = await account("UTC");
    for (const at of ["2026-03-10T12:00:00Z", "2026-03-12T23:30:00Z", "2026-03-13T00:30:00Z"]) seed(utc, { name: at, sentAt: at });
    expect(names((await history(utc, "range=custom&from=2026-03-10&to=2026-03-12&sort=oldest")).body)).toEqual([
      "2026-03-10T12:00:00Z",
      "2026-03-12T23:30:00Z",
    ]);
  });

  test("bad filters are a 400 with a message", async () => {
    for (const [query, message] of [
      ["range=custom&from=2026-02-30", "from must be a date written YYYY-MM-DD"],
      ["range=custom&to=13/03/2026", "to must be a date written YYYY-MM-DD"],
      ["range=custom&from=2026-03-12&to=2026-03-10", "The start date must not be after the end date"],
      ["range=yesterday", "range must be one of all, today, 7d, 30d, custom"],
      ["sort=size", "sort must be one of newest, oldest, recipients, name"],
      ["sent=yes", "sent must be true or false"],
    ]) {
      const r = await history(acc, query!);
      expect(r.status, query).toBe(400);
      expect(r.body.message, query).toContain(message!);
    }
  });
});

describe("GET /api/campaigns/export.csv", () => {
  test("streams every matching campaign, formula cells neutralised, times and file name in the account's zone", async () => {
    const acc = await account("America/New_York");
    const risky = ["=HYPERLINK(\"http://x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tTab", "\rReturn", "Plain, with comma"];
    risky.forEach((name, i) => seed(acc, { name, sentAt: `2026-03-0${i + 1}T15:00:00Z`, statuses: ["delivered", "failed"], content: i === 0 ? "=1+1" : "Hi" }));
    const realNow = t.ctx.now;
    // 02:00 UTC on 10 March is 9 March in New York: the file is dated the 9th.
    t.ctx.now = () => Date.parse("2026-03-10T02:00:00Z");
    try {
      const res = await fetch(`${t.url}/api/campaigns/export.csv?type=sms&sent=true&sort=oldest`, { headers: { authorization: `Bearer ${acc.token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(res.headers.get("content-disposition")).toBe('attachment; filename="sent-messages-2026-03-09.csv"');
      const lines = (await res.text()).replace(/^\uFEFF/, "").split("\r\n");
      expect(lines[0]).toBe(
        "Campaign,Status,Sent at (America/New_York),Scheduled for (America/New_York),From,Recipients,Sent,Delivered,Failed,Success rate (%),Human clicks,Click rate (%),Message",
      );
      // 15:00 UTC is 10:00 in New York (winter time until 8 March).
      expect(lines[1]).toBe(`"'=HYPERLINK(""http://x"")",Completed,2026-03-01 10:00:00,,,2,1,1,1,100,0,0,'=1+1`);
      expect(lines.slice(2, 8)).toEqual([
        "'+cmd|' /C calc'!A0,Completed,2026-03-02 10:00:00,,,2,1,1,1,100,0,0,Hi",
        "'-2+3,Completed,2026-03-03 10:00:00,,,2,1,1,1,100,0,0,Hi",
        "'@SUM(A1),Completed,2026-03-04 10:00:00,,,2,1,1,1,100,0,0,Hi",
        "'\tTab,Completed,2026-03-05 10:00:00,,,2,1,1,1,100,0,0,Hi",
        `"'\rReturn",Completed,2026-03-06 10:00:00,,,2,1,1,1,100,0,0,Hi`,
        '"Plain, with comma",Completed,2026-03-07 10:00:00,,,2,1,1,1,100,0,0,Hi',
      ]);
      expect(lines.slice(8)).toEqual([""]);
    } finally {
      t.ctx.now = realNow;
    }
  });

  test("a history of 1,201 campaigns arrives whole, in order, read a batch at a time", async () => {
    const acc = await account("UTC");
    const db = t.ctx.db.$client;
    const insert = db.prepare(
      `INSERT INTO campaigns (id, user_id, name, type, status, content, created_at, updated_at, sent_at) VALUES (?, ?, ?, 'sms', 'completed', 'Hi', ?, ?, ?)`,
    );
    const start = Date.parse("2026-01-01T00:00:00Z");
    db.transaction(() => {
      for (let i = 0; i < 1201; i++) insert.run(Bun.randomUUIDv7(), acc.user.id, `C${String(i).padStart(4, "0")}`, start, start, start + i * 60_000);
    })();
    const res = await fetch(`${t.url}/api/campaigns/export.csv?type=sms&sent=true&sort=name`, { headers: { authorization: `Bearer ${acc.token}` } });
    const text = await res.text();
    const rows = text.split("\r\n").slice(1, -1);
    expect(rows).toHaveLength(1201);
    expect(rows.map((r) => r.split(",")[0])).toEqual(Array.from({ length: 1201 }, (_, i) => `C${String(i).padStart(4, "0")}`));
    // Filters apply to the file as to the list.
    const day = await fetch(`${t.url}/api/campaigns/export.csv?sent=true&range=custom&from=2026-01-01&to=2026-01-01`, { headers: { authorization: `Bearer ${acc.token}` } });
    expect((await day.text()).split("\r\n").slice(1, -1)).toHaveLength(1201);
    const none = await fetch(`${t.url}/api/campaigns/export.csv?sent=true&range=custom&from=2026-01-02`, { headers: { authorization: `Bearer ${acc.token}` } });
    expect((await none.text()).split("\r\n").slice(1, -1)).toHaveLength(0);
    const bad = await fetch(`${t.url}/api/campaigns/export.csv?range=custom&from=2026-13-01`, { headers: { authorization: `Bearer ${acc.token}` } });
    expect(bad.status).toBe(400);
  });
});

describe("GET /api/stats and GET /api/campaign-logs", () => {
  test("totals from the kept counts; logs paged newest first, by campaign and status; nothing of another account", async () => {
    const acc = await account("UTC");
    const a = seed(acc, { name: "A", sentAt: "2026-03-01T10:00:00Z", statuses: ["delivered", "delivered", "failed", "failed", "sent", "unknown", "expired"] });
    const b = seed(acc, { name: "B", sentAt: "2026-03-02T10:00:00Z", statuses: ["delivered", "sending", "skipped"] });
    // failed at index 2 went out (sent_at), at index 3 the provider refused it: sent counts the first only.
    expect((await get(acc, "/api/stats")).body).toEqual({ totalSent: 6, totalDelivered: 3, totalOpened: null, totalBounced: 2 });

    const all = await get(acc, "/api/campaign-logs?pageSize=4");
    expect(all.body).toMatchObject({ total: 10, page: 1, pageSize: 4 });
    expect(all.body.data.map((r: any) => [r.campaignName, r.status])).toEqual([
      ["B", "skipped"],
      ["B", "sending"],
      ["B", "delivered"],
      ["A", "expired"],
    ]);
    expect((await get(acc, "/api/campaign-logs?pageSize=4&page=3")).body.data.map((r: any) => r.recipientPhone)).toEqual(["+14155550101", "+14155550100"]);
    const failed = await get(acc, `/api/campaign-logs?campaignId=${a}&status=failed`);
    expect(failed.body.total).toBe(2);
    expect(failed.body.data.map((r: any) => r.recipientPhone)).toEqual(["+14155550103", "+14155550102"]);
    expect((await get(acc, `/api/campaign-logs?campaignId=${b}&status=sending`)).body.total).toBe(1);
    expect((await get(acc, "/api/campaign-logs?status=delivered")).body.total).toBe(3);

    const stranger = await account("UTC");
    expect((await get(stranger, "/api/stats")).body).toEqual({ totalSent: 0, totalDelivered: 0, totalOpened: null, totalBounced: 0 });
    expect((await get(stranger, `/api/campaign-logs?campaignId=${a}`)).body).toMatchObject({ total: 0, data: [] });
    for (const q of ["status=bogus", "page=0", "pageSize=201", `campaignId=${"x".repeat(65)}`]) {
      expect((await get(acc, `/api/campaign-logs?${q}`)).status, q).toBe(400);
    }
  });
});

describe("POST /api/campaigns/bulk-archive and bulk-delete", () => {
  test("archive hides from archived=false and shows under archived=true; restore; delete leaves campaigns that may still send and others' campaigns", async () => {
    const acc = await account("UTC");
    const other = await account("UTC");
    const done = seed(acc, { name: "Done", sentAt: "2026-03-01T10:00:00Z", statuses: ["delivered"] });
    const draft = seed(acc, { name: "Draft", sentAt: null });
    const sending = seed(acc, { name: "Sending", sentAt: "2026-03-02T10:00:00Z", status: "sending", statuses: ["sending"] });
    const theirs = seed(other, { name: "Theirs", sentAt: "2026-03-01T10:00:00Z" });

    const archived = await post(acc, "/api/campaigns/bulk-archive", { campaignIds: [done, draft, theirs], archive: true });
    expect(archived.body).toEqual({ changed: 2, message: "2 campaigns archived" });
    expect(names((await get(acc, "/api/campaigns?archived=true&sort=name")).body)).toEqual(["Done", "Draft"]);
    expect(names((await get(acc, "/api/campaigns?archived=false")).body)).toEqual(["Sending"]);
    expect(names((await get(other, "/api/campaigns?archived=false")).body)).toEqual(["Theirs"]);
    expect((await post(acc, "/api/campaigns/bulk-archive", { campaignIds: [draft], archive: false })).body).toEqual({ changed: 1, message: "1 campaign restored" });
    expect(names((await get(acc, "/api/campaigns?archived=false&sort=name")).body)).toEqual(["Draft", "Sending"]);

    const deleted = await post(acc, "/api/campaigns/bulk-delete", { campaignIds: [done, draft, sending, theirs] });
    expect(deleted.body).toEqual({ deleted: 2, message: "2 campaigns deleted" });
    expect(names((await get(acc, "/api/campaigns")).body)).toEqual(["Sending"]);
    expect(names((await get(other, "/api/campaigns")).body)).toEqual(["Theirs"]);
    // The deleted campaign's messages no longer count in its account's totals.
    expect((await get(acc, "/api/stats")).body.totalDelivered).toBe(0);

    for (const body of [{}, { campaignIds: "abc" }, { campaignIds: [1, 2] }, { campaignIds: ["a"], archive: "yes" }, { campaignIds: Array(1001).fill("a") }]) {
      expect((await post(acc, "/api/campaigns/bulk-archive", body)).status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    expect((await post(acc, "/api/campaigns/bulk-delete", { campaignIds: [null] })).status).toBe(400);
  });

  test("a campaign of many messages is deleted a chunk at a time with the event loop's turns between; its messages stay, detached, in the account's totals", async () => {
    const acc = await account("UTC");
    const n = DETACH_CHUNK * 2 + DETACH_CHUNK / 2;
    const big = seed(acc, { name: "Big", sentAt: "2026-03-01T10:00:00Z", statuses: Array(n).fill("delivered"), phones: Array.from({ length: n }, (_, i) => `+1312555${String(i).padStart(4, "0")}`) });
    const small = seed(acc, { name: "Small", sentAt: "2026-03-02T10:00:00Z", statuses: ["delivered"] });
    const sentBefore = (await get(acc, "/api/results/overview")).body.allTime.sent;
    expect(sentBefore).toBe(n + 1);

    // The deletion yields between chunks.
    let deleted = 0;
    expect(await turnsDuring(async () => (deleted = await deleteFinishedCampaigns(t.ctx, acc.user.id, [big])))).toBeGreaterThanOrEqual(2);
    expect(deleted).toBe(1);

    const db = t.ctx.db.$client;
    expect(db.query("SELECT count(*) AS n, count(campaign_id) AS attached FROM messages WHERE user_id = ?").get(acc.user.id)).toEqual({ n: n + 1, attached: 1 });
    expect(names((await get(acc, "/api/campaigns")).body)).toEqual(["Small"]);
    expect((await get(acc, "/api/results/overview")).body.allTime.sent).toBe(sentBefore);
    expect((await post(acc, "/api/campaigns/bulk-delete", { campaignIds: [small, big] })).body).toEqual({ deleted: 1, message: "1 campaign deleted" });
    expect((await get(acc, "/api/results/overview")).body.allTime.sent).toBe(sentBefore);
    expect(db.query("SELECT count(*) AS n, count(campaign_id) AS attached FROM messages WHERE user_id = ?").get(acc.user.id)).toEqual({ n: n + 1, attached: 0 });
  });
});
