import { holdCheckpoints, type Checkpoints } from "../../db/checkpoints";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { appendEvents, type NewEvent } from "../events/events";
import { clickedMessages } from "../messages/messages";
import { classify, SCANNER_WINDOW_MS, type Verdict } from "../../shared/links/classify";
import type { ShortLink } from "./links";

/**
 * The hits of short links (issue 32 item 2). The redirect only pushes a hit on a list in memory (no write on its
 * path); a flush a moment later classifies the batch (shared/links/classify.ts), writes every hit in one transaction,
 * and appends `link.clicked` for each person's click, which automation and outbound webhooks read after their
 * cursors. A stop flushes what is left.
 */

export type PendingHit = {
  link: ShortLink;
  at: number;
  method: string;
  userAgent: string;
  purpose: string;
  addressClass: string;
};

/** How long hits wait in memory before they are written, and how many start a flush at once. */
const FLUSH_AFTER_MS = 100;
const FLUSH_AT = 500;
/**
 * A flush checks and writes this many hits at a time, each slice a transaction of its own, and lets the event loop
 * answer the redirects that came meanwhile between two slices. In one piece, a flush at 500 clicks/s (a second's
 * hits and the checks of those waiting for their delivery reports) was the redirect's longest hold: 11-17 ms of CPU,
 * 11-117 ms of wall time at load 16, every second (scripts/bench/redirect.ts); slices of 100 took up to 11 ms of CPU.
 */
const FLUSH_SLICE = 25;

/**
 * `fresh`: hits pushed since the last flush (hits left waiting for a delivery report do not start another);
 * `flushing`: the flush under way, which the next one waits for, so hits are written in the order they came;
 * `checkpoints`: the log's checkpoints, held off the connection while hits keep coming (see flushInSlices).
 */
type Buffer = { hits: PendingHit[]; fresh: number; timer: ReturnType<typeof setTimeout> | null; flushing: Promise<unknown>; checkpoints: Checkpoints | null };
const buffers = new WeakMap<AppContext, Buffer>();

function bufferOf(ctx: AppContext): Buffer {
  let b = buffers.get(ctx);
  if (!b) {
    buffers.set(ctx, (b = { hits: [], fresh: 0, timer: null, flushing: Promise.resolve(), checkpoints: null }));
    ctx.onStop.push(async () => void (await flushClicks(ctx, true)));
  }
  return b;
}

/** Keeps a hit to be written by the next flush: a push on an array, on the redirect's path. */
export function recordHit(ctx: AppContext, hit: PendingHit) {
  const b = bufferOf(ctx);
  b.hits.push(hit);
  if (++b.fresh === FLUSH_AT) queueMicrotask(() => void flushClicks(ctx));
  else if (!b.timer) {
    b.timer = setTimeout(() => void flushClicks(ctx), FLUSH_AFTER_MS);
    (b.timer as { unref?: () => void }).unref?.();
  }
}

/**
 * Writes the hits waiting, classified, a slice at a time (FLUSH_SLICE), after any flush under way. Answers how many
 * it wrote. A hit of a message with no delivery report yet waits until the scanner window has passed (a scanner may
 * open the link before the report arrives), unless `all` (a stop) writes everything now.
 */
export async function flushClicks(ctx: AppContext, all = false): Promise<number> {
  const b = buffers.get(ctx);
  if (!b) return 0;
  const mine = b.flushing.then(() => flushInSlices(ctx, b, all));
  b.flushing = mine.catch(() => {});
  return mine;
}

/**
 * The hits in slices, with a turn of the event loop between two. While hits keep coming, the write-ahead log's
 * checkpoints are held off the connection (db/checkpoints.ts) and each flush ends waiting for one on the worker's
 * thread: left to itself, the connection folded the log in the COMMIT that took it past 1,000 pages, every few
 * seconds at 500 clicks/s, 5-8 ms of CPU and a write of the database file inside a slice, the redirects queued behind
 * it (scripts/bench/redirect.ts). The next flush waits for the checkpoint (the log starts again from its beginning
 * only once a checkpoint caught up), not the event loop. A flush that leaves no hit in memory lets them go.
 */
async function flushInSlices(ctx: AppContext, b: Buffer, all: boolean): Promise<number> {
  if (b.timer) clearTimeout(b.timer);
  b.timer = null;
  b.fresh = 0;
  const hits = b.hits.splice(0);
  if (!hits.length) return 0;
  if (!b.checkpoints) {
    // A setting of the connection, taken with no transaction open on it.
    await ready(ctx.db);
    b.checkpoints = holdCheckpoints(ctx.db.$client, ctx.log);
  }
  let written = 0;
  try {
    const { toWrite, waiting } = all ? { toWrite: hits, waiting: [] } : await heldBack(ctx, hits);
    for (let i = 0; i < toWrite.length; i += FLUSH_SLICE) {
      await new Promise((resolve) => setImmediate(resolve));
      written += await writeHits(ctx, toWrite.slice(i, i + FLUSH_SLICE));
    }
    if (waiting.length) {
      b.hits.unshift(...waiting);
      // Checked again in a while: hits that came meanwhile go with them (or sooner, FLUSH_AT of them).
      if (b.timer) clearTimeout(b.timer);
      b.timer = setTimeout(() => void flushClicks(ctx), SCANNER_WINDOW_MS / 5);
      (b.timer as { unref?: () => void }).unref?.();
    }
    await b.checkpoints.checkpoint();
  } finally {
    if (!b.hits.length) {
      b.checkpoints.release();
      b.checkpoints = null;
    }
  }
  return written;
}

/** How many hits' messages one look-up of heldBack reads: a turn of the event loop between two. */
const CHECK_SLICE = 250;

/**
 * The hits of a flush to write now, and those to wait (in the order they came): a hit of a message with no delivery
 * report yet, within the scanner window, waits for it. Their messages read CHECK_SLICE at a time: hits waiting are
 * looked at again by every flush until their report comes or their window passes (each hit of a campaign whose
 * reports lag, 50 times at 500 clicks/s), and were checked a write slice at a time, a transaction's look-up and a
 * turn of the loop for every 25 (2,400 slices of a 20 s run of scripts/bench/redirect.ts, whose messages never report).
 */
async function heldBack(ctx: AppContext, hits: PendingHit[]): Promise<{ toWrite: PendingHit[]; waiting: PendingHit[] }> {
  const now = ctx.now();
  const recent = (h: PendingHit) => h.link.message_id && now - h.at < SCANNER_WINDOW_MS;
  const ids = [...new Set(hits.flatMap((h) => (recent(h) ? [h.link.message_id!] : [])))];
  const delivered = new Set<string>();
  for (let i = 0; i < ids.length; i += CHECK_SLICE) {
    if (i) await new Promise((resolve) => setImmediate(resolve));
    for (const [id, m] of await clickedMessages(ctx, ids.slice(i, i + CHECK_SLICE))) if (m.deliveredAt != null) delivered.add(id);
  }
  const toWrite: PendingHit[] = [];
  const waiting: PendingHit[] = [];
  for (const h of hits) (recent(h) && !delivered.has(h.link.message_id!) ? waiting : toWrite).push(h);
  return { toWrite, waiting };
}

/** One slice of a flush: its hits classified and written in one transaction. */
async function writeHits(ctx: AppContext, hits: PendingHit[]): Promise<number> {
  const db = ctx.db.$client;
  const insert = db.query(
    `INSERT INTO link_clicks (code, short_link_id, user_id, campaign_id, contact_id, url, at, method, user_agent, address_class, verdict, reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const counted = db.query(`SELECT 1 FROM link_clicks WHERE short_link_id = ? AND verdict = 'human' LIMIT 1`);
  // Its callback awaits the messages' record, runs its statements with nothing awaited between them, then appends
  // the people's clicks' events in one call.
  await ctx.withTransaction(async () => {
    // The message's delivery report and its contact now (a merge of contacts moves the message to the one kept).
    const messages = await clickedMessages(ctx, [...new Set(hits.flatMap((h) => (h.link.message_id ? [h.link.message_id] : [])))]);
    const clicked: NewEvent[] = [];
    for (const h of hits) {
      const l = h.link;
      const m = l.message_id ? messages.get(l.message_id) : undefined;
      const contactId = m?.contactId ?? null;
      const { verdict, reason } = classify({
        method: h.method,
        userAgent: h.userAgent,
        purpose: h.purpose,
        addressClass: h.addressClass,
        at: h.at,
        deliveredAt: m?.deliveredAt ?? null,
        counted: !!counted.get(l.id),
      });
      const row = insert.get(l.code, l.id, l.user_id, l.campaign_id, contactId, l.url, h.at, h.method, h.userAgent.slice(0, 500) || null, h.addressClass, verdict, reason) as {
        id: number;
      };
      if (verdict !== "human") continue;
      clicked.push({
        userId: l.user_id,
        type: "link.clicked",
        subject: contactId ? { kind: "contact", id: contactId } : { kind: "message", id: l.message_id ?? l.code },
        payload: { clickId: row.id, code: l.code, url: l.url, campaignId: l.campaign_id, contactId, messageId: l.message_id, clickedAt: new Date(h.at).toISOString() },
      });
    }
    await appendEvents(ctx, clicked);
  });
  return hits.length;
}

export type HitCounts = Record<Verdict, number>;
const VERDICTS: Verdict[] = ["human", "preview", "head", "prefetch", "scanner", "repeat"];
const zero = (): HitCounts => Object.fromEntries(VERDICTS.map((v) => [v, 0])) as HitCounts;

/** People's clicks per campaign, of those given (a click is one recipient's first of one link). */
export async function humanClicksByCampaign(ctx: AppContext, campaignIds: string[]): Promise<Map<string, { clicks: number; clickers: number }>> {
  if (!campaignIds.length) return new Map();
  await ready(ctx.db);
  const rows = ctx.db.$client
    .query(
      `SELECT c.campaign_id AS id, count(*) AS clicks, count(DISTINCT l.message_id) AS clickers
       FROM link_clicks c JOIN short_links l ON l.id = c.short_link_id
       WHERE c.campaign_id IN (SELECT value FROM json_each(?)) AND c.verdict = 'human' GROUP BY c.campaign_id`,
    )
    .all(JSON.stringify(campaignIds)) as { id: string; clicks: number; clickers: number }[];
  return new Map(rows.map((r) => [r.id, { clicks: r.clicks, clickers: r.clickers }]));
}

/** A rate in percent with one decimal, or null with nothing to divide by. */
export const rate = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 1000) / 10 : null);

/**
 * A campaign's click figures: every hit by verdict; people's clicks, and the click rate over `reached` (the
 * messages handed to a provider); each link's people's clicks over the recipients it went to; people's clicks per
 * day (UTC).
 */
export async function campaignClicks(ctx: AppContext, userId: string, campaignId: string, reached: number) {
  const totals = (await humanClicksByCampaign(ctx, [campaignId])).get(campaignId) ?? { clicks: 0, clickers: 0 };
  await ready(ctx.db);
  const db = ctx.db.$client;
  const hits = zero();
  for (const r of db.query(`SELECT verdict, count(*) AS n FROM link_clicks WHERE campaign_id = ? AND user_id = ? GROUP BY verdict`).all(campaignId, userId) as {
    verdict: Verdict;
    n: number;
  }[])
    hits[r.verdict] = r.n;
  const links = (
    db
      .query(
        `SELECT l.url AS url, count(*) AS sentTo,
           (SELECT count(*) FROM link_clicks c WHERE c.campaign_id = ?1 AND c.url = l.url AND c.verdict = 'human') AS humanClicks
         FROM links l JOIN short_links s ON s.link_id = l.id WHERE l.campaign_id = ?1 AND l.user_id = ?2 GROUP BY l.url ORDER BY min(l.id)`,
      )
      .all(campaignId, userId) as { url: string; sentTo: number; humanClicks: number }[]
  ).map((l) => ({ ...l, clickRate: rate(l.humanClicks, Math.min(l.sentTo, reached) || l.sentTo) }));
  const days = db
    .query(
      `SELECT strftime('%Y-%m-%d', at / 1000, 'unixepoch') AS date, count(*) AS humanClicks FROM link_clicks
       WHERE campaign_id = ? AND user_id = ? AND verdict = 'human' GROUP BY date ORDER BY date`,
    )
    .all(campaignId, userId) as { date: string; humanClicks: number }[];
  return { humanClicks: totals.clicks, clickers: totals.clickers, clickRate: rate(totals.clickers, reached), hits, links, days };
}

/**
 * An account's people's clicks in [start, end) and how many of its messages with a short link made in that time
 * were clicked (the dashboards): the click rate is over the texts that carried a link, not every text.
 */
export async function accountClicks(ctx: AppContext, userId: string, start: number, end: number) {
  await ready(ctx.db);
  const db = ctx.db.$client;
  const c = db
    .query(`SELECT count(*) AS humanClicks FROM link_clicks WHERE user_id = ? AND at >= ? AND at < ? AND verdict = 'human'`)
    .get(userId, start, end) as { humanClicks: number };
  const m = db
    .query(
      `SELECT count(DISTINCT s.message_id) AS linked,
         count(DISTINCT CASE WHEN EXISTS (SELECT 1 FROM link_clicks c WHERE c.short_link_id = s.id AND c.verdict = 'human') THEN s.message_id END) AS clicked
       FROM links l JOIN short_links s ON s.link_id = l.id WHERE l.user_id = ? AND s.created_at >= ? AND s.created_at < ?`,
    )
    .get(userId, start, end) as { linked: number; clicked: number };
  return { humanClicks: c.humanClicks, textsWithLinks: m.linked, textsClicked: m.clicked, clickRate: rate(m.clicked, m.linked) };
}

/** Each recipient's people's clicks of a campaign, by message (the campaign's CSV export). */
export async function clicksByMessage(ctx: AppContext, campaignId: string): Promise<Map<string, { clicks: number; firstAt: number }>> {
  await ready(ctx.db);
  const rows = ctx.db.$client
    .query(
      `SELECT l.message_id AS id, count(*) AS clicks, min(c.at) AS firstAt FROM link_clicks c JOIN short_links l ON l.id = c.short_link_id
       WHERE c.campaign_id = ? AND c.verdict = 'human' GROUP BY l.message_id`,
    )
    .all(campaignId) as { id: string; clicks: number; firstAt: number }[];
  return new Map(rows.map((r) => [r.id, { clicks: r.clicks, firstAt: r.firstAt }]));
}

/** A contact merge's clicks (through ctx.contactMessages, with its messages): those of the merged contacts become the primary's. */
export async function moveContactClicks(ctx: AppContext, userId: string, fromIds: string[], toId: string): Promise<void> {
  if (!fromIds.length) return;
  await ready(ctx.db);
  ctx.db.$client
    .query(`UPDATE link_clicks SET contact_id = ? WHERE contact_id IN (SELECT value FROM json_each(?)) AND user_id = ?`)
    .run(toId, JSON.stringify(fromIds), userId);
}
