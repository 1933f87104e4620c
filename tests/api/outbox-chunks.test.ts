/**
 * A large campaign's outbox written in chunks (issue 17 item 6, src/campaigns/outbox-writer.ts): the server
 * answers while it is written, a crash in the middle of a chunk loses and duplicates nothing once the writing
 * resumes at start-up, and a cancel or pause during the writing is obeyed by every later chunk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CHUNKED_ABOVE, resumeOutboxWriting } from "../../src/campaigns/outbox-writer";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  // The plans' monthly messages would refuse these audiences; the limit check is not what is tested here.
  t.ctx.db.$client.run("UPDATE plans SET monthly_messages = -1, monthly_contacts = -1");
});
afterAll(() => t?.stop());

const db = () => t.ctx.db.$client;
/** Tens of thousands of rows on a shared 2-core machine: more than bun's 5 s default. */
const SLOW = 60_000;
const post = (acc: Account, path: string, body: unknown = {}) => t.api(path, { method: "POST", token: acc.token, body });

/** An account with `n` subscribed contacts (written directly) and one simulator number sending 1 a second. */
async function accountWith(n: number) {
  const acc = await t.signUpVerified();
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  expect((await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 1 })).status).toBe(201);
  const insert = db().prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`);
  db().transaction(() => {
    for (let i = 0; i < n; i++) insert.run(Bun.randomUUIDv7(), acc.user.id, `Guest${i}`, `+1415${String(2_000_000 + i)}`, Date.now());
  })();
  const campaign = await post(acc, "/api/campaigns", { name: "Big", content: "Hi [Name]", audience: { kind: "all" }, appendOptOut: false });
  expect(campaign.status).toBe(201);
  return { acc, id: campaign.body.id as string };
}

const rows = (id: string) =>
  db().query(`SELECT count(*) AS n, count(DISTINCT phone) AS phones, sum(status = 'queued') AS queued FROM messages WHERE campaign_id = ?`).get(id) as {
    n: number;
    phones: number;
    queued: number;
  };
const writing = (id: string) => (db().query(`SELECT outbox_writing FROM campaigns WHERE id = ?`).get(id) as { outbox_writing: string | null }).outbox_writing !== null;

describe("a campaign larger than one chunk", () => {
  test("is written in chunks while /api/health keeps answering; every contact once", async () => {
    const { acc, id } = await accountWith(20_000);
    const send = await post(acc, `/api/campaigns/${id}/send`);
    expect(send.status).toBe(202);
    expect(send.body).toMatchObject({ queued: 0, campaign: { status: "sending", writingOutbox: true } });
    // Health asked one after another while the chunks are written: each answered, none held up behind the writing.
    const waits: number[] = [];
    while (writing(id)) {
      const started = performance.now();
      expect((await fetch(`${t.url}/api/health`)).status).toBe(200);
      waits.push(performance.now() - started);
    }
    // Answered between chunks, not after the whole (no bound on the wait here: a shared test machine's scheduling
    // dominates it; scripts/bench/results.ts measures it at a million recipients against a baseline).
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(rows(id)).toMatchObject({ n: 20_000, phones: 20_000 });
    const view = (await t.api(`/api/campaigns/${id}`, { token: acc.token })).body;
    expect(view).toMatchObject({ status: "sending", writingOutbox: false, counts: { recipients: 20_000 }, skipped: { optedOut: 0, invalid: 0, duplicate: 0 } });
  }, SLOW);

  test("typed recipients: a number repeated in a later chunk is queued once and counted a repeat; invalid ones counted", async () => {
    const { acc } = await accountWith(0);
    const typed = Array.from({ length: 3_000 }, (_, i) => `+1415${String(3_000_000 + i)}`);
    // The first ten again, written differently, at the end (thousands of rows after their first chunk), and five invalid.
    typed.push(...typed.slice(0, 10).map((p) => `(${p.slice(2, 5)}) ${p.slice(5, 8)}-${p.slice(8)}`), ...Array(5).fill("+1 (011) 555-0100"));
    const c = await post(acc, "/api/campaigns", { name: "Typed", content: "Hi", recipients: typed.join("\n"), appendOptOut: false });
    expect(c.status).toBe(201);
    expect((await post(acc, `/api/campaigns/${c.body.id}/send`)).body).toMatchObject({ queued: 0, campaign: { writingOutbox: true } });
    await waitFor(() => writing(c.body.id), (w) => !w, 50_000);
    expect(rows(c.body.id)).toMatchObject({ n: 3_000, phones: 3_000 });
    expect((await t.api(`/api/campaigns/${c.body.id}`, { token: acc.token })).body).toMatchObject({ skipped: { optedOut: 0, invalid: 5, duplicate: 10 } });
  }, SLOW);

  test("a crash in the middle of a chunk: the chunk is undone, and the writing resumed at start-up completes it exactly once", async () => {
    const { acc, id } = await accountWith(6_000);
    // The crash: the 2,500th row of this campaign fails its insert, partway through a chunk.
    db().run(`CREATE TEMP TRIGGER crash_midway BEFORE INSERT ON messages WHEN NEW.campaign_id = '${id}'
      AND (SELECT count(*) FROM messages WHERE campaign_id = '${id}') >= 2499 BEGIN SELECT RAISE(ABORT, 'simulated crash'); END`);
    expect((await post(acc, `/api/campaigns/${id}/send`)).status).toBe(202);
    await waitFor(() => t.logs.some((l) => l.includes(`writing the outbox of campaign ${id} stopped: simulated crash`)), Boolean, 50_000);
    const atCrash = rows(id);
    // Whole chunks only: the one that failed left nothing behind.
    expect(atCrash.n).toBeLessThan(2499);
    expect(writing(id)).toBe(true);
    db().run("DROP TRIGGER temp.crash_midway");

    // Start-up: the writing carries on from its cursor.
    expect(await resumeOutboxWriting(t.ctx)).toBe(1);
    await waitFor(() => writing(id), (w) => !w, 50_000);
    expect(rows(id)).toMatchObject({ n: 6_000, phones: 6_000 });
    const view = (await t.api(`/api/campaigns/${id}`, { token: acc.token })).body;
    expect(view).toMatchObject({ status: "sending", counts: { recipients: 6_000 }, skipped: { optedOut: 0, invalid: 0, duplicate: 0 } });
  }, SLOW);

  test("cancelled while it is written: later chunks queue nothing and what was queued is cancelled", async () => {
    const { acc, id } = await accountWith(20_000);
    expect((await post(acc, `/api/campaigns/${id}/send`)).status).toBe(202);
    await waitFor(() => rows(id).n, (n) => n > 0, 50_000);
    expect((await post(acc, `/api/campaigns/${id}/cancel`)).body.status).toBe("cancelled");
    await waitFor(() => writing(id), (w) => !w, 50_000);
    const after = rows(id);
    expect(after.n).toBeLessThan(20_000);
    expect(after.queued).toBe(0);
  }, SLOW);

  test("paused while it is written: later chunks are written parked, and the resume releases every one", async () => {
    const { acc, id } = await accountWith(20_000);
    expect((await post(acc, `/api/campaigns/${id}/send`)).status).toBe(202);
    await waitFor(() => rows(id).n, (n) => n > 0, 50_000);
    expect((await post(acc, `/api/campaigns/${id}/pause`)).body.status).toBe("paused");
    await waitFor(() => writing(id), (w) => !w, 50_000);
    const due = () => (db().query(`SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status = 'queued' AND next_attempt_at < 8000000000000000`).get(id) as { n: number }).n;
    expect(due()).toBe(0);
    expect(rows(id).n).toBe(20_000);
    expect((await post(acc, `/api/campaigns/${id}/resume`)).body.status).toBe("sending");
    expect(due()).toBe(rows(id).queued);
  }, SLOW);

  test(`up to ${CHUNKED_ABOVE} recipients the outbox is written with the start, in one transaction`, async () => {
    const { acc, id } = await accountWith(CHUNKED_ABOVE);
    const send = await post(acc, `/api/campaigns/${id}/send`);
    expect(send.body).toMatchObject({ queued: CHUNKED_ABOVE, campaign: { writingOutbox: false } });
    expect(rows(id).n).toBe(CHUNKED_ABOVE);
  }, SLOW);
});
