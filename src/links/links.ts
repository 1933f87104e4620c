import type { Database, Statement } from "bun:sqlite";
import type { AppContext } from "../context";
import { ready } from "../../db/transaction";
import { codeKey, codeOf, idOf, newCodeKey, type CodeKey } from "./codes";
import { findLinks, replaceLinks, shortUrl } from "../../shared/links/text";

/**
 * Short links (issue 32 item 1): one per recipient and link of a message, made when the outbox renders the text,
 * so a click names its message (and so its contact) and campaign. A campaign's or other source's distinct links
 * are rows of `links`; each recipient's short link a slim row of `short_links` (migration 0074) whose code is its
 * id encoded (src/links/codes.ts). The redirect (src/links/redirect.ts) decodes the code and reads one row by its
 * primary key.
 */

const DAY = 86_400_000;
/** Short links of texts that are not a campaign's (drips, keyword replies) answer this long. */
export const DEFAULT_EXPIRY_DAYS = 90;
export const MAX_EXPIRY_DAYS = 3650;

export type Utm = { source: string | null; medium: string | null; campaign: string | null };

/** The origin an account's short links go out on: its own link domain, else the installation's. */
export function linkDomainOf(ctx: AppContext, user: { linkDomain: string | null }): string {
  return user.linkDomain || ctx.config.linkDomain;
}

/** The link with the UTM parameters chosen (a parameter the link already has is kept as written). */
export function withUtm(url: string, utm: Utm | null): string {
  if (!utm || (!utm.source && !utm.medium && !utm.campaign)) return url;
  let u: URL;
  try {
    u = new URL(/^https?:\/\//i.test(url) ? url : `https://${url}`);
  } catch {
    return url;
  }
  const set = (k: string, v: string | null) => v && !u.searchParams.has(k) && u.searchParams.set(k, v);
  set("utm_source", utm.source);
  set("utm_medium", utm.medium);
  set("utm_campaign", utm.campaign);
  return u.toString();
}

/** Where a link written without a scheme (www.example.com) goes. */
const absolute = (url: string) => (/^https?:\/\//i.test(url) ? url : `https://${url}`);

type Statements = {
  readKey: Statement;
  makeKey: Statement;
  anyDrawn: Statement;
  insertLink: Statement;
  findLink: Statement;
  reserve: Statement;
  startCounter: Statement;
  drawnTaken: Statement;
  /** Multi-row inserts of 1, 2, 4 ... 128 short links (inserts[i] of 2^i rows), prepared as first needed. */
  inserts: Statement[];
};
const statements = new WeakMap<Database, Statements>();

/** The writer's statements, prepared once per connection. */
function statementsOf(db: Database): Statements {
  let st = statements.get(db);
  if (!st) {
    st = {
      readKey: db.prepare(`SELECT key FROM short_link_keys WHERE id = 1`),
      makeKey: db.prepare(`INSERT INTO short_link_keys (id, key) VALUES (1, ?) ON CONFLICT DO NOTHING`),
      anyDrawn: db.prepare(`SELECT 1 AS found FROM short_links WHERE code IS NOT NULL LIMIT 1`),
      insertLink: db.prepare(`INSERT INTO links (user_id, campaign_id, source, url, target, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
      findLink: db.prepare(`SELECT id FROM links WHERE user_id = ? AND source = ? AND url = ? AND target = ?`),
      // short_links' AUTOINCREMENT counter moved on by `?` in one statement: the ids up to the seq answered are this
      // caller's (never given again, as AUTOINCREMENT's own are not), whatever another process reserves or inserts.
      reserve: db.prepare(
        `UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(id), 0) FROM short_links)) + ? WHERE name = 'short_links' RETURNING seq`,
      ),
      // The counter is made by the table's first insert; one that never had a row has none yet.
      startCounter: db.prepare(
        `INSERT INTO sqlite_sequence (name, seq) SELECT 'short_links', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'short_links')`,
      ),
      drawnTaken: db.prepare(`SELECT 1 AS found FROM short_links WHERE code = ?`),
      inserts: [],
    };
    statements.set(db, st);
  }
  return st;
}

const parsedKeys = new Map<string, CodeKey>();
const parsed = (hex: string) => {
  let k = parsedKeys.get(hex);
  if (!k) parsedKeys.set(hex, (k = codeKey(hex)));
  return k;
};

/**
 * The installation's code key, made with its first short link, in the caller's transaction: read afresh by every
 * writer (once per chunk), never kept from a transaction that might still roll back.
 */
function writerKey(st: Statements): CodeKey {
  let row = st.readKey.get() as { key: string } | null;
  if (!row) {
    st.makeKey.run(newCodeKey());
    row = st.readKey.get() as { key: string };
  }
  return parsed(row.key);
}

/** The next `count` ids of short_links, reserved: answers the first. */
function reserveIds(st: Statements, count: number): number {
  let row = st.reserve.get(count) as { seq: number } | null;
  if (!row) {
    st.startCounter.run();
    row = st.reserve.get(count) as { seq: number };
  }
  return row.seq - count + 1;
}

/**
 * Inserts short links (`rows` flat: id, link id, message id of each) made at `now`, in statements of 128, 64 ... 1
 * rows: a chunk's in a few statements, each prepared once, rather than one statement a row.
 */
function insertShortLinks(db: Database, st: Statements, rows: (number | string)[], now: number, expiresAt: number | null) {
  let at = 0;
  for (let i = 7; i >= 0; i--) {
    const size = 3 << i;
    while (rows.length - at >= size) {
      const insert = (st.inserts[i] ??= db.prepare(
        `INSERT INTO short_links (id, link_id, message_id, created_at, expires_at) VALUES ${Array.from({ length: 1 << i }, (_, r) => `(?${3 * r + 3}, ?${3 * r + 4}, ?${3 * r + 5}, ?1, ?2)`).join(", ")}`,
      ));
      insert.run(now, expiresAt, ...rows.slice(at, at + size));
      at += size;
    }
  }
}

/** Where a campaign's or another message source's short links come from, and where they go. */
export type LinkSource = {
  userId: string;
  campaignId: string | null;
  /** Whose messages carry the links: `campaign:<id>`, `drip:<id>`, `keyword:<id>`, `automation:<id>`. */
  source: string;
  utm: Utm | null;
  expiresAt: number | null;
};

/** A source's short links for the messages of one transaction (see shortener). */
export type Shortener = {
  /** The text with each link replaced by a new short link of this message (its row kept for `write`). */
  shorten(text: string, messageId: string): string;
  /**
   * Writes the short links made so far, of the messages in `kept` only when given (a message the outbox did not
   * write after all keeps none), in the shortener's transaction.
   */
  write(kept?: ReadonlySet<string>): Promise<void>;
};

/**
 * A shortener for the messages of one source written in the transaction open on the context's connection (a
 * campaign's chunk, a drip step's text): each of its texts answered with every link replaced by a new short link of
 * that message. The source's link rows (links) are found or made once per distinct link and kept for the
 * shortener's life; each recipient's short link is a row of short_links whose code is its id encoded
 * (src/links/codes.ts). The ids are reserved from the table's counter `expected` at a time (ids reserved and not
 * used are never given: codes are plenty) and the rows written together by `write`, a few multi-row statements a
 * chunk: made row by row as the texts were, they cost a statement each.
 */
export async function shortener(ctx: AppContext, domain: string, src: LinkSource, expected = 1): Promise<Shortener> {
  await ready(ctx.db);
  const db = ctx.db.$client;
  const st = statementsOf(db);
  const key = writerKey(st);
  // Codes drawn before migration 0074 are kept; an id whose code is one of them is skipped (a chance of about one in
  // a million per drawn code), so a code always names one link.
  const drawn = !!st.anyDrawn.get();
  const now = ctx.now();
  const prefix = shortUrl(domain, "");
  const block = Math.max(1, expected);
  let next = 0;
  let last = -1;
  let rows: (number | string)[] = [];
  const linkIds = new Map<string, number>();
  const linkOf = (url: string) => {
    let id = linkIds.get(url);
    if (id === undefined) {
      const target = withUtm(absolute(url), src.utm);
      let row = st.findLink.get(src.userId, src.source, url, target) as { id: number } | null;
      if (!row) {
        st.insertLink.run(src.userId, src.campaignId, src.source, url, target, now);
        row = st.findLink.get(src.userId, src.source, url, target) as { id: number };
      }
      linkIds.set(url, (id = row.id));
    }
    return id;
  };
  let messageId = "";
  const replace = (url: string) => {
    const linkId = linkOf(url);
    for (;;) {
      if (next > last) {
        next = reserveIds(st, block);
        last = next + block - 1;
      }
      const id = next++;
      const code = codeOf(key, id);
      if (drawn && st.drawnTaken.get(code)) continue;
      rows.push(id, linkId, messageId);
      return prefix + code;
    }
  };
  return {
    shorten: (text, id) => {
      messageId = id;
      return replaceLinks(text, domain, replace);
    },
    write: async (kept) => {
      await ready(ctx.db);
      let out = rows;
      if (kept) {
        out = [];
        for (let i = 0; i < rows.length; i += 3) if (kept.has(rows[i + 2] as string)) out.push(rows[i]!, rows[i + 1]!, rows[i + 2]!);
      }
      rows = [];
      insertShortLinks(db, st, out, now, src.expiresAt);
    },
  };
}

/** One message's text with its links shortened (a drip step, a keyword's reply, an automation's text). */
export async function shortenText(ctx: AppContext, domain: string, text: string, src: LinkSource & { messageId: string }): Promise<string> {
  const s = await shortener(ctx, domain, src, findLinks(text).length);
  const out = s.shorten(text, src.messageId);
  await s.write();
  return out;
}

/** When links made now with this many days' life expire. */
export const expiryAt = (now: number, days: number) => now + days * DAY;

export type ShortLink = {
  /** short_links.id */
  id: number;
  code: string;
  user_id: string;
  campaign_id: string | null;
  message_id: string | null;
  url: string;
  target: string;
  expires_at: number | null;
};

const COLUMNS = `s.id, l.user_id, l.campaign_id, s.message_id, l.url, l.target, s.expires_at`;
type Reader = { key: CodeKey | null; byId: Statement; byCode: Statement; readKey: Statement };
const readers = new WeakMap<Database, Reader>();

/**
 * One short link by its code: its id decoded and one primary-key lookup (joined to its link's row), or a code drawn
 * before migration 0074 by its index. The redirect's hot path, an async record as any: after `ready`, so the key it
 * keeps is one that committed. Measured against the look-up answered at once (both forms in one process, a click a
 * turn, interleaved, load 23-24 on 2 cores): 1 us more from a click's start to its answer at p50, 2 at p95, and 2 us
 * more CPU a click, ready's (its hold on transactions until the next turn: a promise and a setImmediate a turn); the
 * awaits alone under 0.5 us. scripts/bench/redirect.ts, alternated, could not tell the two apart at that load.
 */
export async function findShortLink(ctx: AppContext, code: string): Promise<ShortLink | null> {
  await ready(ctx.db);
  return lookUp(ctx, code);
}

function lookUp(ctx: AppContext, code: string): ShortLink | null {
  const db = ctx.db.$client;
  let r = readers.get(db);
  if (!r) {
    r = {
      key: null,
      byId: db.prepare(`SELECT ${COLUMNS} FROM short_links s JOIN links l ON l.id = s.link_id WHERE s.id = ? AND s.code IS NULL`),
      byCode: db.prepare(`SELECT ${COLUMNS} FROM short_links s JOIN links l ON l.id = s.link_id WHERE s.code = ?`),
      readKey: db.prepare(`SELECT key FROM short_link_keys WHERE id = 1`),
    };
    readers.set(db, r);
  }
  let key = r.key;
  if (!key) {
    const row = r.readKey.get() as { key: string } | null;
    if (row) key = parsed(row.key);
    // Kept only when read outside any transaction: one made by a transaction still open might roll back.
    if (!db.inTransaction) r.key = key;
  }
  const id = key ? idOf(key, code) : null;
  const row = ((id !== null ? r.byId.get(id) : null) ?? r.byCode.get(code)) as Omit<ShortLink, "code"> | null;
  return row ? { ...row, code } : null;
}

/** The codes of these short links (those made since migration 0074 by their id, those before as drawn). */
export async function codesOf(ctx: AppContext, ids: number[]): Promise<Map<number, string>> {
  await ready(ctx.db);
  const db = ctx.db.$client;
  const key = db.query(`SELECT key FROM short_link_keys WHERE id = 1`).get() as { key: string } | null;
  const rows = db.query(`SELECT id, code FROM short_links WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as { id: number; code: string | null }[];
  return new Map(rows.map((r) => [r.id, r.code ?? codeOf(parsed(key!.key), r.id)]));
}
