// Issue 31 item 2 on PostgreSQL: the processes of an installation share the due jobs and the outbox. Their claim
// statements (src/jobs/jobs.ts, src/messages/outbox-store.ts, src/messages/reconcile.ts) lock what they take and skip
// what another holds (FOR UPDATE SKIP LOCKED), and lease it: two claimers never take the same row, and rows a killed
// process held are the others' once the lease is over.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Db } from "../../db/client";
import { openPostgresRecords, type PostgresRecords } from "../../db/postgres/records-db";
import type { AppContext } from "../../src/context";
import type { OutboxStore } from "../../src/sending/ports";
import { CLAIM_JOB_SQL, DUE_JOBS_SQL_POSTGRES } from "../../src/jobs/jobs";
import { CLAIM_LEASE_MS, CLAIM_SQL_POSTGRES, outboxStore, RELEASE_CLAIM_SQL } from "../../src/messages/outbox-store";
import { INTERRUPTED_SQL_POSTGRES, SENDING_LEASE_MS } from "../../src/messages/reconcile";
import { migratedWithSender, type ThrowawayDatabase } from "../support/postgres";

const T0 = 1_800_000_000_000;
const LEASE = 60_000;

let pg: ThrowawayDatabase;
beforeAll(async () => {
  pg = await migratedWithSender({ n1: "+14155550100" });
});
afterAll(() => pg?.drop());

const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};
/** `fn` on a connection of its own (a transaction needs one). */
async function reserved<T>(fn: (conn: SQL) => Promise<T>): Promise<T> {
  const conn = await pg.sql.reserve();
  try {
    return await fn(conn);
  } finally {
    conn.release();
  }
}
const rows = async <T = any>(sql: SQL, text: string, params: unknown[]) => [...((await sql.unsafe(numbered(text), params as any[])) as T[])];

/** Runs `claimers` at once, each on a connection of its own, until each finds nothing left. */
async function claimAll(claimers: number, pass: (conn: SQL) => Promise<string[]>): Promise<string[][]> {
  const conns = await Promise.all(Array.from({ length: claimers }, () => pg.sql.reserve()));
  try {
    return await Promise.all(
      conns.map(async (conn) => {
        const taken: string[] = [];
        for (;;) {
          const ids = await pass(conn);
          if (!ids.length) return taken;
          taken.push(...ids);
        }
      }),
    );
  } finally {
    for (const c of conns) c.release();
  }
}

describe("jobs", () => {
  const kinds = JSON.stringify(["drip", "webhook"]);
  /** A pass as the runner makes it: the due jobs locked in its transaction, each claimed, committed. */
  const pass = (now: number) => async (conn: SQL) => {
    await conn.unsafe("BEGIN");
    const due = await rows<{ id: string }>(conn, DUE_JOBS_SQL_POSTGRES, [now, now, kinds, "[]", "[]", 7]);
    const claimed: string[] = [];
    for (const { id } of due) if ((await rows(conn, CLAIM_JOB_SQL, [now + LEASE, now, id, now, now])).length) claimed.push(id);
    await conn.unsafe("COMMIT");
    return claimed;
  };

  test("two processes' passes at once: every due job claimed by one of them, none by both", async () => {
    await pg.sql.unsafe(`INSERT INTO jobs (id, kind, key, run_at, next_attempt_at, state, attempts)
      SELECT 'j' || g, CASE WHEN g % 2 = 0 THEN 'drip' ELSE 'webhook' END, 'k' || g, ${T0}, ${T0} - g, 'pending', 0 FROM generate_series(1, 120) AS g`);
    // Not due: later, of a kind this runner has no handler for, or running under a lease not over.
    await pg.sql.unsafe(`INSERT INTO jobs (id, kind, key, run_at, next_attempt_at, state, attempts, lease_until) VALUES
      ('later', 'drip', 'later', ${T0}, ${T0 + 1000}, 'pending', 0, NULL),
      ('other', 'backup', 'other', ${T0}, ${T0}, 'pending', 0, NULL),
      ('held', 'drip', 'held', ${T0}, ${T0}, 'running', 1, ${T0 + 1000})`);
    const [one, two] = await claimAll(2, pass(T0));
    expect(one!.length).toBeGreaterThan(0);
    expect(two!.length).toBeGreaterThan(0);
    const all = [...one!, ...two!];
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(Array.from({ length: 120 }, (_, i) => `j${i + 1}`).sort());
  });

  test("a job whose process was killed mid-run is due to the others once its lease is over, and claimed once", async () => {
    // 'held' was running under a lease to T0 + 1000 (its process gone): at T0 + 1000 it is due again.
    expect(await claimAll(2, pass(T0 + 999)).then((r) => r.flat())).toEqual([]);
    const claimed = (await claimAll(2, pass(T0 + 1000))).flat();
    expect(claimed.sort()).toEqual(["held", "later"]);
    const [held] = await rows(pg.sql, `SELECT state, attempts, lease_until AS "leaseUntil" FROM jobs WHERE id = 'held'`, []);
    expect({ ...held, leaseUntil: Number(held.leaseUntil) }).toEqual({ state: "running", attempts: "2", leaseUntil: T0 + 1000 + LEASE });
  });

  test("a pass skips the full slots: a ref's jobs and an account's", async () => {
    await pg.sql.unsafe(`INSERT INTO users (id, email, created_at, updated_at) VALUES ('u2', 'lee@example.com', 0, 0)`);
    await pg.sql.unsafe(`INSERT INTO jobs (id, kind, key, ref_id, user_id, run_at, next_attempt_at, state, attempts) VALUES
      ('r1', 'drip', 'r1', 'e1', NULL, ${T0}, ${T0 + 5000}, 'pending', 0),
      ('r2', 'drip', 'r2', 'e2', 'u2', ${T0}, ${T0 + 5000}, 'pending', 0),
      ('r3', 'drip', 'r3', 'e3', NULL, ${T0}, ${T0 + 5000}, 'pending', 0)`);
    const due = await rows<{ id: string }>(pg.sql, DUE_JOBS_SQL_POSTGRES, [T0 + 5000, T0 + 5000, kinds, JSON.stringify([["drip", "e1"]]), JSON.stringify([["drip", "u2"]]), 10]);
    expect(due.map((r) => r.id)).toEqual(["r3"]);
  });
});

describe("the outbox", () => {
  /** A claim and an admit as the engine makes them: the claimed rows marked sending (up to `admit` of them), the rest released. */
  const send = (now: number, admit = Infinity) => async (conn: SQL) => {
    const claimed = await rows<{ id: string; dueAt: string }>(conn, CLAIM_SQL_POSTGRES, [now + CLAIM_LEASE_MS, "n1", now, 25]);
    const marked: string[] = [];
    await conn.unsafe("BEGIN");
    for (const [i, row] of claimed.sort((a, b) => Number(a.dueAt) - Number(b.dueAt)).entries()) {
      if (i < admit) {
        const changed = await conn.unsafe(`UPDATE messages SET status = 'sending', attempts = attempts + 1, updated_at = $1 WHERE id = $2 AND status = 'queued'`, [now, row.id]);
        if (changed.count === 1) marked.push(row.id);
      } else await rows(conn, RELEASE_CLAIM_SQL, [Number(row.dueAt), row.id, now + CLAIM_LEASE_MS]);
    }
    await conn.unsafe("COMMIT");
    return marked;
  };

  test("two processes claiming one number's outbox at once: every message marked sending once", async () => {
    await pg.sql.unsafe(`INSERT INTO messages (id, user_id, phone, content, direction, status, phone_number_id, next_attempt_at, created_at, updated_at)
      SELECT 'm' || g, 'u1', '+1415555' || lpad(g::text, 4, '0'), 'Hi', 'outbound', 'queued', 'n1', ${T0} - g, 0, 0 FROM generate_series(1, 300) AS g`);
    const [one, two] = await claimAll(2, send(T0));
    expect(one!.length).toBeGreaterThan(0);
    expect(two!.length).toBeGreaterThan(0);
    const all = [...one!, ...two!];
    expect(new Set(all).size).toBe(300);
    expect(all.length).toBe(300);
    const [counts] = await rows(pg.sql, `SELECT count(*) AS n, sum(attempts) AS attempts FROM messages WHERE status = 'sending'`, []);
    expect({ n: Number(counts.n), attempts: Number(counts.attempts) }).toEqual({ n: 300, attempts: 300 });
  });

  test("rows a claim leaves queued get their time back; rows of a process killed after its claim wait out the lease", async () => {
    await pg.sql.unsafe(`INSERT INTO messages (id, user_id, phone, content, direction, status, phone_number_id, next_attempt_at, created_at, updated_at)
      SELECT 'q' || g, 'u1', '+1415666' || lpad(g::text, 4, '0'), 'Hi', 'outbound', 'queued', 'n1', ${T0 + 10_000} - g, 0, 0 FROM generate_series(1, 10) AS g`);
    const now = T0 + 10_000;
    // A batch the pace let 4 of go: the other 6 are due again when they were.
    expect(await reserved(send(now, 4))).toEqual(["q10", "q9", "q8", "q7"]);
    expect((await rows(pg.sql, `SELECT id, next_attempt_at AS at FROM messages WHERE id LIKE 'q%' AND status = 'queued' ORDER BY at`, [])).map((r) => [r.id, Number(r.at)])).toEqual(
      [6, 5, 4, 3, 2, 1].map((g) => [`q${g}`, now - g]),
    );
    // A process claims the 6 and is killed before its admit: nobody else finds them until its lease is over.
    expect(await rows(pg.sql, CLAIM_SQL_POSTGRES, [now + CLAIM_LEASE_MS, "n1", now, 25])).toHaveLength(6);
    expect(await reserved(send(now + CLAIM_LEASE_MS - 1))).toEqual([]);
    expect((await reserved(send(now + CLAIM_LEASE_MS))).sort()).toEqual(["q1", "q2", "q3", "q4", "q5", "q6"]);
  });

  test("a row left sending by a killed process is reconciled by one of the others after the sending lease, not before", async () => {
    const now = T0 + 100_000;
    await pg.sql.unsafe(`INSERT INTO messages (id, user_id, phone, content, direction, status, phone_number_id, next_attempt_at, attempts, created_at, updated_at) VALUES
      ('s1', 'u1', '+14157770001', 'Hi', 'outbound', 'sending', 'n1', 0, 1, 0, ${now - SENDING_LEASE_MS - 1}),
      ('s2', 'u1', '+14157770002', 'Hi', 'outbound', 'sending', 'n1', 0, 1, 0, ${now - 1000})`);
    await pg.sql.unsafe(`UPDATE messages SET status = 'sent' WHERE status = 'sending' AND id NOT IN ('s1', 's2')`);
    const params = ["reconciling", "The process sending it stopped", now, now - SENDING_LEASE_MS];
    const [one, two] = await Promise.all([rows(pg.sql, INTERRUPTED_SQL_POSTGRES, params), rows(pg.sql, INTERRUPTED_SQL_POSTGRES, params)]);
    const taken = [...one!, ...two!];
    expect(taken.map((r) => ({ id: r.id, startedAt: Number(r.startedAt), attempts: Number(r.attempts) }))).toEqual([
      { id: "s1", startedAt: now - SENDING_LEASE_MS - 1, attempts: 1 },
    ]);
    expect((await rows(pg.sql, `SELECT id, status FROM messages WHERE id IN ('s1', 's2') ORDER BY id`, [])).map((r) => [r.id, r.status])).toEqual([
      ["s1", "unknown"],
      ["s2", "sending"],
    ]);
  });
});

describe("the outbox store on PostgreSQL", () => {
  /** A process's store: its own pool, the records on it. */
  function storeOf(): OutboxStore {
    const records = openPostgresRecords(new SQL(pg.url, { max: 2 }));
    opened.push(records);
    const ctx = { db: { $postgres: records } as unknown as Db, records: records.db, now: () => T0 } as unknown as AppContext;
    return outboxStore(ctx);
  }
  const opened: PostgresRecords[] = [];
  afterAll(async () => {
    for (const r of opened) await r.close();
  });

  test("two processes' stores claiming one number at once: each row claimed by one, in due order, leased from the others", async () => {
    const now = T0 + 200_000;
    await pg.sql.unsafe(`UPDATE messages SET status = 'sent' WHERE status = 'queued'`);
    await pg.sql.unsafe(`INSERT INTO messages (id, user_id, phone, content, direction, status, phone_number_id, next_attempt_at, created_at, updated_at)
      SELECT 'c' || g, 'u1', '+1415888' || lpad(g::text, 4, '0'), 'Hi', 'outbound', 'queued', 'n1', ${now} - g, 0, 0 FROM generate_series(1, 40) AS g`);
    const [one, two] = [storeOf(), storeOf()];
    const claimed: { id: string; dueAt?: number }[][] = [[], []];
    await Promise.all(
      [one, two].map(async (store, i) => {
        for (;;) {
          const rows = await store.claim("n1", now, 5);
          if (!rows.length) return;
          claimed[i]!.push(...(rows as { id: string; dueAt?: number }[]));
        }
      }),
    );
    const ids = claimed.flat().map((r) => r.id);
    expect(ids.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `c${i + 1}`).sort());
    // Each claim's rows in the order they fell due.
    for (const rows of claimed) expect(rows.map((r) => r.dueAt)).toEqual(rows.map((r) => r.dueAt).sort((a, b) => a! - b!));
    // Leased: due to nobody until the lease ends, then to either.
    expect(await one.nextDue("n1")).toBe(now + CLAIM_LEASE_MS);
    expect(await two.claim("n1", now + CLAIM_LEASE_MS - 1, 100)).toEqual([]);
    expect((await two.claim("n1", now + CLAIM_LEASE_MS, 100)).length).toBe(40);
  });
});
