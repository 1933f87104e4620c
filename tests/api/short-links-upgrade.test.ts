/**
 * Migration 0074 on a database the version before left (issue 32): short links made before, one row per recipient
 * repeating the campaign's link, become one row of `links` per campaign (or account, for texts of no campaign), link
 * and target, and a slim short link each that keeps its drawn code, expiry and message. Nothing is lost: every old
 * code still redirects to its target, expired ones still say so, clicks keep naming their short link and the
 * campaign's figures are the same; new short links made after go on from the last id and never take an old code.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/passwords";
import { codesOf, shortener } from "../../src/links/links";
import { startTestServer, type TestServer } from "../support/test-server";
import { databaseBefore } from "../support/old-database";

const PASSWORD = "old-password-1";
const CHROME = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const URL_A = "https://shop.example.com/spring";
const TARGET_A = "https://shop.example.com/spring?utm_source=sms";
const URL_B = "https://shop.example.com/menu";
const DAY = 86_400_000;
let dataDir: string;
let t: TestServer;
let token: string;
const now = Date.now();

// Old rows: campaign c-1 sent two links to two recipients (4 short links), a drip's text of no campaign one, an
// expired one; a person clicked Old0001 (human) and a preview fetched it.
const OLD = [
  { code: "Old0001", campaign: "c-1", message: "m-1", contact: "k-1", phone: "+13125550101", url: URL_A, target: TARGET_A, expires: now + DAY },
  { code: "Old0002", campaign: "c-1", message: "m-1", contact: "k-1", phone: "+13125550101", url: URL_B, target: URL_B, expires: now + DAY },
  { code: "Old0003", campaign: "c-1", message: "m-2", contact: "k-2", phone: "+13125550102", url: URL_A, target: TARGET_A, expires: now + DAY },
  { code: "Old0004", campaign: "c-1", message: "m-2", contact: "k-2", phone: "+13125550102", url: URL_B, target: URL_B, expires: now + DAY },
  { code: "Old0005", campaign: null, message: "m-3", contact: "k-1", phone: "+13125550101", url: URL_A, target: URL_A, expires: null },
  { code: "Old0006", campaign: null, message: "m-4", contact: "k-2", phone: "+13125550102", url: URL_A, target: URL_A, expires: now - DAY },
];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "smsdesk-links-0074-"));
  const old = databaseBefore(dataDir, "0074_links");
  old.query("INSERT INTO users (id, email, password_hash, email_verified) VALUES ('u-1', 'old@example.com', ?, 1)").run(await hashPassword(PASSWORD));
  old.query("INSERT INTO campaigns (id, user_id, name, content, status) VALUES ('c-1', 'u-1', 'Spring', 'x', 'completed')").run();
  for (const [id, phone] of [["k-1", "+13125550101"], ["k-2", "+13125550102"]]) {
    old.query("INSERT INTO contacts (id, user_id, first_name, last_name, phone, created_at) VALUES (?, 'u-1', 'A', 'B', ?, 1)").run(id!, phone!);
  }
  for (const [id, campaign, contact, phone] of [["m-1", "c-1", "k-1", "+13125550101"], ["m-2", "c-1", "k-2", "+13125550102"], ["m-3", null, "k-1", "+13125550101"], ["m-4", null, "k-2", "+13125550102"]] as [string, string | null, string, string][]) {
    old
      .query("INSERT INTO messages (id, user_id, campaign_id, contact_id, phone, content, direction, status, created_at, delivered_at) VALUES (?, 'u-1', ?, ?, ?, 'x', 'outbound', 'delivered', ?, ?)")
      .run(id, campaign, contact, phone, now - DAY, now - DAY);
  }
  const link = old.query(
    "INSERT INTO short_links (code, user_id, campaign_id, message_id, contact_id, phone, url, target, expires_at, created_at) VALUES (?, 'u-1', ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  OLD.forEach((l, i) => link.run(l.code, l.campaign, l.message, l.contact, l.phone, l.url, l.target, l.expires, now - DAY + i));
  const click = old.query(
    "INSERT INTO link_clicks (code, user_id, campaign_id, contact_id, url, at, method, user_agent, address_class, verdict, reason) VALUES (?, 'u-1', 'c-1', 'k-1', ?, ?, 'GET', 'x', 'public', ?, ?)",
  );
  click.run("Old0001", URL_A, now - 1000, "human", "A person's click");
  click.run("Old0001", URL_A, now - 500, "preview", "WhatsApp link preview");
  old.close();
  t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
  token = (await t.login("old@example.com", PASSWORD)).token;
});
afterAll(async () => {
  await t?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const sql = (q: string, ...args: (string | number | null)[]) => t.ctx.db.$client.query(q).all(...args);

test("one row of links per campaign (or none), link and target; each old short link kept with its code, message and expiry", () => {
  expect(sql("SELECT id, user_id, campaign_id, source, url, target FROM links ORDER BY id")).toEqual([
    { id: 1, user_id: "u-1", campaign_id: "c-1", source: "campaign:c-1", url: URL_A, target: TARGET_A },
    { id: 2, user_id: "u-1", campaign_id: "c-1", source: "campaign:c-1", url: URL_B, target: URL_B },
    { id: 3, user_id: "u-1", campaign_id: null, source: "message", url: URL_A, target: URL_A },
  ]);
  expect(sql("SELECT id, code, link_id, message_id, created_at, expires_at FROM short_links ORDER BY id")).toEqual(
    OLD.map((l, i) => ({ id: i + 1, code: l.code, link_id: [1, 2, 1, 2, 3, 3][i], message_id: l.message, created_at: now - DAY + i, expires_at: l.expires })),
  );
  // Each one's contact and phone are its message's, as they were its own.
  expect(sql("SELECT m.contact_id AS contact, m.phone FROM short_links s JOIN messages m ON m.id = s.message_id ORDER BY s.id")).toEqual(
    OLD.map((l) => ({ contact: l.contact, phone: l.phone })),
  );
  expect(sql("SELECT code, short_link_id, verdict FROM link_clicks ORDER BY id")).toEqual([
    { code: "Old0001", short_link_id: 1, verdict: "human" },
    { code: "Old0001", short_link_id: 1, verdict: "preview" },
  ]);
  expect(sql("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'short_links' ORDER BY name")).toEqual([
    { name: "short_links_code_idx" },
    { name: "short_links_link_idx" },
  ]);
});

test("every old code still redirects to its target, an expired one says so, and the campaign's figures are the same", async () => {
  // The figures first: the hits below are written by the clicks' flush 100 ms after the first of them.
  const figures = await t.api("/api/campaigns/c-1/clicks", { token });
  expect(figures.status).toBe(200);
  expect(figures.body).toMatchObject({
    humanClicks: 1,
    clickers: 1,
    hits: { human: 1, preview: 1, head: 0, prefetch: 0, scanner: 0, repeat: 0 },
    links: [
      { url: URL_A, sentTo: 2, humanClicks: 1 },
      { url: URL_B, sentTo: 2, humanClicks: 0 },
    ],
  });
  for (const l of OLD) {
    const res = await fetch(`${t.url}/l/${l.code}`, { redirect: "manual", headers: { "user-agent": CHROME } });
    if (l.expires !== null && l.expires < now) expect(res.status).toBe(410);
    else expect([l.code, res.status, res.headers.get("location")]).toEqual([l.code, 302, l.target]);
  }
});

test("short links made after the upgrade go on from the last id, with codes of their own that redirect too", async () => {
  // The writer the outbox uses, for campaign c-1's link without UTM parameters: a link row of its own.
  const text = await t.ctx.withTransaction(async () => {
    const shorten = await shortener(t.ctx, t.ctx.config.linkDomain, { userId: "u-1", campaignId: "c-1", source: "campaign:c-1", utm: null, expiresAt: null });
    const made = shorten.shorten(`New: ${URL_A}`, "m-new");
    await shorten.write();
    return made;
  });
  const row = sql("SELECT id, code, link_id FROM short_links WHERE message_id = 'm-new'") as { id: number; code: string | null; link_id: number }[];
  expect(row).toEqual([{ id: OLD.length + 1, code: null, link_id: 4 }]);
  const code = (await codesOf(t.ctx, [row[0]!.id])).get(row[0]!.id)!;
  expect(text).toBe(`New: ${t.ctx.config.linkDomain}/l/${code}`);
  expect(OLD.map((l) => l.code)).not.toContain(code);
  const res = await fetch(`${t.url}/l/${code}`, { redirect: "manual", headers: { "user-agent": CHROME } });
  expect([res.status, res.headers.get("location")]).toEqual([302, URL_A]);
});
