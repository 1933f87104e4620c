import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statusCountsByCampaign } from "../../src/campaigns/stats";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let acc: Account;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  acc = await t.signUpVerified();
});
afterAll(() => t?.stop());

const db = () => t.ctx.db.$client;

async function draft(name: string): Promise<string> {
  const res = await t.api("/api/campaigns", { method: "POST", token: acc.token, body: { type: "sms", name, content: "Hello", recipients: ["+14155550101"] } });
  expect(res.status).toBe(201);
  return res.body.id;
}

let seq = 0;
/** An outbound campaign message written straight into the outbox table, as the engine's statements do. */
function message(campaignId: string | null, status: string, sentAt: number | null = null): string {
  const id = `r17-${++seq}`;
  db()
    .query(`INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, sent_at) VALUES (?, ?, ?, ?, 'Hi', 'outbound', ?, 'campaign', ?)`)
    .run(id, acc.user.id, campaignId, `+1415555${String(1000 + seq)}`, status, sentAt);
  return id;
}

/** The counts the triggers keep, as { status: [n, unsent] }, leaving out statuses counted down to nothing. */
async function kept(campaignId: string): Promise<Record<string, [number, number]>> {
  const rows = (await statusCountsByCampaign(t.ctx, [campaignId])).filter((r) => r.n !== 0);
  return Object.fromEntries(rows.map((r) => [r.status, [r.n, r.unsent]]));
}

/** The same counts computed from the messages themselves. */
function scanned(campaignId: string): Record<string, [number, number]> {
  const rows = db()
    .query(`SELECT status, count(*) AS n, sum(sent_at IS NULL) AS unsent FROM messages WHERE campaign_id = ? GROUP BY status`)
    .all(campaignId) as { status: string; n: number; unsent: number }[];
  return Object.fromEntries(rows.map((r) => [r.status, [r.n, r.unsent]]));
}

describe("a campaign's counts by status, kept as messages change (item 6)", () => {
  test("inserts, status changes, a provider's acceptance, deletes and a moved message each adjust the counts", async () => {
    const a = await draft("Counts A");
    const b = await draft("Counts B");
    const ids = [message(a, "queued"), message(a, "queued"), message(a, "queued"), message(a, "queued")];
    message(null, "queued");
    expect(await kept(a)).toEqual({ queued: [4, 4] });

    db().query(`UPDATE messages SET status = 'sending' WHERE id IN (?, ?)`).run(ids[0]!, ids[1]!);
    expect(await kept(a)).toEqual({ queued: [2, 2], sending: [2, 2] });
    // Accepted by the provider: sent, with a sent time.
    db().query(`UPDATE messages SET status = 'sent', sent_at = 1000 WHERE id = ?`).run(ids[0]!);
    // Refused at the call: failed and never sent.
    db().query(`UPDATE messages SET status = 'failed' WHERE id = ?`).run(ids[1]!);
    expect(await kept(a)).toEqual({ queued: [2, 2], sent: [1, 0], failed: [1, 1] });
    // A delivery report later turns the sent one into a failure the provider had accepted.
    db().query(`UPDATE messages SET status = 'failed' WHERE id = ?`).run(ids[0]!);
    expect(await kept(a)).toEqual({ queued: [2, 2], failed: [2, 1] });
    // Writes that change neither status nor sent time leave the counts alone.
    db().query(`UPDATE messages SET attempts = attempts + 1, next_attempt_at = 5 WHERE campaign_id = ?`).run(a);
    db().query(`UPDATE messages SET status = 'cancelled' WHERE campaign_id = ? AND status = 'queued'`).run(a);
    expect(await kept(a)).toEqual({ failed: [2, 1], cancelled: [2, 2] });
    db().query(`UPDATE messages SET campaign_id = ? WHERE id = ?`).run(b, ids[2]!);
    db().query(`DELETE FROM messages WHERE id = ?`).run(ids[1]!);
    expect(await kept(a)).toEqual({ failed: [1, 0], cancelled: [1, 1] });
    expect(await kept(b)).toEqual({ cancelled: [1, 1] });
    expect(await kept(a)).toEqual(scanned(a));
    expect(await kept(b)).toEqual(scanned(b));

    // Deleting a campaign keeps its messages (campaign_id set null) and drops its counts.
    expect((await t.api(`/api/campaigns/${b}`, { method: "DELETE", token: acc.token })).status).toBeLessThan(300);
    expect(await statusCountsByCampaign(t.ctx, [b])).toEqual([]);
    expect(await kept(a)).toEqual(scanned(a));
  });

  test("the campaigns list shows the kept counts", async () => {
    const c = await draft("Counts list");
    message(c, "delivered", 2000);
    message(c, "delivered", 2000);
    message(c, "failed", 2000);
    message(c, "failed");
    message(c, "queued");
    const res = await t.api(`/api/campaigns/${c}`, { token: acc.token });
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({ recipients: 5, pending: 1, sending: 0, sent: 0, delivered: 2, failed: 2, refused: 1, unknown: 0, skipped: 0, expired: 0, cancelled: 0 });
    expect(res.body.totalSent).toBe(3);
  });

  test("reading a list's counts never visits the messages table", async () => {
    // Record the statement the list's count reader prepares, then ask SQLite how it runs it.
    const client = t.ctx.db.$client;
    const seen: string[] = [];
    const prepare = client.prepare.bind(client);
    client.prepare = ((sql: string, ...rest: unknown[]) => {
      seen.push(sql);
      return (prepare as (...a: unknown[]) => unknown)(sql, ...rest);
    }) as typeof client.prepare;
    try {
      await statusCountsByCampaign(t.ctx, ["a", "b", "c"]);
    } finally {
      client.prepare = prepare;
    }
    expect(seen.length).toBe(1);
    const plan = (client.query(`EXPLAIN QUERY PLAN ${seen[0]}`).all("a", "b", "c") as { detail: string }[]).map((r) => r.detail);
    expect(plan).toEqual(["SEARCH campaign_message_counts USING PRIMARY KEY (campaign_id=?)"]);
  });
});
