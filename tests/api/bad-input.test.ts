/**
 * Every route of the app, taken from the app's own route list (a new route is covered without editing this file),
 * gets bad input with and without a session: malformed JSON, bodies of the wrong type, 1 MB strings, NUL
 * characters, wrong field types, hostile path parameters, bad paging values and a malformed session cookie.
 * Nothing may answer 5xx, nothing an unauthenticated caller sends may take more than 100 ms, and nothing a
 * signed-in caller sends may hold the server for a second. No route is skipped: the routes that stream (the CSV
 * export) are read to the end, and those that call out (a provider's connection test, its numbers) reach only
 * the built-in simulator. The signed-in caller is an administrator with one record of each kind, so bad input
 * reaches the work of each route, not only its not-found answer.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createApp } from "../../src/app";
import { createSession } from "../../src/auth/sessions";
import { readsOwnBody } from "../../src/http/body-limit";
import { TOO_DEEP } from "../../src/http/body-nesting";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
let userId: string;
let token: string;

type Route = { method: string; path: string; body: string[]; query: string[] };
let routes: Route[] = [];

type Probe = { label: string; path: string; body?: string; contentType?: string; cookie?: string };
type Outcome = { route: string; label: string; status: number; ms: number; authed: boolean };

// A million characters: the body still fits the 1 MB JSON limit, so the field itself reaches validation.
const MB = "x".repeat(1_000_000);
const HOSTILE_PARAMS = ["%00", "..%2F", "a".repeat(10 * 1024), "%E0%A4%A"];
const BAD_NUMBERS = ["1.5", "1e309", "99999999999999999999", "-1", "abc", "0", ""];
const BAD_STRINGS = ["a%00b", "%E0%A4%A", "y".repeat(10 * 1024)];
/** Raw JSON values put in every known body field: each is the wrong type or out of range for some field. */
const WRONG_VALUES = ["[]", "{}", "1e309", "-1", "1.5", "true", "null", '"a\\u0000b"', '"%E0%A4%A"'];
const SLOW_MS = 100;
/** How long a refusal of deeply nested JSON, and a health check sent with it, may take: the parse never starts. */
const DEEP_MS = 50;
/** Arrays 20,000 deep: 40 KB that held the event loop for 20 s when Elysia ran in its development mode. */
const DEEP = "[".repeat(20_000) + "]".repeat(20_000);
/** What no signed-in caller may hold the server for with bad input either (seconds were seen: see customFieldsOf). */
const STALL_MS = 1000;

/** The properties of an object schema (also inside Optional/Union wrappers). */
function propsOf(schema: any): string[] {
  if (!schema || typeof schema !== "object") return [];
  if (schema.properties) return Object.keys(schema.properties);
  for (const inner of schema.anyOf ?? []) {
    const p = propsOf(inner);
    if (p.length) return p;
  }
  return [];
}

const MISSING_ID = "00000000-0000-7000-8000-000000000000";
/**
 * Real records of the signed-in user (by path prefix), so that with a session the bad input reaches the route's
 * work on an existing row; DELETE routes get a missing id, so that one probe does not remove the row the others need.
 */
const existing: { prefix: string; id: string }[] = [];
const NORMAL_PARAM: Record<string, string> = { provider: "simulator", action: "disable" };
function fill(path: string, over: Record<string, string> = {}, method = "GET") {
  const record = method === "DELETE" ? undefined : existing.find((e) => path.startsWith(e.prefix))?.id;
  return path.replace(/:(\w+)/g, (_m, name: string) => over[name] ?? NORMAL_PARAM[name] ?? (name === "userId" ? userId : record) ?? MISSING_ID);
}

function probesFor(r: Route): Probe[] {
  const probes: Probe[] = [];
  const base = fill(r.path, {}, r.method);
  const hasBody = r.method !== "GET" && r.method !== "HEAD";
  for (const name of [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)) {
    for (const v of HOSTILE_PARAMS) probes.push({ label: `param ${name}=${v.slice(0, 12)}`, path: fill(r.path, { [name]: v }, r.method) });
  }
  const queryFields = [...new Set([...r.query, "page", "pageSize", "q"])];
  for (const f of queryFields) {
    for (const v of [...BAD_NUMBERS, ...BAD_STRINGS]) probes.push({ label: `query ${f}=${v.slice(0, 12)}`, path: `${base}?${f}=${v}` });
  }
  probes.push({ label: "query page=2&pageSize=1000", path: `${base}?page=2&pageSize=1000` });
  probes.push({ label: "query page=100001", path: `${base}?page=100001` });
  probes.push({ label: "malformed cookie", path: base, cookie: "%E0%A4%A" });
  if (hasBody) {
    probes.push({ label: "malformed JSON", path: base, body: '{"a":' });
    for (const raw of ["[]", '"text"', "123", "null", "{}", '{"unknownField":1}']) probes.push({ label: `body ${raw}`, path: base, body: raw });
    probes.push({ label: "text body", path: base, body: "a\u0000b", contentType: "text/plain" });
    probes.push({ label: "urlencoded body", path: base, body: "a=%E0%A4%A&b=\u0000", contentType: "application/x-www-form-urlencoded" });
    probes.push({ label: "multipart body", path: base, body: "--x\r\nbroken", contentType: "multipart/form-data; boundary=x" });
    const fields = r.body.length ? r.body : ["unknownField"];
    probes.push({ label: "NUL in every field", path: base, body: JSON.stringify(Object.fromEntries(fields.map((f) => [f, "a\u0000b"]))) });
    for (const f of fields) {
      probes.push({ label: `1 MB ${f}`, path: base, body: JSON.stringify({ [f]: MB }) });
      for (const v of WRONG_VALUES) probes.push({ label: `${f}=${v}`, path: base, body: `{"${f}":${v}}` });
    }
  }
  return probes;
}

async function send(r: Route, p: Probe, authed: boolean): Promise<Outcome> {
  // The appliance's own origin, as its pages send: so that requests pass the cross-site check and reach the route.
  const headers: Record<string, string> = { origin: new URL(t.ctx.config.publicUrl).origin };
  if (p.body !== undefined) headers["content-type"] = p.contentType ?? "application/json";
  if (authed) headers.authorization = `Bearer ${token}`;
  if (p.cookie !== undefined) headers.cookie = `smsdesk_session=${p.cookie}`;
  const started = performance.now();
  let status: number;
  try {
    const res = await fetch(t.url + p.path, { method: r.method, headers, body: p.body, redirect: "manual" });
    await res.arrayBuffer();
    status = res.status;
  } catch {
    // A connection reset halfway through an answer (the CSV export once did this) counts as a server error.
    status = 599;
  }
  return { route: `${r.method} ${r.path}`, label: p.label, status, ms: performance.now() - started, authed };
}

/** Sends a probe and, at the same moment, a health check: both durations, the health check's answer included. */
async function sendWithHealth(r: Route, p: Probe, authed: boolean) {
  const health = (async () => {
    const started = performance.now();
    const res = await fetch(`${t.url}/api/health`);
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started };
  })();
  const [probe, check] = await Promise.all([send(r, p, authed), health]);
  return { probe, health: check };
}

/** The test user's session stays usable: a route that signs out or changes the account gets a fresh one. */
async function keepSession() {
  const me = await fetch(`${t.url}/api/auth/user`, { headers: { authorization: `Bearer ${token}` } });
  if (me.status === 200) return;
  t.ctx.db.$client.run("UPDATE users SET role = 'admin', disabled = 0, email_verified = 1 WHERE id = ?", [userId]);
  token = (await createSession(t.ctx, userId)).token;
}

async function post(path: string, body: unknown) {
  const res = await t.api(path, { body, token });
  if (res.status >= 300) throw new Error(`seeding ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** One record of each kind the routes take an id of, and contacts to search, page and export. */
async function seed() {
  for (let i = 0; i < 12; i++) await post("/api/contacts", { firstName: `Ann${i}`, lastName: "Bee", phone: `+1415555${String(100 + i).padStart(4, "0")}` });
  const contact = (await t.api("/api/contacts?pageSize=1", { token })).body.data[0];
  const segment = await post("/api/segments", { name: "All", conditions: { totalSpent: { gte: 0 } } });
  const provider = await post("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  const numbers = (await t.api(`/api/providers/${provider.id}/available-numbers`, { token })).body.numbers;
  const number = await post("/api/phone-numbers", { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 0 });
  const campaign = await post("/api/campaigns", { name: "Draft", type: "sms", content: "Hello", recipients: ["+14155550100"], fromNumber: number.phoneNumber });
  const message = await post("/api/messages/send", { phone: "+14155550101", content: "Hi" });
  const other = await t.signUpVerified();
  const plan = (await t.api("/api/admin/plans", { token })).body.data[0];
  const code = (await post("/api/admin/license-codes", { planId: plan.id, durationDays: 30 })).data.codes[0];
  await post("/api/contact", { name: "N", email: "n@example.com", subject: "S", message: "M" });
  const contactMessage = (await t.api("/api/admin/contact-messages", { token })).body.data[0];
  existing.push(
    { prefix: "/api/contacts/:id", id: contact.id },
    { prefix: "/api/segments/", id: segment.id },
    { prefix: "/api/sms-providers/", id: provider.id },
    { prefix: "/api/providers/", id: provider.id },
    { prefix: "/api/phone-numbers/", id: number.id },
    { prefix: "/api/campaigns/", id: campaign.id },
    { prefix: "/api/messages/", id: message.id },
    { prefix: "/api/admin/users/", id: other.user.id },
    { prefix: "/api/admin/plans/", id: plan.id },
    { prefix: "/api/admin/license-codes/", id: code },
    { prefix: "/api/admin/contact-messages/", id: contactMessage.id },
  );
}

beforeAll(async () => {
  t = await startTestServer();
  const account = await t.signUpVerified();
  userId = account.user.id;
  // An administrator, so that the admin routes are reached past the role check too.
  t.ctx.db.$client.run("UPDATE users SET role = 'admin' WHERE id = ?", [userId]);
  token = (await t.confirm(account)).token;
  await seed();
  routes = createApp(t.ctx).routes.map((r: any) => ({
    method: r.method,
    path: r.path,
    body: propsOf(r.hooks?.body),
    query: propsOf(r.hooks?.query),
  }));
}, 60_000);
afterAll(() => t?.stop());

test("the route list is the app's own and covers every domain", () => {
  expect(routes.length).toBeGreaterThan(100);
  for (const p of ["/api/contacts/", "/api/segments/:id", "/api/sms-providers/:id", "/api/phone-numbers/:id", "/api/admin/users", "/api/webhooks/:provider/sms/:userId"]) {
    expect(routes.some((r) => r.path === p)).toBe(true);
  }
});

const idOf = (prefix: string) => existing.find((e) => e.prefix === prefix)!.id;
const timed = async (path: string, opts: Parameters<TestServer["api"]>[1] = {}) => {
  const started = performance.now();
  const res = await t.api(path, opts);
  return { ...res, ms: performance.now() - started };
};

test("JSON nested 20,000 deep, alone or in a field, and a query value nested 100 deep answer every route in under 50 ms with a concurrent /api/health under 50 ms", async () => {
  const wrong: string[] = [];
  for (const r of routes) {
    const base = fill(r.path, {}, r.method);
    const probes: Probe[] = [{ label: "query nested 100 deep", path: `${base}?q=${"[".repeat(100)}${"]".repeat(100)}` }];
    if (r.method !== "GET" && r.method !== "HEAD") {
      const field = r.body[0] ?? "unknownField";
      probes.push({ label: "body nested 20,000 deep", path: base, body: DEEP }, { label: `${field} nested 20,000 deep`, path: base, body: `{"${field}":${DEEP}}` });
    }
    // Routes that read their own body (uploads, provider webhooks) never parse it as JSON: any answer but 5xx.
    const ownBody = readsOwnBody(r.method, base);
    for (const authed of [false, true]) {
      for (const p of probes) {
        let outcome = await sendWithHealth(r, p, authed);
        // Eight test runs share two cores: a slow answer counts when it stays slow twice more (the fastest of three).
        for (let retry = 0; retry < 2 && Math.max(outcome.probe.ms, outcome.health.ms) > DEEP_MS; retry++) {
          const again = await sendWithHealth(r, p, authed);
          if (Math.max(again.probe.ms, again.health.ms) < Math.max(outcome.probe.ms, outcome.health.ms)) outcome = again;
        }
        const { probe, health } = outcome;
        const statusOk = ownBody && p.body !== undefined ? probe.status < 500 : probe.status === 400;
        if (!statusOk || probe.ms > DEEP_MS || health.status !== 200 || health.ms > DEEP_MS) {
          wrong.push(`${probe.route} [${authed ? "session" : "no session"}] ${p.label}: ${probe.status} in ${probe.ms.toFixed(0)} ms, health ${health.status} in ${health.ms.toFixed(0)} ms`);
        }
        if (authed) await keepSession();
      }
    }
  }
  expect(wrong).toEqual([]);
  // The refusal names the rule, before the session is even looked at.
  const refused = await t.api("/api/segments", { body: DEEP });
  expect([refused.status, refused.body]).toEqual([400, { message: TOO_DEEP, code: "validation" }]);
}, 600_000);

test("paging values outside whole numbers 1..100000 and 1..the list's maximum answer 400 with the rule", async () => {
  const page = "page must be a whole number from 1 to 100000";
  for (const [query, message] of [
    ["page=1.5", page],
    ["page=1e309", page],
    ["page=99999999999999999999", page],
    ["page=-1", page],
    ["page=abc", page],
    ["page=100001", page],
    ["pageSize=1.5", "pageSize must be a whole number from 1 to 200"],
    ["page=2&pageSize=1000", "pageSize must be a whole number from 1 to 200"],
  ]) {
    const res = await t.api(`/api/contacts?${query}`, { token });
    expect([query, res.status, res.body.message]).toEqual([query, 400, message]);
  }
  expect((await t.api("/api/campaigns?pageSize=101", { token })).body.message).toBe("pageSize must be a whole number from 1 to 100");
  expect((await t.api("/api/admin/users?page=1e309", { token })).body.message).toBe(page);
  const last = await t.api("/api/contacts?page=100000&pageSize=200", { token });
  expect([last.status, last.body.data, last.body.page]).toEqual([200, [], 100000]);
  const second = await t.api("/api/contacts?page=2&pageSize=5&sort=name&order=asc", { token });
  expect(second.body.data.map((c: any) => c.firstName)).toEqual(["Ann3", "Ann4", "Ann5", "Ann6", "Ann7"]);
});

test("a NUL character in a search separates words: the list and the CSV export answer in full", async () => {
  const list = await t.api("/api/contacts?q=Ann1%00&sort=name&order=asc", { token });
  expect(list.status).toBe(200);
  expect(list.body.data.map((c: any) => c.firstName)).toEqual(["Ann1", "Ann10", "Ann11"]);
  const csv = await t.api("/api/contacts/export.csv?q=a%00b", { token });
  expect(csv.status).toBe(200);
  expect(csv.text.trim().split("\r\n")).toHaveLength(1);
  const all = await t.api("/api/contacts/export.csv?q=Ann%00", { token });
  expect(all.text.trim().split("\r\n")).toHaveLength(13);
});

test("PATCH of a provider or a number takes an object naming at least one known field", async () => {
  for (const path of [`/api/sms-providers/${idOf("/api/sms-providers/")}`, `/api/phone-numbers/${idOf("/api/phone-numbers/")}`]) {
    const patch = (body: string) => t.api(path, { method: "PATCH", token, body });
    for (const body of ["[]", '"text"', "123", "null"]) {
      expect([body, (await patch(body)).status, (await patch(body)).body.message]).toEqual([body, 400, "The request body must be a JSON object"]);
    }
    const empty = await patch("{}");
    expect(empty.status).toBe(400);
    expect(empty.body.message).toStartWith("Nothing to update: send at least one of displayName, ");
    const unknown = await patch('{"displayName":"A","colour":"red"}');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toStartWith("Unknown field colour: send only displayName, ");
    const ok = await patch('{"displayName":"Renamed"}');
    expect([ok.status, ok.body.displayName]).toEqual([200, "Renamed"]);
  }
});

test("segment conditions and contact custom fields are bounded: a megabyte string answers 400 at once", async () => {
  const huge = "a".repeat(1_000_000);
  const create = await timed("/api/segments", { token, body: { name: "Huge", conditions: huge } });
  expect([create.status, create.body.message]).toEqual([400, "Conditions must be an object of field: {operator: value}"]);
  expect(create.ms).toBeLessThan(SLOW_MS);
  const update = await timed(`/api/segments/${idOf("/api/segments/")}`, { method: "PUT", token, body: { name: "Huge", conditions: huge } });
  expect(update.status).toBe(400);
  expect(update.ms).toBeLessThan(SLOW_MS);
  const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`customFields.f${i}`, { eq: "x" }]));
  expect((await t.api("/api/segments", { token, body: { name: "Many", conditions: many } })).body.message).toBe("A segment can have at most 20 conditions");
  const custom = await timed("/api/contacts", { token, body: { firstName: "C", phone: "+14155550199", customFields: huge } });
  expect([custom.status, custom.body.message]).toEqual([400, "Custom fields must be an object of name: text"]);
  expect(custom.ms).toBeLessThan(SLOW_MS);
  const fields = await t.api("/api/contacts", { token, body: { firstName: "C", phone: "+14155550199", customFields: { city: "Oslo", " ": "dropped" } } });
  expect([fields.status, fields.body.customFields]).toEqual([201, { city: "Oslo" }]);
});

test("a guarded route refuses a caller without a session before reading the body: 401, not a parse or validation error", async () => {
  expect((await t.api("/api/segments", { body: '{"name":' })).status).toBe(401);
  expect((await t.api("/api/segments", { body: { name: 5 } })).status).toBe(401);
  expect((await t.api("/api/contacts?page=1e309")).status).toBe(401);
  // 800,000 nested conditions (within the 1 MB body limit) cost a caller without a session nothing.
  const conditions = `{${Array.from({ length: 80_000 }, (_, i) => `"f${i}":{}`).join(",")}}`;
  const res = await timed("/api/segments", { body: `{"name":"x","conditions":${conditions}}` });
  expect(res.status).toBe(401);
  expect(res.ms).toBeLessThan(SLOW_MS);
});

test("signed-in calls without a body still work with the JSON content type the app's pages always send", async () => {
  const json = { "content-type": "application/json" };
  const refresh = await t.api(`/api/segments/${idOf("/api/segments/")}/refresh`, { method: "POST", token, headers: json });
  expect([refresh.status, refresh.body.name]).toEqual([200, "All"]);
  const added = await post("/api/contacts", { firstName: "Gone", phone: "+14155550198" });
  const removed = await t.api(`/api/contacts/${added.id}`, { method: "DELETE", token, headers: json });
  expect([removed.status, removed.body.message]).toEqual([200, "Contact deleted"]);
  const optOut = await t.api(`/api/contacts/${idOf("/api/contacts/:id")}/opt-out`, { method: "POST", token, headers: json });
  expect([optOut.status, optOut.body.status]).toEqual([200, "opted_out"]);
});

test("a signed-in call whose body is not a JSON object answers 400, also where every field is optional", async () => {
  for (const [method, path] of [
    ["PUT", `/api/admin/plans/${idOf("/api/admin/plans/")}`],
    ["PATCH", "/api/user/settings"],
    ["POST", `/api/campaigns/${idOf("/api/campaigns/")}/pause`],
  ]) {
    for (const body of ["[]", '"text"', "5", "null", "true"]) {
      const res = await t.api(path!, { method, token, body });
      expect([method, path, body, res.status, res.body.message]).toEqual([method, path, body, 400, "The request body must be a JSON object"]);
    }
  }
});

test("no route answers 5xx to bad input, with or without a session; unauthenticated answers stay under 100 ms, signed-in ones under 1 s", async () => {
  const serverErrors: Outcome[] = [];
  const slow: Outcome[] = [];
  for (const r of routes) {
    const probes = probesFor(r);
    // Warm-up: Elysia compiles a route's handler on its first request.
    await send(r, { label: "warm-up", path: fill(r.path, {}, r.method) }, false);
    for (const authed of [false, true]) {
      for (const p of probes) {
        let o = await send(r, p, authed);
        const limit = authed ? STALL_MS : SLOW_MS;
        // Eight test runs share two cores: a slow answer counts when it stays slow twice more (the fastest of three).
        for (let retry = 0; retry < 2 && o.ms > limit; retry++) {
          const again = await send(r, p, authed);
          if (again.ms < o.ms) o = again;
        }
        if (o.status >= 500) serverErrors.push(o);
        if (o.ms > limit) slow.push(o);
        if (authed) await keepSession();
      }
    }
  }
  const show = (list: Outcome[]) => list.map((o) => `${o.route} [${o.authed ? "session" : "no session"}] ${o.label}: ${o.status} in ${o.ms.toFixed(0)} ms`);
  expect({ serverErrors: show(serverErrors), slow: show(slow) }).toEqual({ serverErrors: [], slow: [] });
}, 600_000);
