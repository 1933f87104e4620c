// Which PostgreSQL client smsdesk uses (issue 31 item 1: "choose by measurement"): Bun's built-in `Bun.sql` against
// `pg` (node-postgres), on the same server, the same tables and the same work, one after the other in one run, each
// on a throwaway database of its own:
//   - inserts: single-row INSERTs with parameters, one after the other (a webhook's write);
//   - batch inserts: 1,000-row multi-VALUES INSERTs (an import, `smsdesk migrate`);
//   - selects: point SELECTs by primary key, one after the other, then 16 at a time on a pool of 8 (requests);
//   - transactions: BEGIN, INSERT, UPDATE, COMMIT on one connection (a record's withTransaction).
// Prints operations per second for each and the ratio Bun.sql / pg (above 1: Bun.sql faster).
//
//   npm install --prefix /tmp/pg-bench pg     # pg is not a dependency of smsdesk; the bench loads it from there
//   PG_MODULE=/tmp/pg-bench/node_modules/pg node_modules/.bin/bun scripts/bench/pg-client.ts
//   (SMSDESK_TEST_POSTGRES=postgres://user@host:port names another server; 127.0.0.1:5432 by default)
//
// Figures of 2026-12-07, this machine (2 cores shared with other engineers' work, load average 12-17 throughout;
// PostgreSQL 15 local over TCP; pg 8.23.1, Bun 1.4.5), operations per second, the better of two alternating rounds,
// two runs of the script, Bun.sql / pg:
//                                                   run A                     run B
//   single-row inserts/s                     326 /   234 = 1.39      412 /   234 = 1.76
//   batch-insert rows/s (1,000 a statement) 23200 / 14770 = 1.57    48891 / 17686 = 2.76
//   point selects/s, one at a time          1759 /   899 = 1.96     4601 /  1187 = 3.88
//   point selects/s, 16 at a time            3394 /  1388 = 2.45     5514 /  1412 = 3.91
//   transactions/s (sql.begin)                 77 /   131 = 0.59      122 /   104 = 1.17
//   transactions/s (BEGIN/COMMIT by hand)        -                     156 /   134 = 1.16
// (An earlier single-round run had single inserts at 0.67 and transactions at 0.70.) Reads and batched writes are
// 1.6-3.9 times faster on Bun.sql in every run; single-row commits are bound by the server's WAL flush on a loaded
// disk and swing both ways between runs (0.59-1.76): no client wins those by a margin the noise does not cover.
//
// Decision: Bun.sql. It is as fast or faster where the client matters (selects, batches), ships inside Bun (and so
// inside the compiled executable) with nothing to install, where pg is 14 npm packages (956 KB) more to audit and
// bundle. db/postgres/ uses it. Re-run this before changing the choice: a later Bun or pg may move the figures.
import { SQL } from "bun";
import { randomBytes } from "node:crypto";

const SERVER = process.env.SMSDESK_TEST_POSTGRES ?? "postgres://postgres@127.0.0.1:5432";
const N_INSERTS = 3_000;
const N_SELECTS = 6_000;
const N_TX = 1_500;
const BATCHES = 20;
const BATCH_ROWS = 1_000;

type Client = {
  name: string;
  query: (text: string, params?: unknown[]) => Promise<unknown>;
  /** One connection of the client's, for a transaction's statements. */
  transaction: (fn: (q: (text: string, params?: unknown[]) => Promise<unknown>) => Promise<void>) => Promise<void>;
  /** The same by hand on a reserved connection (BEGIN ... COMMIT as statements), where the client has a helper above. */
  manualTransaction: (fn: (q: (text: string, params?: unknown[]) => Promise<unknown>) => Promise<void>) => Promise<void>;
  close: () => Promise<void>;
};

async function bunClient(url: string): Promise<Client> {
  const sql = new SQL(url, { max: 8 });
  return {
    name: "Bun.sql",
    query: (text, params = []) => sql.unsafe(text, params),
    transaction: (fn) => sql.begin(async (tx) => fn((text, params = []) => tx.unsafe(text, params))),
    manualTransaction: async (fn) => {
      const c = await sql.reserve();
      try {
        await c.unsafe("BEGIN");
        await fn((text, params = []) => c.unsafe(text, params));
        await c.unsafe("COMMIT");
      } catch (err) {
        await c.unsafe("ROLLBACK");
        throw err;
      } finally {
        c.release();
      }
    },
    close: () => sql.close(),
  };
}

async function pgClient(url: string): Promise<Client | null> {
  const path = process.env.PG_MODULE ?? "pg";
  let pg: any;
  try {
    pg = await import(path);
  } catch {
    console.log(
      `pg is not installed (${path}): npm install --prefix /tmp/pg-bench pg, then PG_MODULE=/tmp/pg-bench/node_modules/pg`,
    );
    return null;
  }
  const Pool = pg.Pool ?? pg.default.Pool;
  const pool = new Pool({ connectionString: url, max: 8 });
  // The bench drops its database at the end, which ends the pool's idle connections: not an error of the bench.
  pool.on("error", () => {});
  const transaction: Client["transaction"] = async (fn) => {
    const c = await pool.connect();
    try {
      await c.query("BEGIN");
      await fn((text, params = []) => c.query(text, params));
      await c.query("COMMIT");
    } catch (err) {
      await c.query("ROLLBACK");
      throw err;
    } finally {
      c.release();
    }
  };
  return {
    name: "pg",
    query: (text, params = []) => pool.query(text, params),
    transaction,
    manualTransaction: transaction,
    close: () => pool.end(),
  };
}

async function perSecond(n: number, work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return Math.round((n * 1000) / (performance.now() - started));
}

async function measure(make: (url: string) => Promise<Client | null>) {
  const name = `smsdesk_bench_${randomBytes(4).toString("hex")}`;
  const admin = new SQL(`${SERVER}/postgres`, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const client = await make(`${SERVER}/${name}`);
  try {
    if (!client) return null;
    await client.query(
      "CREATE TABLE contacts (id text PRIMARY KEY, user_id text NOT NULL, first_name text NOT NULL, phone text, created_at bigint NOT NULL, score bigint NOT NULL DEFAULT 0)",
    );
    // Warm-up: connections opened, statements seen once.
    for (let i = 0; i < 200; i++) await client.query("SELECT $1::int AS x", [i]);
    const inserts = await perSecond(N_INSERTS, async () => {
      for (let i = 0; i < N_INSERTS; i++)
        await client.query("INSERT INTO contacts (id, user_id, first_name, phone, created_at) VALUES ($1, $2, $3, $4, $5)", [
          `c${i}`,
          "u1",
          `Name ${i}`,
          `+1415555${String(i).padStart(4, "0")}`,
          1795500000000 + i,
        ]);
    });
    const batchInserts = await perSecond(BATCHES * BATCH_ROWS, async () => {
      for (let b = 0; b < BATCHES; b++) {
        const params: unknown[] = [];
        const tuples: string[] = [];
        for (let i = 0; i < BATCH_ROWS; i++) {
          const n = params.length;
          params.push(`b${b}-${i}`, "u2", `Name ${i}`, `+1415666${String(i).padStart(4, "0")}`, 1795500000000 + i);
          tuples.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5})`);
        }
        await client.query(
          `INSERT INTO contacts (id, user_id, first_name, phone, created_at) VALUES ${tuples.join(", ")}`,
          params,
        );
      }
    });
    const selects = await perSecond(N_SELECTS, async () => {
      for (let i = 0; i < N_SELECTS; i++) await client.query("SELECT * FROM contacts WHERE id = $1", [`c${i % N_INSERTS}`]);
    });
    const concurrentSelects = await perSecond(N_SELECTS, async () => {
      for (let i = 0; i < N_SELECTS; i += 16)
        await Promise.all(
          [...Array(16).keys()].map((k) => client.query("SELECT * FROM contacts WHERE id = $1", [`c${(i + k) % N_INSERTS}`])),
        );
    });
    const transactions = await perSecond(N_TX, async () => {
      for (let i = 0; i < N_TX; i++)
        await client.transaction(async (q) => {
          await q("INSERT INTO contacts (id, user_id, first_name, created_at) VALUES ($1, 'u3', 'T', $2)", [`t${i}`, i]);
          await q("UPDATE contacts SET score = score + 1 WHERE id = $1", [`c${i % N_INSERTS}`]);
        });
    });
    const manualTransactions = await perSecond(N_TX, async () => {
      for (let i = 0; i < N_TX; i++)
        await client.manualTransaction(async (q) => {
          await q("INSERT INTO contacts (id, user_id, first_name, created_at) VALUES ($1, 'u4', 'T', $2)", [`m${i}`, i]);
          await q("UPDATE contacts SET score = score + 1 WHERE id = $1", [`c${i % N_INSERTS}`]);
        });
    });
    return { inserts, batchInserts, selects, concurrentSelects, transactions, manualTransactions };
  } finally {
    await client?.close();
    await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.close();
  }
}

// Two rounds, alternating (Bun.sql, pg, Bun.sql, pg), each figure the better of its two: a shared machine's load
// comes and goes, and neither client should pay for running first.
type Figures = NonNullable<Awaited<ReturnType<typeof measure>>>;
const best = (a: Figures | null, b: Figures | null): Figures | null =>
  !a || !b
    ? (a ?? b)
    : (Object.fromEntries(Object.keys(a).map((k) => [k, Math.max(a[k as keyof Figures], b[k as keyof Figures])])) as Figures);
let bun: Figures | null = null;
let pg: Figures | null = null;
for (let round = 0; round < 2; round++) {
  bun = best(bun, await measure(bunClient));
  pg = best(pg, await measure(pgClient));
}
const rows: [string, keyof NonNullable<typeof bun>][] = [
  ["single-row inserts/s", "inserts"],
  ["batch-insert rows/s (1,000 a statement)", "batchInserts"],
  ["point selects/s (one at a time)", "selects"],
  ["point selects/s (16 at a time, pool of 8)", "concurrentSelects"],
  ["transactions/s (INSERT + UPDATE; sql.begin)", "transactions"],
  ["transactions/s (the same, BEGIN/COMMIT by hand)", "manualTransactions"],
];
console.log(`${"".padEnd(44)}${"Bun.sql".padStart(10)}${"pg".padStart(10)}${"Bun.sql/pg".padStart(12)}`);
for (const [label, key] of rows) {
  const a = bun![key];
  const b = pg?.[key];
  console.log(
    `${label.padEnd(44)}${String(a).padStart(10)}${String(b ?? "-").padStart(10)}${(b ? (a / b).toFixed(2) : "-").padStart(12)}`,
  );
}
