// The public API under /api/v1 (issue 16 item 2): contacts with cursor pages and upsert by phone, opt-outs, one
// SMS per Idempotency-Key (twice, and 20 at once), 422 for a reused key with another body, per-key rate limits.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { grantLicense } from "../../src/licenses/licenses";
import { Value } from "@sinclair/typebox/value";
import { SCHEMAS } from "../../src/public-api/contract";
import { KEY_QUOTA } from "../../src/public-api/guard";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const MAIN = "+14155550100";
let t: TestServer;
let twilio: TwilioFake;
let realNow: () => number;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: MAIN }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
  realNow = t.ctx.now;
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const ALL = ["contacts:read", "contacts:write", "messages:send", "messages:read", "segments:read", "keywords:read", "events:write", "campaigns:read", "campaigns:write"];

/** A Professional account sending through the Twilio fake, and an API key of it. */
async function keyed(permissions = ALL): Promise<{ acc: Account; key: string }> {
  const acc = await t.signUpVerified();
  // Campaigns to US numbers would otherwise wait for 8 AM there when the suite runs at night.
  expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
  await grantLicense(t.ctx, acc.user.id, "professional", 30);
  const p = await t.api("/api/sms-providers", {
    method: "POST",
    token: acc.token,
    body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
  });
  expect(p.status).toBe(201);
  expect((await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: { providerId: p.body.id, phoneNumber: MAIN } })).status).toBe(201);
  await t.confirm(acc);
  const k = await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "Test", permissions } });
  expect(k.status).toBe(201);
  return { acc, key: k.body.key };
}

const call = (key: string, path: string, method = "GET", body?: unknown, headers?: Record<string, string>) =>
  t.api(path, { method, token: key, body, headers, origin: false });

const ONE_PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const rawPost = async (key: string, path: string, bytes: Uint8Array) => {
  const res = await fetch(`${t.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: bytes as Uint8Array<ArrayBuffer> });
  return { status: res.status, body: (await res.json()) as any };
};

const outboundTo = (userId: string, phone: string) =>
  (t.ctx.db.$client.query(`SELECT count(*) AS n FROM messages WHERE user_id = ? AND phone = ? AND direction = 'outbound'`).get(userId, phone) as { n: number }).n;

describe("contacts", () => {
  test("create, read, patch, upsert by phone, opt out and delete", async () => {
    const { key } = await keyed();
    const made = await call(key, "/api/v1/contacts", "POST", { phone: "(415) 555-2101", firstName: "Ada", tags: ["vip", "vip", " shop "] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ phone: "+14155552101", firstName: "Ada", lastName: "", tags: ["vip", "shop"], status: "subscribed" });

    expect((await call(key, `/api/v1/contacts/${made.body.id}`)).body).toMatchObject({ id: made.body.id, firstName: "Ada" });
    const patched = await call(key, `/api/v1/contacts/${made.body.id}`, "PATCH", { lastName: "Lovelace" });
    expect(patched.body).toMatchObject({ firstName: "Ada", lastName: "Lovelace", tags: ["vip", "shop"] });

    const tagged = await call(key, `/api/v1/contacts/${made.body.id}/tags`, "POST", { add: ["spring"], remove: ["vip"] });
    expect(tagged.status).toBe(200);
    expect(tagged.body.tags).toEqual(["shop", "spring"]);
    const updated = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552101", firstName: "Augusta" });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: made.body.id, firstName: "Augusta", lastName: "Lovelace" });
    const created = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552102", firstName: "Grace" });
    expect(created.status).toBe(201);
    expect(created.body.id).not.toBe(made.body.id);

    const dup = await call(key, "/api/v1/contacts", "POST", { phone: "+14155552102" });
    expect(dup.status).toBe(409);

    const out = await call(key, "/api/v1/opt-outs", "POST", { phone: "+14155552102" });
    expect(out.status).toBe(201);
    expect(out.body).toMatchObject({ id: created.body.id, status: "opted_out" });
    const optOuts = await call(key, "/api/v1/opt-outs");
    expect(optOuts.body).toMatchObject({ data: [{ id: created.body.id, phone: "+14155552102", status: "opted_out" }], nextCursor: null });

    expect((await call(key, `/api/v1/contacts/${made.body.id}`, "DELETE")).body).toEqual({ deleted: true });
    expect((await call(key, `/api/v1/contacts/${made.body.id}`)).status).toBe(404);
  });

  test("cursor pages walk every contact once, and a forged cursor is a 400", async () => {
    const { key } = await keyed();
    const phones = Array.from({ length: 7 }, (_, i) => `+1415555300${i}`);
    for (const phone of phones) expect((await call(key, "/api/v1/contacts", "POST", { phone })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await call(key, `/api/v1/contacts?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((c: any) => c.phone));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(phones);
    const forged = await call(key, "/api/v1/contacts?cursor=not-a-cursor");
    expect(forged.status).toBe(400);
    expect(forged.body.message).toBe("Invalid cursor: pass back the nextCursor of a previous page");
  });

  test("another account's contact is a 404", async () => {
    const a = await keyed();
    const b = await keyed();
    const made = await call(a.key, "/api/v1/contacts", "POST", { phone: "+14155554001" });
    expect((await call(b.key, `/api/v1/contacts/${made.body.id}`)).status).toBe(404);
    expect((await call(b.key, `/api/v1/contacts/${made.body.id}`, "DELETE")).status).toBe(404);
  });
});

describe("POST /api/v1/messages with an Idempotency-Key", () => {
  test("sent twice, it queues one SMS and replays the first answer", async () => {
    const { acc, key } = await keyed();
    const body = { phone: "+14155555001", content: "Your order has shipped" };
    const first = await call(key, "/api/v1/messages", "POST", body, { "idempotency-key": "order-1001" });
    expect(first.status).toBe(202);
    const again = await call(key, "/api/v1/messages", "POST", body, { "idempotency-key": "order-1001" });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(outboundTo(acc.user.id, "+14155555001")).toBe(1);

    const status = await call(key, `/api/v1/messages/${first.body.id}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ id: first.body.id, phone: "+14155555001", content: "Your order has shipped" });
    await waitFor(() => twilio.messages.filter((m: any) => m.to === "+14155555001").length, (n) => n >= 1);
    expect(twilio.messages.filter((m: any) => m.to === "+14155555001")).toHaveLength(1);
  });

  test("20 at once queue one SMS; the same key with another body is a 422", async () => {
    const { acc, key } = await keyed();
    const body = { phone: "+14155555002", content: "Flash sale today" };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(key, "/api/v1/messages", "POST", body, { "idempotency-key": "sale-7" })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    // The work and its stored answer commit in one transaction, which requests cannot interleave: the first runs,
    // the other 19 replay it (none finds it half done, so none needs a 409).
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true").length).toBe(19);
    expect(outboundTo(acc.user.id, "+14155555002")).toBe(1);

    const other = await call(key, "/api/v1/messages", "POST", { ...body, content: "Another text" }, { "idempotency-key": "sale-7" });
    expect(other.status).toBe(422);
    expect(other.body.message).toBe("This Idempotency-Key was already used for a different request. Use a new key for a new request.");
    expect(other.body.code).toBe("idempotency_key_reused");
    expect(outboundTo(acc.user.id, "+14155555002")).toBe(1);
  });

  test("every POST takes one: a contact created twice with one key is created once; the key on another route is a 422", async () => {
    const { acc, key } = await keyed();
    const body = { phone: "+14155555010", firstName: "Once" };
    const first = await call(key, "/api/v1/contacts", "POST", body, { "idempotency-key": "crm-1" });
    const again = await call(key, "/api/v1/contacts", "POST", body, { "idempotency-key": "crm-1" });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const n = t.ctx.db.$client.query(`SELECT count(*) AS n FROM contacts WHERE user_id = ? AND phone = ?`).get(acc.user.id, "+14155555010") as { n: number };
    expect(n.n).toBe(1);
    const elsewhere = await call(key, "/api/v1/opt-outs", "POST", { phone: "+14155555010" }, { "idempotency-key": "crm-1" });
    expect(elsewhere.status).toBe(422);
  });

  test("keys are kept per API key: another key of the account sends its own message", async () => {
    const { acc, key } = await keyed();
    const second = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "Second", permissions: ALL } })).body.key;
    const body = { phone: "+14155555003", content: "Hello" };
    expect((await call(key, "/api/v1/messages", "POST", body, { "idempotency-key": "k" })).status).toBe(202);
    expect((await call(second, "/api/v1/messages", "POST", body, { "idempotency-key": "k" })).status).toBe(202);
    expect(outboundTo(acc.user.id, "+14155555003")).toBe(2);
  });
});

describe("segments, keywords and custom events", () => {
  test("lists page by cursor; a purchase event lands in the event log for automation", async () => {
    const { acc, key } = await keyed();
    for (const name of ["VIP", "Lapsed", "New"]) {
      expect((await t.api("/api/segments", { method: "POST", token: acc.token, body: { name, conditions: { tags: { contains: "x" } } } })).status).toBe(201);
    }
    const first = await call(key, "/api/v1/segments?limit=2");
    expect(first.body.data.map((s: any) => s.name)).toEqual(["VIP", "Lapsed"]);
    const rest = await call(key, `/api/v1/segments?limit=2&cursor=${first.body.nextCursor}`);
    expect(rest.body).toMatchObject({ data: [{ name: "New" }], nextCursor: null });
    expect((await call(key, "/api/v1/keywords")).body).toEqual({ data: [], nextCursor: null });

    const contact = (await call(key, "/api/v1/contacts", "POST", { phone: "+14155558001" })).body;
    const event = await call(key, "/api/v1/events", "POST", { type: "purchase", phone: "(415) 555-8001", data: { amount: 42.5, sku: "TEE-1" } });
    expect(event.status).toBe(201);
    expect(event.body.contactId).toBe(contact.id);
    const row = t.ctx.db.$client.query(`SELECT type, subject_id, payload FROM events WHERE id = ?`).get(event.body.eventId) as any;
    expect(row).toEqual({ type: "contact.purchased", subject_id: contact.id, payload: JSON.stringify({ data: { amount: 42.5, sku: "TEE-1" } }) });
    const unknown = await call(key, "/api/v1/events", "POST", { type: "purchase", phone: "+14155558999" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("Contact not found");
  });
});

describe("campaigns", () => {
  test("created from contact ids or a segment, sent, its progress read until every message is delivered", async () => {
    const { acc, key } = await keyed();
    const a = (await call(key, "/api/v1/contacts", "POST", { phone: "+14155559001", firstName: "Ann" })).body;
    const b = (await call(key, "/api/v1/contacts", "POST", { phone: "+14155559002", firstName: "Bob" })).body;
    expect((await call(key, "/api/v1/campaigns", "POST", { name: "Both", content: "Hi" })).body.message).toBe("Give either segmentId or contactIds");
    const made = await call(key, "/api/v1/campaigns", "POST", { name: "Sale", content: "Hi {firstName}, 20% off today", contactIds: [a.id, b.id] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: "Sale", status: "draft", audience: { kind: "contacts", contactIds: [a.id, b.id] } });
    const sent = await call(key, `/api/v1/campaigns/${made.body.id}/send`, "POST", undefined, { "idempotency-key": "send-sale" });
    expect(sent.status).toBe(202);
    const twice = await call(key, `/api/v1/campaigns/${made.body.id}/send`, "POST", undefined, { "idempotency-key": "send-sale" });
    expect(twice.headers.get("idempotent-replayed")).toBe("true");
    // The replay answers the stored answer, the campaign as the send answered it (a body stored unawaited was {}).
    expect(twice.body).toEqual(sent.body);
    expect(twice.body.campaign).toMatchObject({ id: made.body.id, status: "sending" });
    const again = { name: "Once", content: "Hi", contactIds: [a.id] };
    const once = await call(key, "/api/v1/campaigns", "POST", again, { "idempotency-key": "make-once" });
    const replayed = await call(key, "/api/v1/campaigns", "POST", again, { "idempotency-key": "make-once" });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(once.body);
    expect(replayed.body).toMatchObject({ name: "Once", status: "draft" });
    const done = await waitFor(
      () => call(key, `/api/v1/campaigns/${made.body.id}`).then((r) => r.body),
      (c: any) => c.counts.sent + c.counts.delivered === 2,
    );
    expect(done.counts.recipients).toBe(2);
    expect(twilio.messages.filter((m: any) => m.to === "+14155559001" || m.to === "+14155559002").map((m: any) => m.body).sort()).toEqual([
      "Hi Ann, 20% off today\nReply STOP to opt out",
      "Hi Bob, 20% off today\nReply STOP to opt out",
    ]);

    const seg = await t.api("/api/segments", { method: "POST", token: acc.token, body: { name: "Everyone", conditions: { tags: { contains: "x" } } } });
    expect(seg.status).toBe(201);
    const bySegment = await call(key, "/api/v1/campaigns", "POST", { name: "Seg", content: "Hello", segmentId: seg.body.id });
    expect(bySegment.status).toBe(201);
    expect(bySegment.body.audience.kind).toBe("segment");
    const readOnly = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "R", permissions: ["campaigns:read"] } })).body.key;
    expect((await call(readOnly, `/api/v1/campaigns/${made.body.id}`)).status).toBe(200);
    expect((await call(readOnly, `/api/v1/campaigns/${made.body.id}/send`, "POST")).status).toBe(403);
  });
});

describe("A/B tests (issue 32 item 3)", () => {
  test("a campaign created with abTest answers it, is sent to the test share, and bad tests are refused with the reason", async () => {
    const { key } = await keyed();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await call(key, "/api/v1/contacts", "POST", { phone: `+1415555930${i}`, firstName: `P${i}` })).body.id as string);
    const abTest = { variants: ["Doors open at 9", "Doors open at 9, first 50 get a gift"], testPercent: 50, measure: "replies" };
    const made = await call(key, "/api/v1/campaigns", "POST", { name: "A/B", content: "Doors open at 9", contactIds: ids, abTest });
    expect(made.status).toBe(201);
    expect(made.body.abTest).toEqual({
      variants: [
        { label: "A", content: "Doors open at 9" },
        { label: "B", content: "Doors open at 9, first 50 get a gift" },
      ],
      testPercent: 50,
      measure: "replies",
      decideAfterHours: null,
      winner: null,
      decidedAt: null,
      decidedBy: null,
    });
    expect([...Value.Errors(SCHEMAS.Campaign!, made.body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
    // Half of 4: one test text a variant, two kept for the winner.
    const sent = await call(key, `/api/v1/campaigns/${made.body.id}/send`, "POST", undefined, { "idempotency-key": "send-ab" });
    expect([sent.status, sent.body.queued]).toEqual([202, 2]);
    expect((await call(key, `/api/v1/campaigns/${made.body.id}`)).body.abTest.winner).toBeNull();

    const refused = async (body: Record<string, unknown>) => {
      const r = await call(key, "/api/v1/campaigns", "POST", { name: "Bad", content: "Doors open at 9", contactIds: ids, ...body });
      return [r.status, r.body.message];
    };
    expect(await refused({ abTest: { ...abTest, variants: ["Doors open at 10", "Other"] } })).toEqual([400, "abTest.variants[0] is variant A: the campaign's content, as written in content"]);
    expect(await refused({ abTest: { ...abTest, testPercent: 60 } })).toEqual([400, "abTest.testPercent is a whole percent from 2 to 50"]);
    expect(await refused({ abTest: { ...abTest, variants: ["Doors open at 9"] } })).toEqual([400, "abTest.variants lists 2 to 4 texts, the first being content"]);
    expect(await refused({ abTest: { ...abTest, measure: "clicks" } })).toEqual([400, "Variant A has no link to click: the click rate needs a link in every variant"]);
  });
});

describe("rate limits", () => {
  test("every answer carries RateLimit-Policy and RateLimit; past the quota, 429 with Retry-After", async () => {
    const { key } = await keyed(["contacts:read"]);
    const start = realNow();
    try {
      t.ctx.now = () => start;
      const first = await call(key, "/api/v1/contacts");
      expect(first.headers.get("ratelimit-policy")).toBe(`"default";q=${KEY_QUOTA};w=10`);
      expect(first.headers.get("ratelimit")).toBe(`"default";r=${KEY_QUOTA - 1};t=10`);
      // A refused scope is an answer too, and it counts.
      const refused = await call(key, "/api/v1/contacts", "POST", { phone: "+14155556001" });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("ratelimit")).toBe(`"default";r=${KEY_QUOTA - 2};t=10`);
      for (let i = 2; i < KEY_QUOTA; i++) expect((await call(key, "/api/v1/contacts")).status).toBe(200);
      t.ctx.now = () => start + 3_000;
      const over = await call(key, "/api/v1/contacts");
      expect(over.status).toBe(429);
      expect(over.headers.get("retry-after")).toBe("7");
      expect(over.headers.get("ratelimit")).toBe(`"default";r=0;t=7`);
      expect(over.body.message).toBe(`This API key made more than ${KEY_QUOTA} requests in 10 seconds. Retry after 7 s.`);
      t.ctx.now = () => start + 10_000;
      expect((await call(key, "/api/v1/contacts")).status).toBe(200);
    } finally {
      t.ctx.now = realNow;
    }
  });
});

describe("upsert keeps the contact's tags (issue 28 item 8)", () => {
  test("the recipe's tags are added to the ones the contact has; replaceTags: true makes them the whole list", async () => {
    const { key } = await keyed();
    const made = await call(key, "/api/v1/contacts", "POST", { phone: "+14155552201", firstName: "Ana", tags: ["vip", "spring"] });
    expect(made.body.tags).toEqual(["vip", "spring"]);

    // The Shopify card's example body, sent for a customer who already is a VIP.
    const shop = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552201", firstName: "Ana", tags: ["shopify"] });
    expect(shop.status).toBe(200);
    expect(shop.body.tags).toEqual(["vip", "spring", "shopify"]);
    const again = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552201", tags: ["shopify", " vip "] });
    expect(again.body.tags).toEqual(["vip", "spring", "shopify"]);
    const untouched = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552201", email: "ana@example.com" });
    expect(untouched.body.tags).toEqual(["vip", "spring", "shopify"]);

    const replaced = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552201", tags: ["hubspot"], replaceTags: true });
    expect(replaced.status).toBe(200);
    expect(replaced.body.tags).toEqual(["hubspot"]);
    expect((await call(key, `/api/v1/contacts/${made.body.id}`)).body.tags).toEqual(["hubspot"]);

    const fresh = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552202", tags: ["hubspot"], replaceTags: true });
    expect(fresh.status).toBe(201);
    expect(fresh.body.tags).toEqual(["hubspot"]);
    const bad = await call(key, "/api/v1/contacts/upsert", "POST", { phone: "+14155552202", replaceTags: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("replaceTags is true or false");
  });
});

describe("OpenAPI", () => {
  test("every /api/v1 route is in the document at /api/openapi.json, and /api/docs renders it without outside assets", async () => {
    const doc = await t.api("/api/openapi.json", { origin: false });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    const documented = Object.entries(doc.body.paths).flatMap(([path, ops]: [string, any]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const { createApp } = await import("../../src/app");
    const registered = createApp(t.ctx)
      .routes.filter((r) => r.path.startsWith("/api/v1/"))
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
    expect(registered.length).toBe(18);
    expect(documented.sort()).toEqual([...new Set(registered)].sort());
    expect(doc.body.paths["/api/v1/messages"].post.requestBody.content["application/json"].schema.required).toEqual(["phone", "content"]);

    const page = await fetch(`${t.url}/api/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<code>POST /api/v1/messages</code>");
    expect(html).toContain("<code>POST /api/v1/media</code>");
    expect(html).toContain("<h4>Request body (the file)</h4><p>The file&#39;s bytes (JPEG, PNG, GIF, PDF or vCard), at most 12 MB before it is made smaller</p>");
    expect(html).not.toMatch(/<script|https?:\/\/(?!localhost)[^"]*\.(js|css)/);
  });

  test("each operation refuses a key that lacks the permission the document names", async () => {
    const doc = (await t.api("/api/openapi.json", { origin: false })).body;
    const ops = Object.entries(doc.paths).flatMap(([path, o]: [string, any]) => Object.entries(o).map(([method, op]: [string, any]) => ({ path, method, scope: op.security[0].apiKey[0] })));
    const { acc } = await keyed();
    const without = new Map<string, string>();
    for (const scope of ALL) {
      const k = await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: `Without ${scope}`, permissions: ALL.filter((s) => s !== scope) } });
      without.set(scope, k.body.key);
    }
    const refused: string[] = [];
    for (const o of ops) {
      const r = await call(without.get(o.scope)!, o.path.replace("{id}", "x"), o.method.toUpperCase(), o.method === "get" || o.method === "delete" ? undefined : {});
      refused.push(`${o.method.toUpperCase()} ${o.path} ${r.status} ${r.body.message}`);
    }
    expect(refused).toEqual(ops.map((o) => `${o.method.toUpperCase()} ${o.path} 403 This API key lacks the '${o.scope}' permission. Create a key with it under Integrations.`));
    // Every permission guards some operation: none is documented and never asked for.
    expect([...new Set(ops.map((o) => o.scope))].sort()).toEqual([...ALL].sort());
  });

  test("a client driven by the document calls every operation successfully, and each answer is the documented one", async () => {
    const { key } = await keyed();
    const doc = (await t.api("/api/openapi.json", { origin: false })).body;
    let n = 0;
    const phones: string[] = [];
    const ids = new Map<string, string>();
    /** An example value for a schema: a fresh phone for 'phone', text for 'content', the const, the type's plain value else. */
    const example = (name: string, s: any): unknown =>
      name === "phone" ? (phones.push(`+1415555${String(7000 + ++n)}`), phones.at(-1)) : name === "content" ? "Hello from the generated client" : s.const ?? (s.type === "array" ? [] : s.type === "object" ? {} : s.type === "integer" ? 1 : "x");
    // The required fields; an optional phone names the first contact the client made (who an event is about), an
    // optional '<resource>Ids' the first of that resource it made (a campaign's contacts).
    const bodyFor = (s: any) => ({
      ...(s.properties.phone && !(s.required ?? []).includes("phone") && phones.length ? { phone: phones[0] } : {}),
      ...Object.fromEntries(Object.keys(s.properties).filter((p) => p.endsWith("Ids") && ids.has(`${p.slice(0, -3)}s`)).map((p) => [p, [ids.get(`${p.slice(0, -3)}s`)]])),
      ...Object.fromEntries((s.required ?? []).map((p: string) => [p, example(p, s.properties[p])])),
    });
    const ops = Object.entries(doc.paths).flatMap(([path, o]: [string, any]) => Object.entries(o).map(([method, op]) => ({ path, method, op: op as any })));
    // Creations first (they give the ids), then reads and changes, deletions last.
    const rank = (o: (typeof ops)[number]) => (o.method === "delete" ? 3 : o.path.includes("{") ? 2 : o.method === "post" ? 0 : 1);
    const statuses: string[] = [];
    const mismatches: string[] = [];
    for (const o of ops.sort((a, b) => rank(a) - rank(b))) {
      const resource = o.path.split("/")[3]!;
      const url = o.path.replace("{id}", ids.get(resource) ?? "missing");
      const schema = o.op.requestBody?.content["application/json"]?.schema;
      // A body of raw bytes (POST /api/v1/media): a one-pixel PNG.
      const r = o.op.requestBody?.content["application/octet-stream"]
        ? await rawPost(key, `${url}?filename=dot.png`, ONE_PIXEL_PNG)
        : await call(key, url, o.method.toUpperCase(), schema ? bodyFor(schema) : undefined, o.method === "post" ? { "idempotency-key": `gen-${++n}` } : undefined);
      if (o.method === "post" && r.body?.id && !ids.has(resource)) ids.set(resource, r.body.id);
      statuses.push(`${o.method.toUpperCase()} ${o.path} ${r.status}`);
      // The answer is the one documented for its status, field for field.
      const documented = SCHEMAS[o.op.responses[r.status]?.content["application/json"].schema.$ref?.split("/").at(-1)];
      if (!documented) mismatches.push(`${o.method.toUpperCase()} ${o.path} ${r.status}: not documented`);
      else for (const e of Value.Errors(documented, r.body)) mismatches.push(`${o.method.toUpperCase()} ${o.path} ${e.path}: ${e.message}`);
    }
    expect(mismatches).toEqual([]);
    expect(statuses.filter((s) => !/ 20[0-4]$/.test(s))).toEqual([]);
    expect(statuses).toHaveLength(18);
  });
});
