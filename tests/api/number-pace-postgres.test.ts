// Issue 31 item 2 on PostgreSQL: a number's shared schedule (src/phone-numbers/pace.ts) is reserved by the same
// statement text as on SQLite; two processes' overlapping transactions take turns on its row, and none is given a
// slot another was given.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { RESERVE_ACCOUNT_PACE_SQL, RESERVE_PACE_SQL, reservePaceParams, SHIFT_PACE_SQL } from "../../src/phone-numbers/pace";
import { CATCH_UP_MS } from "../../src/sending/pace";
import { migratedWithSender, type ThrowawayDatabase } from "../support/postgres";

const T0 = 1_800_000_000_000;
const INTERVAL = 10.5;

let pg: ThrowawayDatabase;
beforeAll(async () => {
  pg = await migratedWithSender({ n1: "+14155550101", n2: "+14155550102" });
});
afterAll(() => pg?.drop());

/** `?` parameters in order, as bun:sqlite takes them, numbered as PostgreSQL takes them. */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

const reserve = async (sql: SQL, number: string, now: number, want: number) => {
  const [row] = (await sql.unsafe(numbered(RESERVE_PACE_SQL), reservePaceParams(number, now, want, INTERVAL, CATCH_UP_MS))) as { granted: string; nextAt: number }[];
  return { granted: Number(row!.granted), nextAt: Number(row!.nextAt) };
};

test("the same reservations answer as on SQLite", async () => {
  expect(await reserve(pg.sql, "n1", T0, 50)).toEqual({ granted: 1, nextAt: T0 + 10.5 });
  expect(await reserve(pg.sql, "n1", T0, 50)).toEqual({ granted: 0, nextAt: T0 + 10.5 });
  expect(await reserve(pg.sql, "n1", T0 + 40, 50)).toEqual({ granted: 3, nextAt: T0 + 42 });
  expect(await reserve(pg.sql, "n1", T0 + 100, 2)).toEqual({ granted: 2, nextAt: T0 + 63 });
  await pg.sql.unsafe(numbered(SHIFT_PACE_SQL), [-21, "n1"]);
  expect(await reserve(pg.sql, "n1", T0 + 100, 50)).toEqual({ granted: 6, nextAt: T0 + 105 });
  expect(await reserve(pg.sql, "n1", T0 + 10_000, 50)).toEqual({ granted: 1, nextAt: T0 + 10_010.5 });
});

test("an account's schedule is reserved by the same statement on its own table", async () => {
  const [first] = await pg.sql.unsafe(numbered(RESERVE_ACCOUNT_PACE_SQL), reservePaceParams("a1", T0, 5, 21, CATCH_UP_MS));
  const [then] = await pg.sql.unsafe(numbered(RESERVE_ACCOUNT_PACE_SQL), reservePaceParams("a1", T0 + 42, 5, 21, CATCH_UP_MS));
  expect([first, then].map((r: any) => ({ granted: Number(r.granted), nextAt: Number(r.nextAt) }))).toEqual([
    { granted: 1, nextAt: T0 + 21 },
    { granted: 2, nextAt: T0 + 63 },
  ]);
});

test("two processes' overlapping batches: the second waits for the first's commit and gets the slots after its", async () => {
  await reserve(pg.sql, "n2", T0, 1);
  const one = await pg.sql.reserve();
  const two = await pg.sql.reserve();
  try {
    await one.unsafe("BEGIN");
    await two.unsafe("BEGIN");
    expect(await reserve(one, "n2", T0 + 50, 3)).toEqual({ granted: 3, nextAt: T0 + 42 });
    const second = reserve(two, "n2", T0 + 50, 10);
    const waited = await Promise.race([second.then(() => false), Bun.sleep(200).then(() => true)]);
    expect(waited).toBe(true);
    // The first batch used 2 of its 3 slots (a row held back) and gives the third back before it commits.
    await one.unsafe(numbered(SHIFT_PACE_SQL), [-INTERVAL, "n2"]);
    await one.unsafe("COMMIT");
    expect(await second).toEqual({ granted: 2, nextAt: T0 + 52.5 });
    await two.unsafe("COMMIT");
  } finally {
    one.release();
    two.release();
  }
});

test("three processes reserving at once, 300 batches: every slot given once, none before its time", async () => {
  const number = "n1";
  const start = T0 + 100_000;
  await reserve(pg.sql, number, start, 1);
  const conns = await Promise.all([1, 2, 3].map(() => pg.sql.reserve()));
  try {
    const grants: { now: number; granted: number; nextAt: number }[] = [];
    // Each of the three looks every 7 ms of the schedule's time, asking for up to 5 segments, in its own transaction.
    await Promise.all(
      conns.map(async (conn, p) => {
        for (let k = 1; k <= 100; k++) {
          const now = start + k * 7 + p;
          await conn.unsafe("BEGIN");
          grants.push({ now, ...(await reserve(conn, number, now, 5)) });
          await conn.unsafe("COMMIT");
        }
      }),
    );
    const total = grants.reduce((n, g) => n + g.granted, 0);
    // Slots come at start + 10.5 k: those up to the last look's time, all given, each once, and no more.
    const lastNow = Math.max(...grants.map((g) => g.now));
    const slotsCome = Math.floor((lastNow - start) / INTERVAL);
    const { nextAt } = await reserve(pg.sql, number, lastNow, 0);
    expect(nextAt).toBe(start + INTERVAL * (total + 1));
    expect(total).toBeLessThanOrEqual(slotsCome);
    expect(total).toBeGreaterThanOrEqual(slotsCome - 5);
  } finally {
    for (const c of conns) c.release();
  }
});
