// Issue 31 item 1: the records' statements, built with drizzle's SQLite builders, served by PostgreSQL
// (db/postgres/records-db.ts): the same statement answers the same values on both engines, and the records'
// withTransaction on PostgreSQL commits, rolls back, nests as savepoints and keeps two callers' transactions apart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq, sql } from "drizzle-orm";
import { openDatabase, type Db } from "../../db/client";
import { migratePostgres } from "../../db/postgres/migrate";
import { openPostgresRecords, toPostgres, type PostgresRecords } from "../../db/postgres/records-db";
import { rateWindows, templates, users } from "../../db/schema";
import { HIT_SQL } from "../../src/auth/rate-windows";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";

let pg: ThrowawayDatabase;
let records: PostgresRecords;
let lite: Db;
beforeAll(async () => {
  pg = await throwawayDatabase();
  await migratePostgres(pg.sql);
  records = openPostgresRecords(pg.sql);
  lite = openDatabase(":memory:");
});
afterAll(() => pg?.drop());

describe("a statement's text, as PostgreSQL takes it", () => {
  test("? parameters are numbered in order, not inside quoted text or names", () => {
    expect(toPostgres(`select "a?" from t where b = ? and c = 'what?' and d = ? and e = 'it''s ?'`)).toBe(
      `select "a?" from t where b = $1 and c = 'what?' and d = $2 and e = 'it''s ?'`,
    );
  });
  test("SQLite's clock, casts and ifnull are PostgreSQL's", () => {
    expect(toPostgres("insert into t (a, at) values (?, (cast(unixepoch('subsec') * 1000 as integer)))")).toBe(
      "insert into t (a, at) values ($1, ((floor(extract(epoch from clock_timestamp()) * 1000))::bigint))",
    );
    expect(toPostgres("select cast(x as integer), ifnull(y, 0) from t")).toBe("select cast(x as bigint), coalesce(y, 0) from t");
  });
  test("an upsert's conflict target names its columns without their table, as PostgreSQL's grammar asks", () => {
    expect(toPostgres(`insert into "t" ("a", "b") values (?, ?) on conflict ("t"."a", "t"."b") do update set "c" = ?`)).toBe(
      `insert into "t" ("a", "b") values ($1, $2) on conflict ("a", "b") do update set "c" = $3`,
    );
  });
});

const account = (id: string) => ({ id, email: `${id}@example.com`, passwordHash: "hash", firstName: "Ana" });

describe("the same builders, the same values on both engines", () => {
  test("an insert with the schema's defaults answers the same row (flags, times, enums)", async () => {
    const before = Date.now();
    const [onPg] = (await records.db.insert(users).values(account("u1")).returning())!;
    const [onLite] = lite.insert(users).values(account("u1")).returning().all();
    if (!onPg || !onLite) throw new Error("no row returned");
    const { createdAt: pgAt, updatedAt: pgUp, ...pgRest } = onPg;
    const { createdAt: liteAt, updatedAt: liteUp, ...liteRest } = onLite;
    expect(pgRest).toEqual(liteRest);
    expect(pgRest).toMatchObject({ emailVerified: false, disabled: false, role: "user", quietHoursEnabled: true, appendOptOut: true });
    for (const at of [pgAt, pgUp, liteAt, liteUp]) {
      expect(at).toBeInstanceOf(Date);
      expect(at!.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(at!.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  test("selects, counts and updates answer numbers and changes alike", async () => {
    const rows = [
      { id: "t1", userId: "u1", name: "Welcome", category: "retail" as const, content: "Hi {first_name}", usageCount: 3 },
      { id: "t2", userId: "u1", name: "Sale", category: "retail" as const, content: "20% off", usageCount: 0 },
    ];
    await records.db.insert(templates).values(rows);
    lite.insert(templates).values(rows).run();
    const read = (db: any) =>
      db.select({ id: templates.id, uses: templates.usageCount }).from(templates).where(eq(templates.userId, "u1")).orderBy(asc(templates.id));
    expect(await read(records.db)).toEqual([{ id: "t1", uses: 3 }, { id: "t2", uses: 0 }]);
    expect(await read(records.db)).toEqual(read(lite).all());
    const count = (db: any) => db.select({ n: sql<number>`count(*)` }).from(templates).where(eq(templates.userId, "u1"));
    expect(await count(records.db)).toEqual([{ n: 2 }]);
    expect(count(lite).all()).toEqual([{ n: 2 }]);
    const bump = (db: any) => db.update(templates).set({ usageCount: sql`${templates.usageCount} + 1` }).where(and(eq(templates.userId, "u1")));
    expect(await bump(records.db).run()).toMatchObject({ changes: 2 });
    expect(bump(lite).run()).toMatchObject({ changes: 2 });
    const one = await records.db.select().from(templates).where(eq(templates.id, "t1")).get();
    expect(one).toMatchObject({ id: "t1", usageCount: 4, category: "retail" });
    expect(await records.db.select().from(templates).where(eq(templates.id, "none")).get()).toBeUndefined();
  });

  test("an upsert (onConflictDoUpdate) inserts, then updates the row it conflicts with, alike", async () => {
    const upsert = (db: any, hits: number) =>
      db.insert(rateWindows).values({ key: "upserted", hits, resetsAt: 9_000_000 }).onConflictDoUpdate({ target: rateWindows.key, set: { hits } });
    for (const hits of [1, 7]) {
      await upsert(records.db, hits).run();
      upsert(lite, hits).run();
    }
    const read = (db: any) => db.select().from(rateWindows).where(eq(rateWindows.key, "upserted"));
    expect(await read(records.db)).toEqual([{ key: "upserted", hits: 7, resetsAt: 9_000_000 }]);
    expect(read(lite).all()).toEqual([{ key: "upserted", hits: 7, resetsAt: 9_000_000 }]);
  });

  test("a raw statement answers objects with numbers, as bun:sqlite does", async () => {
    const now = 5_000_000;
    const hit = () => records.rows<{ hits: number; resets_at: number }>(HIT_SQL, ["client|sign-in|203.0.113.9", now + 60_000, now, now]);
    expect(await hit()).toEqual([{ hits: 1, resets_at: now + 60_000 }]);
    expect(await hit()).toEqual([{ hits: 2, resets_at: now + 60_000 }]);
    expect(await records.run("DELETE FROM rate_windows WHERE resets_at < ?", [now + 120_000])).toEqual({ changes: 1 });
  });
});

describe("withTransaction on PostgreSQL", () => {
  const windowRow = (key: string) => records.db.select().from(rateWindows).where(eq(rateWindows.key, key)).get();

  test("commits what its callback wrote; rolls all of it back when the callback throws", async () => {
    await records.withTransaction(async () => {
      await records.db.insert(rateWindows).values({ key: "kept", hits: 1, resetsAt: 10 });
    });
    await expect(
      records.withTransaction(async () => {
        await records.db.insert(rateWindows).values({ key: "dropped", hits: 1, resetsAt: 10 });
        throw new Error("the caller's check failed");
      }),
    ).rejects.toThrow("the caller's check failed");
    expect(await windowRow("kept")).toEqual({ key: "kept", hits: 1, resetsAt: 10 });
    expect(await windowRow("dropped")).toBeUndefined();
  });

  test("one begun inside another is a savepoint: its failure undoes only its own writes", async () => {
    await records.withTransaction(async () => {
      await records.db.insert(rateWindows).values({ key: "outer", hits: 1, resetsAt: 10 });
      await records
        .withTransaction(async () => {
          await records.db.insert(rateWindows).values({ key: "inner", hits: 1, resetsAt: 10 });
          throw new Error("inner failed");
        })
        .catch(() => {});
      // Two savepoints side by side take turns.
      await Promise.all(
        ["a", "b"].map((k) => records.withTransaction(async () => void (await records.db.insert(rateWindows).values({ key: `side-${k}`, hits: 1, resetsAt: 10 })))),
      );
    });
    expect(await windowRow("outer")).toBeDefined();
    expect(await windowRow("inner")).toBeUndefined();
    expect((await windowRow("side-a"))?.key).toBe("side-a");
    expect((await windowRow("side-b"))?.key).toBe("side-b");
  });

  test("another caller neither sees nor joins an open transaction's writes", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const written = new Promise<void>((r) => (inside = r));
    const tx = records.withTransaction(async () => {
      await records.db.insert(rateWindows).values({ key: "pending", hits: 1, resetsAt: 10 });
      inside();
      await held;
    });
    await written;
    // Outside the transaction: another connection, which does not see the uncommitted row ...
    expect(await windowRow("pending")).toBeUndefined();
    // ... and whose own write is not rolled back with it.
    await records.db.insert(rateWindows).values({ key: "outsider", hits: 1, resetsAt: 10 });
    release();
    await tx;
    expect((await windowRow("pending"))?.key).toBe("pending");
    expect((await windowRow("outsider"))?.key).toBe("outsider");
  });

  test("two transactions' conditional updates of one row: exactly one wins", async () => {
    await records.db.insert(rateWindows).values({ key: "once", hits: 0, resetsAt: 10 });
    const claim = () =>
      records.withTransaction(async () => {
        const r = await records.db.update(rateWindows).set({ hits: 1 }).where(and(eq(rateWindows.key, "once"), eq(rateWindows.hits, 0))).run();
        // Hold the row's lock a moment so the other transaction overlaps and waits on it.
        await Bun.sleep(50);
        return (r as unknown as { changes: number }).changes;
      });
    expect((await Promise.all([claim(), claim()])).sort()).toEqual([0, 1]);
  });
});
