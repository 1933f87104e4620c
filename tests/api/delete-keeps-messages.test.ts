/**
 * Deleting a sender number or a provider account keeps the messages sent through them (the account's totals, each
 * contact's thread, the history): they are detached a chunk at a time with turns of the event loop between
 * (src/messages/detach.ts), where the foreign keys' SET NULL did them all inside the DELETE. Messages are written
 * straight into the database as the engine leaves them, so the expected values are exact.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { grantLicense } from "../../src/licenses/licenses";
import { DETACH_CHUNK } from "../../src/messages/detach";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { turnsDuring, valuesDuring } from "../support/turns";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

const post = (acc: Account, path: string, body: unknown) => t.api(path, { method: "POST", token: acc.token, body });
const del = (acc: Account, path: string) => t.api(path, { method: "DELETE", token: acc.token });

/** A signed-up account (on a plan of several numbers) with a simulator provider account and two of its numbers. */
async function sender() {
  const acc = await t.signUpVerified();
  await grantLicense(t.ctx, acc.user.id, "professional", 30);
  const provider = (await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" })).body.id as string;
  const offered = (await t.api(`/api/providers/${provider}/available-numbers`, { token: acc.token })).body.numbers;
  const numbers: string[] = [];
  for (const { phoneNumber } of offered.slice(0, 2)) {
    const added = await post(acc, "/api/phone-numbers", { providerId: provider, phoneNumber, messagesPerSecond: 0 });
    expect(added.status).toBe(201);
    numbers.push(added.body.id);
  }
  return { acc, provider, numbers };
}

/**
 * `count` delivered one-off messages sent through `numberId` (null: a number deleted before) of `providerId`, on
 * 1 March 2026 unless `at` says when.
 */
function sent(acc: Account, providerId: string, numberId: string | null, count: number, at = Date.parse("2026-03-01T10:00:00Z")) {
  const insert = t.ctx.db.$client.prepare(
    `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, created_at, updated_at, sent_at, provider_id, phone_number_id)
     VALUES (?, ?, ?, 'x', 'outbound', 'delivered', 'single', ?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < count; i++) insert.run(Bun.randomUUIDv7(), acc.user.id, `+1312555${String(i).padStart(4, "0")}`, at + i, at + i, at + i, providerId, numberId);
}

const links = (acc: Account) =>
  t.ctx.db.$client
    .query<{ n: number; withProvider: number; withNumber: number }, [string]>(
      "SELECT count(*) AS n, count(provider_id) AS withProvider, count(phone_number_id) AS withNumber FROM messages WHERE user_id = ?",
    )
    .get(acc.user.id)!;
const totalSent = async (acc: Account) => (await t.api("/api/results/overview", { token: acc.token })).body.allTime.sent;

describe("deleting what messages were sent through", () => {
  test("DELETE /api/phone-numbers/:id: its messages stay, without the number, still the provider's, in the totals", async () => {
    const s = await sender();
    const many = DETACH_CHUNK * 2 + 7;
    sent(s.acc, s.provider, s.numbers[0]!, many);
    sent(s.acc, s.provider, s.numbers[1]!, 3);
    expect(await totalSent(s.acc)).toBe(many + 3);

    const other = await t.signUpVerified();
    expect((await del(other, `/api/phone-numbers/${s.numbers[0]}`)).status).toBe(404);
    expect(links(s.acc)).toEqual({ n: many + 3, withProvider: many + 3, withNumber: many + 3 });

    let answer: { status: number; body: unknown } | undefined;
    expect(await turnsDuring(async () => (answer = await del(s.acc, `/api/phone-numbers/${s.numbers[0]}`)))).toBeGreaterThanOrEqual(2);
    expect(answer).toMatchObject({ status: 200, body: { message: "Phone number removed" } });
    expect(links(s.acc)).toEqual({ n: many + 3, withProvider: many + 3, withNumber: 3 });
    expect(await totalSent(s.acc)).toBe(many + 3);
    const listed = (await t.api("/api/phone-numbers", { token: s.acc.token })).body.data;
    expect(listed.map((n: { id: string; isDefault: boolean }) => [n.id, n.isDefault])).toEqual([[s.numbers[1], true]]);
    expect((await del(s.acc, `/api/phone-numbers/${s.numbers[0]}`)).status).toBe(404);
  });

  test("DELETE /api/sms-providers/:id: its numbers go with it, their messages and any left from a number deleted before stay detached", async () => {
    const s = await sender();
    const many = DETACH_CHUNK * 2 + DETACH_CHUNK / 2;
    sent(s.acc, s.provider, s.numbers[0]!, many);
    sent(s.acc, s.provider, s.numbers[1]!, 5);
    sent(s.acc, s.provider, null, 2);
    const all = many + 7;

    const other = await t.signUpVerified();
    expect((await del(other, `/api/sms-providers/${s.provider}`)).status).toBe(404);
    expect(links(s.acc)).toEqual({ n: all, withProvider: all, withNumber: many + 5 });

    let answer: { status: number; body: unknown } | undefined;
    expect(await turnsDuring(async () => (answer = await del(s.acc, `/api/sms-providers/${s.provider}`)))).toBeGreaterThanOrEqual(2);
    expect(answer).toMatchObject({ status: 200, body: { message: "Provider deleted" } });
    expect(links(s.acc)).toEqual({ n: all, withProvider: 0, withNumber: 0 });
    expect(await totalSent(s.acc)).toBe(all);
    expect((await t.api("/api/phone-numbers", { token: s.acc.token })).body.data).toEqual([]);
    expect((await t.api("/api/sms-providers", { token: s.acc.token })).body.data).toEqual([]);
  });

  test("DELETE /api/sms-providers/:id: messages a number deleted before left pointing at the account are detached a chunk at a time, and the DELETE finds none through an index", async () => {
    const s = await sender();
    const left = DETACH_CHUNK * 2 + 1;
    sent(s.acc, s.provider, null, left);
    // What the foreign key's check runs on the DELETE: an index lookup, not a scan of every account's messages.
    const plan = t.ctx.db.$client.query("EXPLAIN QUERY PLAN SELECT 1 FROM messages WHERE provider_id = ?").all(s.provider) as { detail: string }[];
    expect(plan.map((p) => p.detail)).toEqual(["SEARCH messages USING COVERING INDEX messages_provider_idx (provider_id=?)"]);
    // Seen between turns of the event loop: the messages still pointing at the account, going down a chunk at a time.
    const { answer, seen } = await valuesDuring(() => links(s.acc).withProvider, () => del(s.acc, `/api/sms-providers/${s.provider}`));
    expect(answer.status).toBe(200);
    expect(seen).toEqual([left, left - DETACH_CHUNK, left - 2 * DETACH_CHUNK, 0]);
    expect(links(s.acc)).toEqual({ n: left, withProvider: 0, withNumber: 0 });
    expect(await totalSent(s.acc)).toBe(left);
  });

  test("a stop while the messages are detached answers 503 and keeps what was done; deleting again finishes", async () => {
    const s = await sender();
    const many = DETACH_CHUNK * 3;
    sent(s.acc, s.provider, s.numbers[0]!, many);
    const hooks = t.ctx.onStop.length;
    const deleting = del(s.acc, `/api/phone-numbers/${s.numbers[0]}`);
    // The deletion adds its stop hook, then detaches a chunk per turn of the event loop: the server stops after the first.
    while (t.ctx.onStop.length === hooks) await new Promise((r) => setImmediate(r));
    await t.ctx.onStop.at(-1)!();
    const answer = await deleting;
    expect(answer).toMatchObject({ status: 503, body: { message: "The server is stopping: delete this number again once it is back" } });
    const left = links(s.acc) as { withNumber: number };
    expect(left.withNumber).toBeGreaterThan(0);
    expect(left.withNumber).toBeLessThan(many);
    expect((await t.api("/api/phone-numbers", { token: s.acc.token })).body.data).toHaveLength(2);

    expect((await del(s.acc, `/api/phone-numbers/${s.numbers[0]}`)).status).toBe(200);
    expect(links(s.acc)).toEqual({ n: many, withProvider: many, withNumber: 0 });
  });

  test("the senders' chart keeps a removed number's messages, as one line of their own after the numbers", async () => {
    const s = await sender();
    const yesterday = t.ctx.now() - 86_400_000;
    sent(s.acc, s.provider, s.numbers[0]!, 3, yesterday);
    sent(s.acc, s.provider, s.numbers[1]!, 2, yesterday);
    const senders = async () =>
      (await t.api("/api/results/series?days=7", { token: s.acc.token })).body.senders.map((l: { id: string | null; phoneNumber: string | null; displayName: string | null; total: number }) => [l.id, l.phoneNumber === null ? l.displayName : "number", l.total]);
    expect(await senders()).toEqual([[s.numbers[0], "number", 3], [s.numbers[1], "number", 2]]);

    expect((await del(s.acc, `/api/phone-numbers/${s.numbers[0]}`)).status).toBe(200);
    expect(await senders()).toEqual([[s.numbers[1], "number", 2], [null, "Removed numbers", 3]]);
  });
});
