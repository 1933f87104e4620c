// The outbound webhooks feed under a backlog: it reads the event log in pages of at most 200 events with a turn of
// the event loop between them, woken when events commit (no 5-second job between pages); every event becomes one
// delivery per endpoint, even across a restart in the middle of a backlog with the cursor set back; and the HTTP
// attempts run at most 8 at once per endpoint, 16 per account and 64 in all. Everything on a fake clock: counts, order and bounds.
import { afterEach, describe, expect, setDefaultTimeout, setSystemTime, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { loadConfig } from "../../src/config";
import type { AppContext } from "../../src/context";
import { appendEvents, readCursor } from "../../src/events/events";
import { DUE_BATCH, runDueJobs } from "../../src/jobs/jobs";
import {
  ATTEMPTS_IN_FLIGHT,
  ATTEMPTS_PER_ACCOUNT,
  ATTEMPTS_PER_ENDPOINT,
  createEndpoint,
  FEED_PAGE,
  feedDeliveries,
  feedStats,
  startOutboundWebhooks,
} from "../../src/outbound-webhooks/webhooks";
import { openAppContext } from "../../src/server";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { waitFor } from "../support/wait";
import { receiversStandFor } from "../support/webhook-network";

setDefaultTimeout(60_000);

const CURSOR = "outbound-webhooks";
const T0 = Date.parse("2026-08-01T09:00:00Z");

type Received = { path: string; id: string; timestamp: string; signature: string; body: string };

/**
 * A local receiver recording every request; while `held`, requests to the held paths (all by default) wait
 * (counted in flight) until released. Counts the most in flight in all, per path and per first path segment
 * (an account's endpoints are named /<account>/<endpoint>).
 */
function startReceiver() {
  const received: Received[] = [];
  const inFlight = new Map<string, number>();
  const most = { total: 0, perPath: new Map<string, number>(), perPrefix: new Map<string, number>() };
  let flying = 0;
  let held: Promise<void> | null = null;
  let heldPaths = (_path: string) => true;
  let release = () => {};
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const prefix = path.split("/")[1]!;
      const slots: [string, Map<string, number>][] = [[path, most.perPath], [`${prefix}/*`, most.perPrefix]];
      flying++;
      for (const [slot, highest] of slots) {
        inFlight.set(slot, (inFlight.get(slot) ?? 0) + 1);
        highest.set(slot, Math.max(highest.get(slot) ?? 0, inFlight.get(slot)!));
      }
      most.total = Math.max(most.total, flying);
      const body = await req.text();
      if (held && heldPaths(path)) await held;
      received.push({ path, id: req.headers.get("webhook-id")!, timestamp: req.headers.get("webhook-timestamp")!, signature: req.headers.get("webhook-signature")!, body });
      flying--;
      for (const [slot] of slots) inFlight.set(slot, inFlight.get(slot)! - 1);
      return new Response("ok");
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    most,
    flying: () => flying,
    hold(paths = (_path: string) => true) {
      heldPaths = paths;
      held = new Promise((resolve) => (release = resolve));
    },
    release() {
      held = null;
      release();
    },
    stop: () => server.stop(true),
  };
}

/** Webhook.verify checks the timestamp against the wall clock: verify each delivery at the time it was signed. */
function verify(secret: string, r: Received): { type: string; data: Record<string, unknown> } {
  setSystemTime(new Date(Number(r.timestamp) * 1000));
  try {
    return new Webhook(secret).verify(r.body, { "webhook-id": r.id, "webhook-timestamp": r.timestamp, "webhook-signature": r.signature }) as never;
  } finally {
    setSystemTime();
  }
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanups.splice(0)) fn();
});

/** An appliance on a data folder (a fixed clock, mails dropped), the feed and delivery jobs registered; no runner. */
async function open(dataDir: string) {
  const ctx = await openAppContext(loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, []), () => {});
  ctx.mailer.close();
  ctx.mailer = { send: async () => {}, close: () => {} };
  ctx.now = () => T0;
  // The receiver on 127.0.0.1 stands in for a public host.
  receiversStandFor(ctx, "public");
  await startOutboundWebhooks(ctx);
  return ctx;
}

function setUp() {
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-webhooks-feed-"));
  const receiver = startReceiver();
  cleanups.push(() => {
    receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { dataDir, receiver };
}

/** `n` contact_created events in one transaction: a backlog the feed finds all at once. Answers their ids. */
function backlog(ctx: AppContext, userId: string, n: number): Promise<number[]> {
  return ctx.withTransaction(() =>
    appendEvents(ctx, Array.from({ length: n }, (_, i) => ({ userId, type: "contact.created" as const, subject: { kind: "contact" as const, id: `c${i}` }, payload: { source: "import" } }))),
  );
}

/** `n` contact_created events of an account, fed at once: one delivery per event and subscribed endpoint. */
async function deliveriesFor(ctx: AppContext, userId: string, n: number) {
  await backlog(ctx, userId, n);
  while ((await feedDeliveries(ctx)).more);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The feed's cursor at each turn of the event loop, from now until `until` holds (within 2,000 turns). */
async function cursorPerTurn(ctx: AppContext, until: (cursor: number) => boolean): Promise<number[]> {
  const seen: number[] = [];
  for (;;) {
    if (seen.length === 2000) throw new Error(`the feed's cursor stopped at ${seen.at(-1)}`);
    await nextTurn();
    seen.push(await readCursor(ctx, CURSOR));
    if (until(seen.at(-1)!)) return seen;
  }
}

/** Runs the due deliveries until none is pending. */
async function deliverAll(ctx: AppContext) {
  const pending = () => (ctx.db.$client.query(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`).get() as { n: number }).n;
  while (pending()) await (await runDueJobs(ctx)).settled;
}

const count = (ctx: AppContext, sql: string) => (ctx.db.$client.query(sql).get() as { n: number }).n;

describe("events no endpoint takes", () => {
  test("are not read: a page moves the cursor past 1,000 of them to the head, reading none", async () => {
    const { dataDir, receiver } = setUp();
    const ctx = await open(dataDir);
    cleanups.unshift(() => ctx.db.$client.close());
    const user = await createOrPromoteAdmin(ctx, "feed@example.com", "owner-secret-123");
    await createEndpoint(ctx, user.id, { name: "crm", url: `${receiver.url}/crm`, events: ["message_sent"] });
    await cursorPerTurn(ctx, () => true);
    const before = { ...feedStats(ctx) };
    const ids = await backlog(ctx, user.id, 1000);
    expect(await feedDeliveries(ctx)).toEqual({ made: 0, more: false });
    expect(await readCursor(ctx, CURSOR)).toBe(ids.at(-1)!);
    expect(feedStats(ctx).events - before.events).toBe(0);
    expect(count(ctx, `SELECT count(*) AS n FROM webhook_deliveries`)).toBe(0);
  });
});

describe("a backlog of 1,000 events", () => {
  test(`is fed at most ${FEED_PAGE} events a turn of the event loop, right after the commit (no job run): 1,000 deliveries, each sent once and signed`, async () => {
    const { dataDir, receiver } = setUp();
    const ctx = await open(dataDir);
    cleanups.unshift(() => ctx.db.$client.close());
    const user = await createOrPromoteAdmin(ctx, "feed@example.com", "owner-secret-123");
    const ep = await createEndpoint(ctx, user.id, { name: "crm", url: `${receiver.url}/crm`, events: ["contact_created"] });
    await cursorPerTurn(ctx, () => true); // the feed's start-up page, on a log without deliverable events
    const before = { ...feedStats(ctx) };

    const ids = await backlog(ctx, user.id, 1000);
    const perTurn = await cursorPerTurn(ctx, (c) => c >= ids.at(-1)!);
    // Events fed by each turn's end: never more than a page in one turn, all 1,000 in the end.
    const fed = perTurn.map((c) => ids.filter((id) => id <= c).length);
    const steps = fed.map((n, i) => n - (fed[i - 1] ?? 0));
    expect(Math.max(...steps)).toBeLessThanOrEqual(FEED_PAGE);
    expect(fed.at(-1)).toBe(1000);
    expect(feedStats(ctx).events - before.events).toBe(1000);
    expect(feedStats(ctx).pages - before.pages).toBeGreaterThanOrEqual(5);
    expect(feedStats(ctx).largestPage).toBeLessThanOrEqual(FEED_PAGE);
    expect(count(ctx, `SELECT count(*) AS n FROM webhook_deliveries`)).toBe(1000);
    expect(count(ctx, `SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.deliver'`)).toBe(1000);

    await deliverAll(ctx);
    expect(receiver.received.length).toBe(1000);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1000);
    const contacts = receiver.received.map((r) => verify(ep.secret, r)).map((b) => [b.type, b.data.contactId]);
    expect(new Set(contacts.map(([, c]) => c))).toEqual(new Set(Array.from({ length: 1000 }, (_, i) => `c${i}`)));
    expect(new Set(contacts.map(([type]) => type))).toEqual(new Set(["contact_created"]));
    expect(count(ctx, `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded' AND attempts = 1`)).toBe(1000);
  });

  test("a restart in the middle of the backlog, its cursor then set back to the start: still one delivery per event, each sent once", async () => {
    const { dataDir, receiver } = setUp();
    let ctx = await open(dataDir);
    const user = await createOrPromoteAdmin(ctx, "restart@example.com", "owner-secret-123");
    const ep = await createEndpoint(ctx, user.id, { name: "crm", url: `${receiver.url}/crm`, events: ["contact_created"] });
    await cursorPerTurn(ctx, () => true);

    const ids = await backlog(ctx, user.id, 1000);
    // The process dies (its database closed, nothing stopped in order) the turn its feed first moved.
    const [atCrash] = (await cursorPerTurn(ctx, (c) => c >= ids[0]!)).slice(-1);
    ctx.db.$client.close();
    const fedBefore = ids.filter((id) => id <= atCrash!).length;
    expect(fedBefore).toBeGreaterThan(0);
    expect(fedBefore).toBeLessThanOrEqual(FEED_PAGE);

    // Back up; a cursor set back to before the backlog (as a restored backup could) makes no second delivery.
    const reopened = await openAppContext(loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, []), () => {});
    reopened.db.$client.query(`UPDATE event_cursors SET last_id = ? WHERE consumer = ?`).run(ids[0]! - 1, CURSOR);
    expect(count(reopened, `SELECT count(*) AS n FROM webhook_deliveries`)).toBe(fedBefore);
    reopened.mailer.close();
    reopened.db.$client.close();
    ctx = await open(dataDir);
    cleanups.unshift(() => ctx.db.$client.close());
    await cursorPerTurn(ctx, (c) => c >= ids.at(-1)!);
    expect(count(ctx, `SELECT count(*) AS n FROM webhook_deliveries`)).toBe(1000);
    expect(count(ctx, `SELECT count(DISTINCT source) AS n FROM webhook_deliveries`)).toBe(1000);
    expect(count(ctx, `SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.deliver'`)).toBe(1000);

    await deliverAll(ctx);
    expect(receiver.received.length).toBe(1000);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1000);
    const contacts = receiver.received.map((r) => verify(ep.secret, r).data.contactId);
    expect(new Set(contacts).size).toBe(1000);
  });
});

describe("HTTP attempts", () => {
  test(`run at most ${ATTEMPTS_PER_ENDPOINT} at once per endpoint and ${ATTEMPTS_IN_FLIGHT} in all; the rest wait unclaimed and go once a slot frees`, async () => {
    const { dataDir, receiver } = setUp();
    const ctx = await open(dataDir);
    cleanups.unshift(() => ctx.db.$client.close());
    // Ten endpoints of five accounts (two each) with ten deliveries each: 100 due at once, more than the 8 per
    // endpoint and the 64 in all, while the accounts' 16 each would allow 80.
    const endpoints = [];
    for (let a = 0; a < 5; a++) {
      const user = await createOrPromoteAdmin(ctx, `slots${a}@example.com`, "owner-secret-123");
      for (let e = 0; e < 2; e++) {
        endpoints.push({ userId: user.id, ...(await createEndpoint(ctx, user.id, { name: `ep${e}`, url: `${receiver.url}/a${a}/ep${e}`, events: ["contact_created"] })) });
      }
    }
    await (await runDueJobs(ctx)).settled; // the feed's safety-net job, due at start: not due again on this clock
    for (const userId of new Set(endpoints.map((ep) => ep.userId))) await deliveriesFor(ctx, userId, 10);
    receiver.hold();
    const runs = [await runDueJobs(ctx), await runDueJobs(ctx), await runDueJobs(ctx)];
    expect(runs.map((r) => r.claimed)).toEqual([64, 0, 0]);
    await waitFor(() => receiver.flying(), (n) => n === 64);
    const leased = count(ctx, `SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.deliver' AND state = 'running'`);
    expect(leased).toBe(64);
    expect(Math.max(...receiver.most.perPath.values())).toBe(8);
    expect(receiver.most.total).toBe(64);

    receiver.release();
    await Promise.all(runs.map((r) => r.settled));
    await deliverAll(ctx);
    expect(receiver.most.total).toBe(64);
    expect(Math.max(...receiver.most.perPath.values())).toBe(8);
    expect(receiver.received.length).toBe(100);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(100);
    expect(count(ctx, `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded' AND attempts = 1`)).toBe(100);
  });

  test(`run at most ${ATTEMPTS_PER_ACCOUNT} at once per account: another account's delivery is attempted at once while one account's slow endpoints are in flight`, async () => {
    const { dataDir, receiver } = setUp();
    const ctx = await open(dataDir);
    cleanups.unshift(() => ctx.db.$client.close());
    const a = await createOrPromoteAdmin(ctx, "slow@example.com", "owner-secret-123");
    const b = await createOrPromoteAdmin(ctx, "other@example.com", "owner-secret-123");
    const slow = [];
    for (let e = 0; e < 8; e++) slow.push(await createEndpoint(ctx, a.id, { name: `ep${e}`, url: `${receiver.url}/a/ep${e}`, events: ["contact_created"] }));
    const other = await createEndpoint(ctx, b.id, { name: "crm", url: `${receiver.url}/b/crm`, events: ["contact_created"] });
    await (await runDueJobs(ctx)).settled; // the feed's safety-net job, due at start: not due again on this clock

    // Account A: 8 endpoints whose receiver does not answer, 20 deliveries each: 160 due.
    receiver.hold((path) => path.startsWith("/a/"));
    await deliveriesFor(ctx, a.id, 20);
    const first = await runDueJobs(ctx);
    expect(first.claimed).toBe(ATTEMPTS_PER_ACCOUNT);
    await waitFor(() => receiver.flying(), (n) => n === ATTEMPTS_PER_ACCOUNT);
    const running = (userId: string) =>
      count(ctx, `SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.deliver' AND state = 'running' AND user_id = '${userId}'`);
    expect(running(a.id)).toBe(ATTEMPTS_PER_ACCOUNT);
    // More of A's waiting jobs than a pass looks at (DUE_BATCH) are of endpoints below their own bound.
    const waitingBelowEndpointBound = count(
      ctx,
      `SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.deliver' AND state = 'pending' AND ref_id NOT IN
         (SELECT ref_id FROM jobs WHERE state = 'running' GROUP BY ref_id HAVING count(*) >= ${ATTEMPTS_PER_ENDPOINT})`,
    );
    expect(waitingBelowEndpointBound).toBeGreaterThan(DUE_BATCH);

    // B's delivery falls due after all of A's: the pass skips A's waiting jobs in its query and attempts it at once.
    ctx.now = () => T0 + 1;
    await deliveriesFor(ctx, b.id, 1);
    const second = await runDueJobs(ctx);
    expect(second.claimed).toBe(1);
    await second.settled;
    expect(receiver.received.map((r) => r.path)).toEqual(["/b/crm"]);
    expect(receiver.flying()).toBe(ATTEMPTS_PER_ACCOUNT);
    expect(running(a.id)).toBe(ATTEMPTS_PER_ACCOUNT);
    expect(count(ctx, `SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.deliver' AND state = 'pending' AND user_id = '${a.id}'`)).toBe(160 - ATTEMPTS_PER_ACCOUNT);

    receiver.release();
    await first.settled;
    await deliverAll(ctx);
    expect(receiver.most.perPrefix.get("a/*")).toBe(ATTEMPTS_PER_ACCOUNT);
    // Each event made one delivery per endpoint: the 16 in flight were two per endpoint.
    expect(Math.max(...receiver.most.perPath.values())).toBeLessThanOrEqual(ATTEMPTS_PER_ENDPOINT);
    expect(receiver.received.length).toBe(161);
    expect(count(ctx, `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded' AND attempts = 1`)).toBe(161);
  });
  test("slots are fair per account: four slow accounts leave room, and a fifth account's delivery is attempted at once", async () => {
    const { dataDir, receiver } = setUp();
    const ctx = await open(dataDir);
    cleanups.unshift(() => ctx.db.$client.close());
    const slow = [];
    for (const name of ["a", "b", "c", "d"]) {
      const user = await createOrPromoteAdmin(ctx, `slow-${name}@example.com`, "owner-secret-123");
      for (let e = 0; e < 2; e++) await createEndpoint(ctx, user.id, { name: `ep${e}`, url: `${receiver.url}/${name}/ep${e}`, events: ["contact_created"] });
      slow.push(user);
    }
    const fifth = await createOrPromoteAdmin(ctx, "fifth@example.com", "owner-secret-123");
    await createEndpoint(ctx, fifth.id, { name: "crm", url: `${receiver.url}/e/crm`, events: ["contact_created"] });
    await (await runDueJobs(ctx)).settled; // the feed's safety-net job, due at start: not due again on this clock

    // Four accounts whose receivers never answer (a fake slow receiver), 40 deliveries each: 160 due, each account
    // able to fill its 16 (two endpoints of 8).
    receiver.hold((path) => !path.startsWith("/e/"));
    for (const user of slow) await deliveriesFor(ctx, user.id, 20);
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await runDueJobs(ctx));
    // Each account may hold total / (accounts running + 1): 16, 16, 16 (64/4), then 12 (64/5) for the fourth.
    await waitFor(() => receiver.flying(), (n) => n === 60);
    expect(runs.map((r) => r.claimed).reduce((x, y) => x + y)).toBe(60);
    expect(["a/*", "b/*", "c/*", "d/*"].map((p) => receiver.most.perPrefix.get(p))).toEqual([16, 16, 16, 12]);

    // The fifth account's event: attempted in the next pass while all 60 slow attempts are still in flight.
    ctx.now = () => T0 + 1;
    await deliveriesFor(ctx, fifth.id, 1);
    const next = await runDueJobs(ctx);
    expect(next.claimed).toBe(1);
    await next.settled;
    expect(receiver.received.map((r) => r.path)).toEqual(["/e/crm"]);
    expect(receiver.flying()).toBe(60);

    receiver.release();
    await Promise.all(runs.map((r) => r.settled));
    await deliverAll(ctx);
    expect(receiver.received.length).toBe(161);
    expect(Math.max(...[...receiver.most.perPrefix.values()])).toBe(16);
    expect(receiver.most.total).toBeLessThanOrEqual(64);
  });
});

