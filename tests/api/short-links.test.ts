// Issue 32 items 1 and 2: short links on the agency's domain, and clicks that are people. A campaign with a link
// goes through the Twilio fake; its short link is read from what Twilio received and followed as a person, as
// iMessage's and WhatsApp's previews and as a HEAD; the figures, a segment and an automation trigger must agree.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";
import { flushClicks } from "../../src/links/clicks";
import { CODES, codeKey, codeOf, idOf, newCodeKey, sipHash8 } from "../../src/links/codes";
import { codesOf, shortener, shortenText } from "../../src/links/links";
import { runDueJobs } from "../../src/jobs/jobs";

setDefaultTimeout(60_000);

const SENDER = "+14155550100";
const CHROME = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const IMESSAGE = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0";
const WHATSAPP = "WhatsApp/2.23.20.0 A";

let t: TestServer;
let twilio: TwilioFake;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }], statusCallbacks: { sentAfterMs: [5, 10], deliveredAfterMs: [5, 10] } });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const call = (acc: Account, method: string, path: string, body?: unknown) => t.api(path, { method, token: acc.token, body });

async function twilioAccount() {
  const acc = await t.signUpVerified();
  const provider = await call(acc, "POST", "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
  expect(provider.status).toBe(201);
  expect((await call(acc, "POST", "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: SENDER })).status).toBe(201);
  expect((await call(acc, "PATCH", "/api/user/settings", { quietHoursEnabled: false })).status).toBe(200);
  return acc;
}

/** What Twilio received for a phone, once it has. */
const receivedBy = async (phone: string) => (await waitFor(() => twilio.messages.find((m) => m.to === phone), (m) => !!m))!;

/** A hit of a short link as a client sends it; the redirect is not followed. */
const hit = (shortLink: string, userAgent: string, method = "GET", headers: Record<string, string> = {}) =>
  fetch(shortLink.replace(t.ctx.config.linkDomain, t.url), { method, redirect: "manual", headers: { "user-agent": userAgent, ...headers } });

describe("a campaign's short links", () => {
  test("a person's click counts; iMessage's and WhatsApp's previews, a HEAD, a prefetch, a scanner and a repeat do not; figures, segment and trigger agree", async () => {
    const acc = await twilioAccount();
    const person = "+14155553001";
    const other = "+14155553002";
    const contact = await call(acc, "POST", "/api/contacts", { firstName: "Ana", lastName: "Ruiz", phone: person });
    expect(contact.status).toBe(201);
    const campaign = await call(acc, "POST", "/api/campaigns", {
      name: "Spring",
      content: "Spring sale, {firstName|friend}: https://shop.example.com/spring?ref=sms.",
      recipients: [person, other],
      appendOptOut: false,
      utmSource: "sms",
      utmMedium: "text",
      utmCampaign: "spring",
      linkExpiryDays: 2,
    });
    expect(campaign.status).toBe(201);
    expect(campaign.body).toMatchObject({ shortenLinks: true, utmSource: "sms", linkExpiryDays: 2, humanClicks: 0, clickRate: null });
    const id = campaign.body.id as string;
    const segment = await call(acc, "POST", "/api/segments", { name: "Clicked Spring", conditions: { clickedCampaign: { eq: id } } });
    expect(segment.status).toBe(201);
    const recent = await call(acc, "POST", "/api/segments", { name: "Clicked this week", conditions: { lastClicked: { gte: "-7d" } } });
    expect(recent.status).toBe(201);
    const rule = await call(acc, "POST", "/api/automation-rules", {
      name: "Thank clickers",
      trigger: "link_clicked",
      triggerConfig: { campaignId: id },
      actions: { addTags: ["clicked-spring"] },
    });
    expect(rule.status).toBe(201);

    expect((await call(acc, "POST", `/api/campaigns/${id}/send`)).body.queued).toBe(2);
    const toPerson = await receivedBy(person);
    const toOther = await receivedBy(other);
    const linkRe = new RegExp(`^Spring sale, (Ana|friend): (${t.ctx.config.linkDomain.replace(/[.]/g, "\\.")}/l/[0-9A-Za-z]{7})\\.$`);
    const personLink = linkRe.exec(toPerson.body)![2]!;
    const otherLink = linkRe.exec(toOther.body)![2]!;
    expect(toPerson.body).toBe(`Spring sale, Ana: ${personLink}.`);
    expect(toOther.body).toBe(`Spring sale, friend: ${otherLink}.`);
    expect(personLink).not.toBe(otherLink);
    // Both delivered (the fake's signed callbacks), so the scanner window has a delivery report to measure from.
    await waitFor(() => call(acc, "GET", `/api/campaigns/${id}`), (r) => r.body.counts.delivered === 2);
    const deliveredAt = (phone: string) =>
      (t.ctx.db.$client.query(`SELECT delivered_at AS at FROM messages WHERE phone = ? AND campaign_id = ?`).get(phone, id) as { at: number }).at;

    const realNow = t.ctx.now;
    try {
      // The other recipient's link opened 2 seconds after its delivery report: a carrier's scanner.
      t.ctx.now = () => deliveredAt(other) + 2_000;
      expect((await hit(otherLink, CHROME)).status).toBe(302);
      t.ctx.now = () => deliveredAt(person) + 60_000;
      const opened = await hit(personLink, CHROME);
      expect(opened.status).toBe(302);
      expect(opened.headers.get("location")).toBe("https://shop.example.com/spring?ref=sms&utm_source=sms&utm_medium=text&utm_campaign=spring");
      for (const agent of [IMESSAGE, WHATSAPP]) expect((await hit(personLink, agent)).status).toBe(302);
      expect((await hit(personLink, CHROME, "HEAD")).status).toBe(302);
      expect((await hit(personLink, CHROME, "GET", { "sec-purpose": "prefetch" })).status).toBe(302);
      expect((await hit(personLink, CHROME)).status).toBe(302);
      await flushClicks(t.ctx);

      const kept = t.ctx.db.$client.query(`SELECT verdict, reason, address_class AS addressClass FROM link_clicks WHERE user_id = ? ORDER BY id`).all(acc.user.id);
      expect(kept).toEqual([
        { verdict: "scanner", reason: "Within 5 s of the delivery report", addressClass: "private" },
        { verdict: "human", reason: "A person's click", addressClass: "private" },
        { verdict: "preview", reason: "Apple iMessage link preview", addressClass: "private" },
        { verdict: "preview", reason: "WhatsApp link preview", addressClass: "private" },
        { verdict: "head", reason: "HEAD request", addressClass: "private" },
        { verdict: "prefetch", reason: "Purpose: prefetch", addressClass: "private" },
        { verdict: "repeat", reason: "Already clicked", addressClass: "private" },
      ]);
      const figures = await call(acc, "GET", `/api/campaigns/${id}/clicks`);
      const day = new Date(deliveredAt(person) + 60_000).toISOString().slice(0, 10);
      expect(figures.body).toEqual({
        campaignId: id,
        reached: 2,
        humanClicks: 1,
        clickers: 1,
        clickRate: 50,
        hits: { human: 1, preview: 2, head: 1, prefetch: 1, scanner: 1, repeat: 1 },
        links: [{ url: "https://shop.example.com/spring?ref=sms", sentTo: 2, humanClicks: 1, clickRate: 50 }],
        days: [{ date: day, humanClicks: 1 }],
      });
      expect((await call(acc, "GET", `/api/campaigns/${id}`)).body).toMatchObject({ humanClicks: 1, clickRate: 50 });
      // The dashboard's week: one person's click, one of the two texts with a link clicked.
      expect((await call(acc, "GET", "/api/results/series?days=7")).body.clicks).toEqual({ humanClicks: 1, textsWithLinks: 2, textsClicked: 1, clickRate: 50 });

      // The segment and the trigger count the same one person.
      const members = await call(acc, "GET", `/api/segments/${segment.body.id}/contacts`);
      expect(members.body.data.map((c: { phone: string }) => c.phone)).toEqual([person]);
      const members7 = await call(acc, "GET", `/api/segments/${recent.body.id}/contacts`);
      expect(members7.body.data.map((c: { phone: string }) => c.phone)).toEqual([person]);
      const runs = await waitFor(
        async () => (await call(acc, "GET", `/api/automation-rules/${rule.body.id}/runs`)).body.data as { outcome: string; contactId: string }[],
        (r) => r.length >= 1,
      );
      expect(runs.map((r) => [r.outcome, r.contactId])).toEqual([["done", contact.body.id]]);
      const tagged = await call(acc, "GET", `/api/contacts?search=${encodeURIComponent(person)}`);
      expect(tagged.body.data[0].tags).toContain("clicked-spring");

      const csv = (await t.api(`/api/campaigns/export.csv`, { token: acc.token })).text;
      expect(csv.split("\r\n")[0]).toContain("Human clicks,Click rate (%)");
      expect(csv.split("\r\n")[1]).toContain(",1,50,");

      // Two days on, the link has expired: a page says so, and the hit is still kept.
      t.ctx.now = () => deliveredAt(person) + 3 * 86_400_000;
      const expired = await hit(personLink, CHROME);
      expect(expired.status).toBe(410);
      expect(await expired.text()).toContain("This link has expired");
    } finally {
      t.ctx.now = realNow;
    }
    expect((await hit(`${t.ctx.config.linkDomain}/l/zzzzzzz`, CHROME)).status).toBe(404);
  });

  test("the segment counter counts the short link's length: what the preview says is what Twilio billed", async () => {
    const acc = await twilioAccount();
    const phone = "+14155553010";
    const long = `https://shop.example.com/collections/spring-2027/new-arrivals?campaign=spring&variant=${"a".repeat(120)}`;
    const content = `Hi {firstName|there}, our spring collection is in: ${long} See you soon!`;
    const preview = await call(acc, "POST", "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: [phone], content, appendOptOut: true });
    expect(preview.status).toBe(200);
    const campaign = await call(acc, "POST", "/api/campaigns", { name: "Long link", content, recipients: [phone], appendOptOut: true });
    expect((await call(acc, "POST", `/api/campaigns/${campaign.body.id}/send`)).body.queued).toBe(1);
    const sent = await receivedBy(phone);
    expect(sent.body).toMatch(/^Hi there, our spring collection is in: http:\/\/localhost:\d+\/l\/[0-9A-Za-z]{7} See you soon!\nReply STOP to opt out$/);
    expect(sent.body.length).toBe(preview.body.longest.text.length);
    expect(preview.body.longest.segments).toBe(sent.numSegments);
    expect(preview.body.longest.totalSegments).toBe(sent.numSegments);
    expect(sent.numSegments).toBe(1);
    // Without shortening the same text is three segments, and so is the estimate.
    const unshortened = await call(acc, "POST", "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: [phone], content, appendOptOut: true, shortenLinks: false });
    expect(unshortened.body.longest.segments).toBe(2);
  });

  test("an account's own link domain; links left long when the campaign turns shortening off", async () => {
    const acc = await twilioAccount();
    expect(await call(acc, "PATCH", "/api/user/settings", { linkDomain: "go.example.com" })).toMatchObject({
      status: 400,
      body: { message: "The link domain must be an address such as https://go.example.com, without a path" },
    });
    const saved = await call(acc, "PATCH", "/api/user/settings", { linkDomain: "https://Go.Example.com/" });
    expect(saved.body).toMatchObject({ linkDomain: "https://go.example.com", linkDomainDefault: t.ctx.config.publicUrl });
    const [a, b] = ["+14155553020", "+14155553021"];
    const short = await call(acc, "POST", "/api/campaigns", { name: "Own domain", content: "See www.example.com/menu today", recipients: [a], appendOptOut: false });
    await call(acc, "POST", `/api/campaigns/${short.body.id}/send`);
    expect((await receivedBy(a)).body).toMatch(/^See https:\/\/go\.example\.com\/l\/[0-9A-Za-z]{7} today$/);
    const code = /\/l\/(\w{7})/.exec((await receivedBy(a)).body)![1]!;
    const opened = await fetch(`${t.url}/l/${code}`, { redirect: "manual", headers: { "user-agent": CHROME } });
    expect(opened.headers.get("location")).toBe("https://www.example.com/menu");
    // A scanner that opens the link before the delivery report arrives: the hit waits out the window, then the
    // report (a second after the hit) makes it a scanner's. The delivery is replayed on the row: the fake reports at once.
    const messageId = (t.ctx.db.$client.query(`SELECT id FROM messages WHERE phone = ? AND user_id = ?`).get(a, acc.user.id) as { id: string }).id;
    // The fake's own report first, so it cannot land in the middle of the replay.
    await waitFor(() => t.ctx.db.$client.query(`SELECT status FROM messages WHERE id = ?`).get(messageId), (m) => (m as { status: string }).status === "delivered");
    const realNow = t.ctx.now;
    const at = realNow() + 3_600_000;
    try {
      t.ctx.db.$client.query(`UPDATE messages SET delivered_at = NULL WHERE id = ?`).run(messageId);
      await flushClicks(t.ctx, true);
      t.ctx.db.$client.query(`DELETE FROM link_clicks WHERE code = ? AND user_id = ?`).run(code, acc.user.id);
      t.ctx.now = () => at;
      expect((await fetch(`${t.url}/l/${code}`, { redirect: "manual", headers: { "user-agent": CHROME } })).status).toBe(302);
      expect(await flushClicks(t.ctx)).toBe(0);
      t.ctx.db.$client.query(`UPDATE messages SET delivered_at = ? WHERE id = ?`).run(at + 1_000, messageId);
      t.ctx.now = () => at + 5_000;
      expect(await flushClicks(t.ctx)).toBe(1);
      expect(t.ctx.db.$client.query(`SELECT verdict, reason FROM link_clicks WHERE code = ? AND user_id = ?`).all(code, acc.user.id)).toEqual([
        { verdict: "scanner", reason: "Within 5 s of the delivery report" },
      ]);
    } finally {
      t.ctx.now = realNow;
    }
    const long = await call(acc, "POST", "/api/campaigns", { name: "Long", content: "See www.example.com/menu today", recipients: [b], appendOptOut: false, shortenLinks: false });
    await call(acc, "POST", `/api/campaigns/${long.body.id}/send`);
    expect((await receivedBy(b)).body).toBe("See www.example.com/menu today");
    expect((await call(acc, "PATCH", "/api/user/settings", { linkDomain: "" })).body.linkDomain).toBeNull();
    // The settings screen sends back the null GET gave it (it broke saving quiet hours for every account).
    const settings = (await call(acc, "GET", "/api/user/settings")).body;
    expect(settings.linkDomain).toBeNull();
    const resaved = await call(acc, "PATCH", "/api/user/settings", { ...settings, quietHoursStart: "20:30" });
    expect(resaved).toMatchObject({ status: 200, body: { linkDomain: null, quietHoursStart: "20:30" } });
    expect(await call(acc, "PATCH", "/api/user/settings", { linkDomain: "x".repeat(201) })).toMatchObject({
      status: 400,
      body: { message: "The link domain must be at most 200 characters" },
    });
  });

  test("a drip step's link goes out short, a click names the contact; a step may keep its links as written", async () => {
    const acc = await twilioAccount();
    const phone = "+14155553030";
    const contact = await call(acc, "POST", "/api/contacts", { firstName: "Bo", phone });
    const drip = await call(acc, "POST", "/api/drip-campaigns", {
      name: "Welcome",
      trigger: "manual",
      steps: [
        { delay: 0, unit: "minutes", content: "Welcome {firstName}: https://shop.example.com/welcome" },
        { delay: 0, unit: "minutes", content: "Menu: https://shop.example.com/menu", shortenLinks: false },
      ],
    });
    expect(drip.status).toBe(201);
    expect(drip.body.steps.map((s: { shortenLinks?: boolean }) => s.shortenLinks)).toEqual([undefined, false]);
    expect((await call(acc, "POST", `/api/drip-campaigns/${drip.body.id}/enrol`, { contactIds: [contact.body.id] })).body.enrolled).toBe(1);
    const bodies = await waitFor(
      async () => {
        await (await runDueJobs(t.ctx)).settled;
        return twilio.messages.filter((m) => m.to === phone).map((m) => m.body);
      },
      (b) => b.length >= 2,
    );
    expect(bodies[0]).toMatch(new RegExp(`^Welcome Bo: ${t.ctx.config.linkDomain.replace(/[.]/g, "\\.")}/l/[0-9A-Za-z]{7}$`));
    expect(bodies[1]).toBe("Menu: https://shop.example.com/menu");
    const code = bodies[0]!.slice(-7);
    const link = t.ctx.db.$client
      .query(`SELECT l.campaign_id AS campaignId, l.source, m.contact_id AS contactId, l.target FROM short_links s JOIN links l ON l.id = s.link_id JOIN messages m ON m.id = s.message_id WHERE l.user_id = ?`)
      .all(acc.user.id);
    expect(link).toEqual([{ campaignId: null, source: `drip:${drip.body.id}`, contactId: contact.body.id, target: "https://shop.example.com/welcome" }]);
    const opened = await fetch(`${t.url}/l/${code}`, { method: "HEAD", redirect: "manual", headers: { "user-agent": CHROME } });
    expect(opened.headers.get("location")).toBe("https://shop.example.com/welcome");
  });
});

describe("short links' storage (migration 0074)", () => {
  /**
   * Short links of `source` written as the outbox writes them: one shortener for the chunk, in one transaction, its
   * rows written for the messages `kept` (all by default). Answers the texts and each message's short links' ids.
   */
  const write = async (userId: string, source: string, texts: [string, string][], kept?: string[]) => {
    const out: string[] = [];
    await t.ctx.withTransaction(async () => {
      const shorten = await shortener(t.ctx, t.ctx.config.linkDomain, { userId, campaignId: null, source, utm: { source: "sms", medium: null, campaign: null }, expiresAt: null }, texts.length);
      for (const [messageId, text] of texts) out.push(shorten.shorten(text, messageId));
      await shorten.write(kept && new Set(kept));
    });
    const made = new Map<string, number[]>();
    const rows = t.ctx.db.$client
      .query(`SELECT s.id, s.message_id AS messageId FROM short_links s JOIN links l ON l.id = s.link_id WHERE l.user_id = ? AND l.source = ? AND s.message_id IN (SELECT value FROM json_each(?)) ORDER BY s.id`)
      .all(userId, source, JSON.stringify(texts.map(([m]) => m))) as { id: number; messageId: string }[];
    for (const r of rows) made.set(r.messageId, [...(made.get(r.messageId) ?? []), r.id]);
    return { made, out };
  };

  test("a source's distinct links are one row each; each recipient's short link a slim row whose code is its id encoded, and redirects", async () => {
    const acc = await t.signUpVerified();
    const db = t.ctx.db.$client;
    const text = "A https://a.example/x and B https://b.example/y, A again https://a.example/x";
    const { made, out } = await write(acc.user.id, "drip:d-1", [["m-1", text], ["m-2", text], ["m-3", text]]);
    expect(db.query(`SELECT source, url, target FROM links WHERE user_id = ? ORDER BY id`).all(acc.user.id)).toEqual([
      { source: "drip:d-1", url: "https://a.example/x", target: "https://a.example/x?utm_source=sms" },
      { source: "drip:d-1", url: "https://b.example/y", target: "https://b.example/y?utm_source=sms" },
    ]);
    const ids = [...made.values()].flat();
    expect(ids).toHaveLength(9);
    const rows = db.query(`SELECT s.id, s.code, s.message_id AS messageId, l.url FROM short_links s JOIN links l ON l.id = s.link_id WHERE l.user_id = ? ORDER BY s.id`).all(acc.user.id) as {
      id: number;
      code: string | null;
      messageId: string;
      url: string;
    }[];
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.every((r) => r.code === null)).toBe(true);
    expect(rows.map((r) => r.messageId)).toEqual(["m-1", "m-1", "m-1", "m-2", "m-2", "m-2", "m-3", "m-3", "m-3"]);
    // The codes in the texts are the rows' ids encoded: all different, and each redirects to its own link's target.
    const codes = await codesOf(t.ctx, ids);
    const sent = out.flatMap((o) => [...o.matchAll(/\/l\/([0-9A-Za-z]{7})/g)].map((m) => m[1]!));
    expect(sent).toEqual(ids.map((id) => codes.get(id)!));
    expect(new Set(sent).size).toBe(9);
    for (const [i, code] of sent.entries()) {
      const res = await fetch(`${t.url}/l/${code}`, { method: "HEAD", redirect: "manual", headers: { "user-agent": CHROME } });
      expect([res.status, res.headers.get("location")]).toEqual([302, `${rows[i]!.url}?utm_source=sms`]);
    }
    // A code one character off is another id: no link, or another's (as likely as guessing a drawn code).
    await flushClicks(t.ctx, true);
    // Writing the table costs one row appended and one entry of its link's index: the other index holds only codes drawn before 0074.
    expect(db.query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'short_links' ORDER BY name`).all()).toEqual([
      { name: "short_links_code_idx" },
      { name: "short_links_link_idx" },
    ]);
  });

  test("only the messages kept get their short links written (a repeated chunk's recipients none), in a few statements whatever their number", async () => {
    const acc = await t.signUpVerified();
    const db = t.ctx.db.$client;
    const { made, out } = await write(acc.user.id, "keyword:k-1", [["m-1", "https://a.example/1 https://a.example/2"], ["m-2", "https://a.example/1"], ["m-3", "https://a.example/1"]], ["m-2"]);
    const [m2] = made.get("m-2")!;
    expect(db.query(`SELECT s.id, s.message_id FROM short_links s JOIN links l ON l.id = s.link_id WHERE l.user_id = ?`).all(acc.user.id)).toEqual([{ id: m2, message_id: "m-2" }]);
    // m-2's is the third id of the three reserved (m-1 took two; m-3 the first of three more): its code is in its text.
    const codes = await codesOf(t.ctx, [m2!]);
    expect(out[1]).toBe(`${t.ctx.config.linkDomain}/l/${codes.get(m2!)}`);
    // The ids reserved and left (m-1's, m-3's, the two after) are never given again. 300 messages' short links: one
    // reservation for the 300 expected, consecutive ids, written in statements of 128, 128, 32, 8 and 4 rows.
    const many = Array.from({ length: 300 }, (_, i) => [`n-${i}`, `Hi ${i}: https://a.example/1`] as [string, string]);
    const second = await write(acc.user.id, "keyword:k-1", many);
    const ids = many.map(([m]) => second.made.get(m)![0]!);
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => m2! + 4 + i));
    expect(second.out[299]).toBe(`Hi 299: ${t.ctx.config.linkDomain}/l/${(await codesOf(t.ctx, [ids[299]!])).get(ids[299]!)}`);
    // The next shortener goes on after the last id reserved, used or not.
    const third = await write(acc.user.id, "keyword:k-1", [["p-1", "https://a.example/1"]]);
    expect(third.made.get("p-1")).toEqual([m2! + 304]);
  });

  test("a code drawn before 0074 is never given to a new short link: the id whose code it is gets skipped", async () => {
    const acc = await t.signUpVerified();
    const db = t.ctx.db.$client;
    await write(acc.user.id, "keyword:k-2", [["m-0", "https://a.example/0"]]);
    const key = codeKey((db.query(`SELECT key FROM short_link_keys`).get() as { key: string }).key);
    // As migration 0074 keeps one: a drawn code, under a link of its own; the code drawn is the one the next id would get.
    const linkId = (db.query(`INSERT INTO links (user_id, source, url, target, created_at) VALUES (?, 'message', 'https://old.example', 'https://old.example', 0) RETURNING id`).get(acc.user.id) as { id: number }).id;
    const oldId = Number(db.query(`INSERT INTO short_links (link_id, message_id, created_at) VALUES (?, 'm-old', 0)`).run(linkId).lastInsertRowid);
    const next = oldId + 1;
    const taken = codeOf(key, next);
    db.query(`UPDATE short_links SET code = ? WHERE id = ?`).run(taken, oldId);
    const { made, out } = await write(acc.user.id, "keyword:k-2", [["m-1", "https://a.example/1"]]);
    const id = made.get("m-1")![0]!;
    expect(id).toBeGreaterThan(next);
    expect(out[0]).not.toContain(taken);
    expect(db.query(`SELECT count(*) AS n FROM short_links WHERE id = ?`).get(next)).toEqual({ n: 0 });
    const old = await fetch(`${t.url}/l/${taken}`, { method: "HEAD", redirect: "manual", headers: { "user-agent": CHROME } });
    expect(old.headers.get("location")).toBe("https://old.example");
    const mine = await fetch(`${t.url}/l/${codeOf(key, id)}`, { method: "HEAD", redirect: "manual", headers: { "user-agent": CHROME } });
    expect(mine.headers.get("location")).toBe("https://a.example/1?utm_source=sms");
    await flushClicks(t.ctx, true);
  });
});

describe("the clicks' flush", () => {
  test("hits of several slices are all written in the order they came: each link's first person's click counts, the rest are repeats", async () => {
    const acc = await t.signUpVerified();
    const db = t.ctx.db.$client;
    const realNow = t.ctx.now;
    for (const id of ["fl-1", "fl-2"]) {
      db.query(`INSERT INTO messages (id, user_id, phone, content, direction, status, delivered_at, created_at) VALUES (?, ?, '+14155553201', 'x', 'outbound', 'delivered', ?, 0)`).run(
        id,
        acc.user.id,
        realNow(),
      );
    }
    const texts = await t.ctx.withTransaction(async () => {
      const shorten = await shortener(t.ctx, t.ctx.config.linkDomain, { userId: acc.user.id, campaignId: null, source: "drip:d-fl", utm: null, expiresAt: null }, 2);
      const made = [shorten.shorten("https://a.example/fl", "fl-1"), shorten.shorten("https://b.example/fl", "fl-2")];
      await shorten.write();
      return made;
    });
    const [a, b] = texts.map((text) => /\/l\/(\w{7})/.exec(text)![1]!);
    // 210 hits, over several slices of the flush: A as a person, B as a person, A as a HEAD, in turn.
    const sent = Array.from({ length: 210 }, (_, i) => (i % 3 === 0 ? { code: a!, method: "GET" } : i % 3 === 1 ? { code: b!, method: "GET" } : { code: a!, method: "HEAD" }));
    try {
      t.ctx.now = () => realNow() + 3_600_000;
      for (const s of sent) expect((await hit(`${t.ctx.config.linkDomain}/l/${s.code}`, CHROME, s.method)).status).toBe(302);
      await flushClicks(t.ctx);
    } finally {
      t.ctx.now = realNow;
    }
    const rows = db.query(`SELECT code, method, verdict FROM link_clicks WHERE user_id = ? ORDER BY id`).all(acc.user.id);
    expect(rows).toEqual(sent.map((s, i) => ({ ...s, verdict: s.method === "HEAD" ? "head" : i < 2 ? "human" : "repeat" })));
  });
});

describe("the clicks' flush and the log's checkpoints", () => {
  test("holds them off the connection (a worker checkpoints) while hits wait in memory, and lets them go when none is left", async () => {
    const acc = await t.signUpVerified();
    const db = t.ctx.db.$client;
    const autocheckpoint = () => (db.query(`PRAGMA wal_autocheckpoint`).get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
    expect(autocheckpoint()).toBe(1000);
    // A message with no delivery report yet: a hit of its link waits out the scanner window in memory.
    db.query(`INSERT INTO messages (id, user_id, phone, content, direction, status, created_at) VALUES ('ck-1', ?, '+14155553301', 'x', 'outbound', 'sent', 0)`).run(acc.user.id);
    const text = await t.ctx.withTransaction(async () => {
      const shorten = await shortener(t.ctx, t.ctx.config.linkDomain, { userId: acc.user.id, campaignId: null, source: "drip:d-ck", utm: null, expiresAt: null }, 1);
      const made = shorten.shorten("https://a.example/ck", "ck-1");
      await shorten.write();
      return made;
    });
    expect((await hit(text.slice(text.indexOf("http")), CHROME)).status).toBe(302);
    expect(await flushClicks(t.ctx)).toBe(0);
    expect(autocheckpoint()).toBe(0);
    expect(await flushClicks(t.ctx, true)).toBe(1);
    expect(autocheckpoint()).toBe(1000);
    expect(db.query(`SELECT verdict FROM link_clicks WHERE user_id = ?`).all(acc.user.id)).toEqual([{ verdict: "human" }]);
  });
});

describe("a merge of contacts", () => {
  test("moves the merged contact's clicks, and its messages' links click for the one kept after", async () => {
    const acc = await t.signUpVerified();
    const db = t.ctx.db.$client;
    const kept = await call(acc, "POST", "/api/contacts", { firstName: "Kim", phone: "+14155553101" });
    const merged = await call(acc, "POST", "/api/contacts", { firstName: "Kim", phone: "+14155553102" });
    // A message to the merged contact, carrying a short link, and a person's click of it before the merge.
    db.query(`INSERT INTO messages (id, user_id, contact_id, phone, content, direction, status, created_at) VALUES ('mm-1', ?, ?, '+14155553102', 'x', 'outbound', 'sent', 0)`).run(
      acc.user.id,
      merged.body.id,
    );
    const link = /\/l\/(\w{7})/.exec(
      await t.ctx.withTransaction(() => shortenText(t.ctx, t.ctx.config.linkDomain, "https://a.example/m", { userId: acc.user.id, campaignId: null, source: "drip:d-9", utm: null, expiresAt: null, messageId: "mm-1" })),
    )![1]!;
    const realNow = t.ctx.now;
    try {
      t.ctx.now = () => realNow() + 3_600_000;
      expect((await hit(`${t.ctx.config.linkDomain}/l/${link}`, CHROME)).status).toBe(302);
      expect(await flushClicks(t.ctx, true)).toBe(1);
      expect(db.query(`SELECT contact_id AS contactId, verdict FROM link_clicks WHERE user_id = ?`).all(acc.user.id)).toEqual([{ contactId: merged.body.id, verdict: "human" }]);
      expect((await call(acc, "POST", "/api/contacts/merge", { primaryContactId: kept.body.id, mergeContactIds: [merged.body.id] })).status).toBe(200);
      expect(db.query(`SELECT contact_id AS contactId FROM link_clicks WHERE user_id = ?`).all(acc.user.id)).toEqual([{ contactId: kept.body.id }]);
      // A click after the merge names the contact kept: its message was moved to them.
      expect((await hit(`${t.ctx.config.linkDomain}/l/${link}`, CHROME)).status).toBe(302);
      expect(await flushClicks(t.ctx, true)).toBe(1);
      expect(db.query(`SELECT contact_id AS contactId, verdict FROM link_clicks WHERE user_id = ? ORDER BY id`).all(acc.user.id)).toEqual([
        { contactId: kept.body.id, verdict: "human" },
        { contactId: kept.body.id, verdict: "repeat" },
      ]);
    } finally {
      t.ctx.now = realNow;
    }
  });
});

describe("short-link codes (src/links/codes.ts)", () => {
  test("SipHash-2-4 gives the reference vector; ids and codes map one to one, within the alphabet and length", () => {
    // The reference implementation's vector: key 00..0f, message 00..07 -> 0x93f5f5799a932462 (low word 9a932462).
    const ref = codeKey("000102030405060708090a0b0c0d0e0f");
    expect(sipHash8(ref, 0x03020100, 0x07060504).toString(16)).toBe("9a932462");
    const key = codeKey(newCodeKey());
    const seen = new Set<string>();
    for (const id of [0, 1, 2, 3, 1_000_000, 2 ** 32, CODES - 1, ...Array.from({ length: 5000 }, (_, i) => i + 10)]) {
      const code = codeOf(key, id);
      expect(code).toMatch(/^[0-9A-Za-z]{7}$/);
      expect(idOf(key, code)).toBe(id);
      seen.add(code);
    }
    expect(seen.size).toBe(5007);
    // Another key, other codes.
    const other = codeKey(newCodeKey());
    expect([1, 2, 3].map((i) => codeOf(other, i))).not.toEqual([1, 2, 3].map((i) => codeOf(key, i)));
    expect(idOf(key, "short")).toBeNull();
    expect(idOf(key, "abc-def")).toBeNull();
    expect(() => codeOf(key, CODES)).toThrow();
  });
});
