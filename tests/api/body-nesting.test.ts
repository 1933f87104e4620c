// Deeply nested JSON is refused before anything parses it (src/http/body-nesting.ts), and the validation errors of
// what is parsed are formatted as in production (src/production-mode.ts): one 40 KB request once held every tenant
// for 20 s. The fuzz over every route (bad-input.test.ts) sends nesting to each; this file pins the rule's edges.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { MAX_JSON_DEPTH, nestsDeeperThan, TOO_DEEP } from "../../src/http/body-nesting";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
let token: string;
beforeAll(async () => {
  t = await startTestServer();
  token = (await t.signUpVerified()).token;
});
afterAll(() => t?.stop());

const arrays = (n: number) => "[".repeat(n) + "]".repeat(n);
const refused = { message: TOO_DEEP, code: "validation" };

async function timed(path: string, init: RequestInit) {
  const headers = new Headers(init.headers);
  headers.set("origin", new URL(t.ctx.config.publicUrl).origin);
  const healthStarted = performance.now();
  const started = performance.now();
  const [res, healthMs] = await Promise.all([
    fetch(t.url + path, { method: "POST", ...init, headers }),
    fetch(`${t.url}/api/health`).then(async (r) => (await r.arrayBuffer(), performance.now() - healthStarted)),
  ]);
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - started, healthMs };
}

test("the depth rule: 64 levels pass, 65 do not; brackets inside strings and escaped quotes are text", () => {
  expect(MAX_JSON_DEPTH).toBe(64);
  expect(nestsDeeperThan(arrays(64))).toBe(false);
  expect(nestsDeeperThan(arrays(65))).toBe(true);
  expect(nestsDeeperThan(`{"a":${arrays(63)}}`)).toBe(false);
  expect(nestsDeeperThan(`{"a":${arrays(64)}}`)).toBe(true);
  expect(nestsDeeperThan(`{"name":"${"[".repeat(1000)}"}`)).toBe(false);
  expect(nestsDeeperThan(`{"name":"a\\"${"{".repeat(100)}"}`)).toBe(false);
  expect(nestsDeeperThan(`{"name":"a\\\\"${"[".repeat(100)}`)).toBe(true);
  // Siblings do not add up: 10,000 arrays side by side, each 60 deep.
  expect(nestsDeeperThan(`[${Array.from({ length: 10_000 }, () => arrays(60)).join(",")}]`)).toBe(false);
});

test("20,000 and 1 MB deep bodies answer 400 in under 50 ms, signed in or not, and /api/health stays under 50 ms", async () => {
  const megabyte = arrays(500_000);
  for (const [label, path, body, auth] of [
    ["login, 20,000 deep", "/api/auth/login", arrays(20_000), {}],
    ["login, 1 MB deep", "/api/auth/login", megabyte, {}],
    ["sign-up, in a field", "/api/auth/register", `{"email":${arrays(20_000)},"password":"x"}`, {}],
    ["a contact, in a field, signed in", "/api/contacts", `{"firstName":${arrays(20_000)},"phone":"+14155550100"}`, { authorization: `Bearer ${token}` }],
  ] as const) {
    let best = await timed(path, { body, headers: { "content-type": "application/json", ...auth } });
    for (let retry = 0; retry < 2 && Math.max(best.ms, best.healthMs) > 50; retry++) {
      const again = await timed(path, { body, headers: { "content-type": "application/json", ...auth } });
      if (Math.max(again.ms, again.healthMs) < Math.max(best.ms, best.healthMs)) best = again;
    }
    expect([label, best.status, best.body]).toEqual([label, 400, refused]);
    expect(best.ms).toBeLessThan(50);
    expect(best.healthMs).toBeLessThan(50);
  }
});

test("every way to reach Elysia's JSON parser is checked: any *json type, a type it reads as JSON by its 13th letter, form fields, url-encoded fields and query values", async () => {
  const deep = arrays(100);
  const cases: [string, RequestInit][] = [
    ["application/vnd.api+json", { body: deep, headers: { "content-type": "application/vnd.api+json" } }],
    ["text/plain-xxj (Elysia reads it as JSON)", { body: deep, headers: { "content-type": "abcdefghijklj" } }],
    ["charset parameter", { body: deep, headers: { "content-type": "application/json; charset=utf-8" } }],
    ["url-encoded field", { body: `email=${encodeURIComponent(deep)}&password=x`, headers: { "content-type": "application/x-www-form-urlencoded" } }],
  ];
  for (const [label, init] of cases) {
    const res = await timed("/api/auth/login", init);
    expect([label, res.status, res.body]).toEqual([label, 400, refused]);
  }
  const form = new FormData();
  form.set("email", deep);
  form.set("password", "x");
  const multipart = await timed("/api/auth/login", { body: form });
  expect([multipart.status, multipart.body]).toEqual([400, refused]);
  const query = await fetch(`${t.url}/api/contacts?q=${deep}`, { headers: { authorization: `Bearer ${token}` } });
  expect([query.status, await query.json()]).toEqual([400, refused]);
});

test("a body within the depth reaches the route: its own validation answers, and a valid one is stored", async () => {
  const inField = await timed("/api/auth/login", { body: `{"email":${arrays(63)},"password":"x"}`, headers: { "content-type": "application/json" } });
  expect([inField.status, inField.body.message]).toEqual([400, "Invalid email: expected string"]);
  const brackets = "[".repeat(200);
  const created = await t.api("/api/contacts", { token, body: { firstName: brackets.slice(0, 100), phone: "+14155550101" } });
  expect([created.status, created.body.firstName]).toEqual([201, brackets.slice(0, 100)]);
  const segment = await t.api("/api/segments", { token, body: { name: "Deepest", conditions: { totalSpent: { gte: 0 } } } });
  expect(segment.status).toBe(201);
});

test("validation errors are formatted as in production: 875 KB of 62-deep arrays in a field answers in well under 150 ms", async () => {
  // In Elysia's development mode the failed value is formatted indented, with every error listed: 450-560 ms here
  // for this body (and 20 s for 20,000 levels); in production 60-90 ms.
  const body = `{"email":[${Array.from({ length: 7000 }, () => arrays(62)).join(",")}],"password":"x"}`;
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const res = await timed("/api/auth/login", { body, headers: { "content-type": "application/json" } });
    expect([res.status, res.body.message]).toEqual([400, "Invalid email: expected string"]);
    best = Math.min(best, res.ms);
  }
  expect(best).toBeLessThan(150);
});
