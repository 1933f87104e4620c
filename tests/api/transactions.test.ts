/**
 * Record-level transactions for async callers (db/transaction.ts, issue 30 item 2): on one bun:sqlite connection,
 * a transaction whose callback awaits must not let another caller's statements see or join its writes. Records here
 * are written the way the converted folders write theirs: `await ready(db)`, then statements with no await between.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { openDatabase, type Db } from "../../db/client";
import { sqliteRecords } from "../../db/records";
import { afterTransaction, inTransaction, ready, TURN_BUDGET_MS, turnBudget, withTransaction } from "../../db/transaction";
import { sql } from "drizzle-orm";

let db: Db;

beforeEach(() => {
  db = openDatabase(":memory:");
  db.$client.run("CREATE TABLE t (name TEXT PRIMARY KEY)");
});
afterEach(() => {
  db.$client.close();
  turnBudget.ms = TURN_BUDGET_MS;
});

/** A record: adds a row. */
async function add(name: string) {
  await ready(db);
  db.$client.query("INSERT INTO t (name) VALUES (?)").run(name);
}

/** A record: the rows, in order. */
async function names(): Promise<string[]> {
  await ready(db);
  return (db.$client.query("SELECT name FROM t ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

/** A pause in which other callers' code runs: a macrotask (as a real await on I/O would), then a microtask. */
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 1)).then(() => undefined);

describe("transactions of different callers", () => {
  test("run one after the other and neither sees nor joins the other's writes", async () => {
    const seen: Record<string, string[]> = {};
    const run = (who: string) =>
      withTransaction(db, async () => {
        await add(`${who}1`);
        await pause();
        await add(`${who}2`);
        seen[who] = await names();
      });
    await Promise.all([run("a"), run("b")]);
    // a's transaction ran whole before b's: a saw only its own rows, b saw a's committed ones and its own.
    expect(seen).toEqual({ a: ["a1", "a2"], b: ["a1", "a2", "b1", "b2"] });
    expect(await names()).toEqual(["a1", "a2", "b1", "b2"]);
  });

  test("a rollback takes back only its own writes, with another transaction interleaved", async () => {
    const failing = withTransaction(db, async () => {
      await add("doomed1");
      await pause();
      await add("doomed2");
      throw new Error("refused");
    });
    const committing = withTransaction(db, async () => {
      await add("kept1");
      await pause();
      await add("kept2");
    });
    const results = await Promise.allSettled([failing, committing]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled"]);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe("refused");
    expect(await names()).toEqual(["kept1", "kept2"]);
    expect(db.$client.inTransaction).toBe(false);
  });

  test("a record outside waits until the open transaction ends, and sees only what committed", async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = withTransaction(db, async () => {
      await add("x");
      order.push("tx wrote x");
      await held;
      order.push("tx ends");
      throw new Error("rolled back");
    }).catch((err: Error) => err.message);
    // The transaction is open and waiting; a record outside it asks to read and to write.
    await pause();
    const outsideRead = names().then((rows) => (order.push(`outside read ${JSON.stringify(rows)}`), rows));
    const outsideWrite = add("y").then(() => order.push("outside wrote y"));
    await pause();
    expect(order).toEqual(["tx wrote x"]);
    release();
    expect(await tx).toBe("rolled back");
    await Promise.all([outsideRead, outsideWrite]);
    expect(order).toEqual(["tx wrote x", "tx ends", "outside read []", "outside wrote y"]);
    // The outside write did not join the rolled-back transaction.
    expect(await names()).toEqual(["y"]);
  });

  test("a record let go when a transaction ends runs before the next one begins, queued or new: it joins neither", async () => {
    let releaseFirst!: () => void;
    const first = withTransaction(db, async () => {
      await add("first");
      await new Promise<void>((resolve) => (releaseFirst = resolve));
    });
    await pause();
    // Waiting while the first is open: a record's write, then a transaction queued behind it that rolls back.
    const outside = add("outside").then(() => inTransaction(db));
    const queued = withTransaction(db, async () => {
      await add("queued");
      await pause();
      throw new Error("queued rolls back");
    }).catch((err: Error) => err.message);
    // And one begun anew in the microtasks right after the first ends, before the record's statement has run.
    let fresh: Promise<string> | undefined;
    void first.then(() => {
      fresh = withTransaction(db, async () => {
        await add("fresh");
        await pause();
        throw new Error("fresh rolls back");
      }).catch((err: Error) => err.message);
    });
    releaseFirst();
    await first;
    expect(await outside).toBe(false);
    expect(await queued).toBe("queued rolls back");
    expect(await fresh).toBe("fresh rolls back");
    // Before, the record let go ran its INSERT inside whichever began first in those microtasks and was rolled back
    // with it: its write answered, then gone.
    expect(await names()).toEqual(["first", "outside"]);
    expect(db.$client.inTransaction).toBe(false);
  });

  test("a record with nothing open runs before a transaction begun in its await's gap: it does not join it", async () => {
    // The record's `await ready(db)` yields a microtask even with nothing open; a transaction begun in that gap (by
    // code whose turn comes first) was open around the record's statement, which joined it and was rolled back with
    // it: an INSERT answered, then gone.
    const outside = add("outside").then(() => inTransaction(db));
    const rolledBack = withTransaction(db, async () => {
      await add("inside");
      await pause();
      throw new Error("rolls back");
    }).catch((err: Error) => err.message);
    expect(await outside).toBe(false);
    expect(await rolledBack).toBe("rolls back");
    expect(await names()).toEqual(["outside"]);
    // And the other way round: a transaction begun first keeps a record that comes after it waiting, as before.
    const tx = withTransaction(db, async () => {
      await add("tx");
      await pause();
    });
    const after = add("after").then(() => inTransaction(db));
    await tx;
    expect(await after).toBe(false);
    expect(await names()).toEqual(["after", "outside", "tx"]);
  });
});

describe("statements on ctx.records (db/records.ts), each gated as it runs", () => {
  test("a record awaiting between its statements joins no transaction begun in the pause; one open waits for its end", async () => {
    const records = sqliteRecords(db);
    const order: string[] = [];
    let begun!: () => void;
    const txBegun = new Promise<void>((resolve) => (begun = resolve));
    const record = (async () => {
      await records.$run("INSERT INTO t (name) VALUES (?)", ["r1"]);
      await txBegun;
      // Now a transaction of another caller is open: each kind of statement waits for its end.
      const raw = records.$run("INSERT INTO t (name) VALUES (?)", ["r2"]).then(() => order.push("raw wrote r2"));
      const built = Promise.resolve(records.run(sql`INSERT INTO t (name) VALUES ('r3')`)).then(() => order.push("drizzle wrote r3"));
      const read = Promise.resolve(records.all<{ name: string }>(sql`SELECT name FROM t ORDER BY name`)).then((rows) =>
        order.push(`read ${rows.map((r) => r.name).join(",")}`),
      );
      await Promise.all([raw, built, read]);
    })();
    const tx = withTransaction(db, async () => {
      await records.$run("INSERT INTO t (name) VALUES (?)", ["tx"]);
      begun();
      await pause();
      order.push("tx ends");
      throw new Error("rolled back");
    }).catch((err: Error) => err.message);
    expect(await tx).toBe("rolled back");
    await record;
    // Before, ctx.records ran at once: r2 and r3 joined the transaction and went with its rollback, the read saw "tx".
    // (The statements ran in the order asked, as the read shows; their answers reach the caller a microtask or two apart.)
    expect(order[0]).toBe("tx ends");
    expect(order.slice(1).sort()).toEqual(["drizzle wrote r3", "raw wrote r2", "read r1,r2,r3"]);
    expect(await names()).toEqual(["r1", "r2", "r3"]);
  });

  test("inside the transaction they run at once, and see its writes", async () => {
    const records = sqliteRecords(db);
    const seen = await withTransaction(db, async () => {
      await records.$run("INSERT INTO t (name) VALUES (?)", ["inside"]);
      await pause();
      return (await records.$rows<{ name: string }>("SELECT name FROM t")).map((r) => r.name);
    });
    expect(seen).toEqual(["inside"]);
  });
});

describe("transactions queued while records keep running", () => {
  test("all begin and commit in the turn they were asked for, without waiting for the records to stop", async () => {
    // Apart from the budget that lets the loop turn during a long backlog (tested below): a slow machine's ten
    // transactions may pass it in wall time.
    turnBudget.ms = Infinity;
    const records = sqliteRecords(db);
    // Event-loop turns, counted by a macrotask each.
    let turn = 0;
    let counting = true;
    const tick = () => {
      turn++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    // Three callers running a record every turn for 30 turns, both kinds (ready and synchronous, and ctx.records).
    const stream = async (who: string) => {
      for (let i = 0; i < 30; i++) {
        await add(`${who}${String(i).padStart(2, "0")}`);
        await records.$rows("SELECT count(*) AS n FROM t");
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    };
    await new Promise<void>((resolve) => setImmediate(resolve));
    const asked = turn;
    // Ten transactions asked for at once, their callbacks awaiting records only: the first begins, and while it is
    // open the records of the three callers ask to run, then the nine others queue.
    const committed: number[] = [];
    const transaction = (i: number) =>
      withTransaction(db, async () => {
        await add(`tx${i}`);
        await records.$run("INSERT INTO t (name) VALUES (?)", [`tx${i}b`]);
      }).then(() => committed.push(turn - asked));
    const first = transaction(0);
    const streams = [stream("a"), stream("b"), stream("c")];
    const txs = [first, ...Array.from({ length: 9 }, (_, i) => transaction(i + 1))];
    await Promise.all(txs);
    // Before, each record let go armed a hold on BEGIN until the next turn, and the queued transactions began one a turn
    // (or slower), for as long as records kept coming.
    expect(committed).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    await Promise.all(streams);
    counting = false;
    const rows = await names();
    expect(rows.length).toBe(90 + 20);
    expect(rows.filter((n) => n.startsWith("tx"))).toEqual(Array.from({ length: 10 }, (_, i) => [`tx${i}`, `tx${i}b`]).flat().sort());
    expect(db.$client.inTransaction).toBe(false);
  });
});

describe("a backlog of queued transactions", () => {
  test("begins in the order it was asked for, and lets the event loop turn once a turn's transactions have run TURN_BUDGET_MS", async () => {
    // A burst of webhooks: 60 transactions asked for at once, each holding the connection 1 ms (its statements' work).
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const begun: number[] = [];
    let beforeTurn = -1;
    const first = withTransaction(db, async () => {
      await pause();
      // The next turn of the loop: how many of the queued ones (asked for while this one is open) began before it.
      setImmediate(() => (beforeTurn = begun.length));
    });
    const queued = Array.from({ length: 60 }, (_, i) =>
      withTransaction(db, async () => {
        begun.push(i);
        busy(1);
        await add(`tx${String(i).padStart(2, "0")}`);
      }),
    );
    await Promise.all([first, ...queued]);
    expect(begun).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // The turn the first one's end began in ran transactions for TURN_BUDGET_MS, then let the loop run what waited
    // (the immediate above), long before the backlog was gone: before, all 60 ran in that one turn.
    expect(beforeTurn).toBeGreaterThanOrEqual(1);
    expect(beforeTurn).toBeLessThanOrEqual(TURN_BUDGET_MS + 1);
    expect((await names()).length).toBe(60);
    expect(db.$client.inTransaction).toBe(false);
  });
});

describe("a transaction inside another", () => {
  test("joins it: its writes commit with the outer's", async () => {
    const inside: boolean[] = [];
    await withTransaction(db, async () => {
      await add("outer");
      await withTransaction(db, async () => {
        inside.push(inTransaction(db));
        await pause();
        await add("inner");
        // The inner sees the outer's uncommitted row, being of the same transaction.
        expect(await names()).toEqual(["inner", "outer"]);
      });
    });
    expect(inside).toEqual([true]);
    expect(inTransaction(db)).toBe(false);
    expect(await names()).toEqual(["inner", "outer"]);
  });

  test("an error inside rolls back only the inner part when the outer catches it, all of it when not", async () => {
    await withTransaction(db, async () => {
      await add("outer");
      const err = await withTransaction(db, async () => {
        await add("inner");
        await pause();
        throw new Error("inner failed");
      }).catch((e: Error) => e.message);
      expect(err).toBe("inner failed");
      await add("after");
    });
    expect(await names()).toEqual(["after", "outer"]);

    const outerErr = await withTransaction(db, async () => {
      await add("outer2");
      await withTransaction(db, async () => {
        await add("inner2");
        throw new Error("not caught");
      });
    }).catch((e: Error) => e.message);
    expect(outerErr).toBe("not caught");
    expect(await names()).toEqual(["after", "outer"]);
  });

  test("two inner ones side by side take their savepoints one at a time", async () => {
    await withTransaction(db, async () => {
      const results = await Promise.allSettled([
        withTransaction(db, async () => {
          await add("p1");
          await pause();
          throw new Error("p failed");
        }),
        withTransaction(db, async () => {
          await add("q1");
          await pause();
          await add("q2");
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled"]);
    });
    expect(await names()).toEqual(["q1", "q2"]);
  });

  test("a synchronous bun:sqlite transaction called inside joins as a savepoint", async () => {
    await withTransaction(db, async () => {
      await add("async");
      db.$client.transaction(() => db.$client.query("INSERT INTO t (name) VALUES ('sync')").run())();
      await pause();
      throw new Error("all of it goes");
    }).catch(() => {});
    expect(await names()).toEqual([]);
  });
});

describe("a transaction whose callback awaits nothing", () => {
  test("commits, or rolls back, before its caller goes on: no turn for anyone else in between", async () => {
    const done = withTransaction(db, async () => {
      db.$client.query("INSERT INTO t (name) VALUES ('now')").run();
    });
    expect(db.$client.inTransaction).toBe(false);
    expect(await names()).toEqual(["now"]);
    const failed = withTransaction(db, async () => {
      db.$client.query("INSERT INTO t (name) VALUES ('never')").run();
      throw new Error("refused");
    });
    expect(db.$client.inTransaction).toBe(false);
    expect(await failed.catch((e: Error) => e.message)).toBe("refused");
    await done;
    expect(await names()).toEqual(["now"]);
  });
});

describe("an error inside", () => {
  test("rolls back, rethrows, and leaves the connection free for the next transaction", async () => {
    const err = await withTransaction(db, async () => {
      await add("a");
      await add("a"); // the primary key refuses it
    }).catch((e: Error) => e.message);
    expect(err).toBe("UNIQUE constraint failed: t.name");
    expect(db.$client.inTransaction).toBe(false);
    expect(await withTransaction(db, async () => (await add("b"), "done"))).toBe("done");
    expect(await names()).toEqual(["b"]);
  });
});

describe("afterTransaction", () => {
  test("runs after the caller's transaction ends, outside it; with none, in a microtask", async () => {
    const order: string[] = [];
    const after = (what: string) => () => order.push(`${what}: in a transaction ${inTransaction(db)}, rows ${JSON.stringify(db.$client.query("SELECT name FROM t ORDER BY name").all().map((r: any) => r.name))}`);
    await withTransaction(db, async () => {
      await add("a");
      afterTransaction(db, after("committed"));
      await pause();
      order.push("tx ends");
    });
    await pause();
    await withTransaction(db, async () => {
      await add("b");
      afterTransaction(db, after("rolled back"));
      throw new Error("no");
    }).catch(() => {});
    await pause();
    afterTransaction(db, after("none"));
    order.push("queued");
    await pause();
    expect(order).toEqual([
      "tx ends",
      'committed: in a transaction false, rows ["a"]',
      'rolled back: in a transaction false, rows ["a"]',
      "queued",
      'none: in a transaction false, rows ["a"]',
    ]);
  });
});
