import type { Database, Statement } from "bun:sqlite";
import type { AppContext } from "../context";
import { ready } from "../../db/transaction";
import { codeKey, codeOf, idOf, newCodeKey, type CodeKey } from "./codes";
import { replaceLinks, shortUrl } from "../../shared/links/text";

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
  insertShort: Statement;
  drawnTaken: Statement;
  deleteShort: Statement;
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
      insertShort: db.prepare(`INSERT INTO short_links (link_id, message_id, created_at, expires_at) VALUES (?, ?, ?, ?)`),
      drawnTaken: db.prepare(`SELECT 1 AS found FROM short_links WHERE code = ?`),
      deleteShort: db.prepare(`DELETE FROM short_links WHERE id = ?`),
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

/** Where a campaign's or another message source's short links come from, and where they go. */
export type LinkSource = {
  userId: string;
  campaignId: string | null;
  /** Whose messages carry the links: `campaign:<id>`, `drip:<id>`, `keyword:<id>`, `automation:<id>`. */
  source: string;
  utm: Utm | null;
  expiresAt: number | null;
};

/** Rewrites one message's text with short links of its own (see shortener). */
export type Shorten = (text: string, messageId: string, made?: number[]) => string;

/**
 * A shortener for the messages of one source written in the transaction open on the context's connection (a
 * campaign's chunk, a drip step's text): each of its texts answered with every link replaced by a new short link of
 * that message. The source's link rows (links) are found or made once per distinct link and kept for the
 * shortener's life; each recipient's short link is one row appended to short_links, its code its id encoded
 * (src/links/codes.ts). `made` collects the ids written, for dropShortLinks.
 */
export async function shortener(ctx: AppContext, domain: string, src: LinkSource): Promise<Shorten> {
  await ready(ctx.db);
  const st = statementsOf(ctx.db.$client);
  const key = writerKey(st);
  // Codes drawn before migration 0074 are kept; an id whose code is one of them is skipped (a chance of about one in
  // a million per drawn code), so a code always names one link.
  const drawn = !!st.anyDrawn.get();
  const now = ctx.now();
  const linkIds = new Map<string, number>();
  const linkOf = (url: string) => {
    let id = linkIds.get(url);
    if (id === undefined) {
      const target = withUtm(absolute(url), src.utm);
      st.insertLink.run(src.userId, src.campaignId, src.source, url, target, now);
      id = (st.findLink.get(src.userId, src.source, url, target) as { id: number }).id;
      linkIds.set(url, id);
    }
    return id;
  };
  return (text, messageId, made) =>
    replaceLinks(text, domain, (url) => {
      const linkId = linkOf(url);
      for (;;) {
        const id = Number(st.insertShort.run(linkId, messageId, now, src.expiresAt).lastInsertRowid);
        const code = codeOf(key, id);
        if (drawn && st.drawnTaken.get(code)) {
          // AUTOINCREMENT: the id is not given again.
          st.deleteShort.run(id);
          continue;
        }
        made?.push(id);
        return shortUrl(domain, code);
      }
    });
}

/** One message's text with its links shortened (a drip step, a keyword's reply, an automation's text). */
export async function shortenText(ctx: AppContext, domain: string, text: string, src: LinkSource & { messageId: string }): Promise<string> {
  return (await shortener(ctx, domain, src))(text, src.messageId);
}

/** When links made now with this many days' life expire. */
export const expiryAt = (now: number, days: number) => now + days * DAY;

/** Removes short links of messages that were not written after all (a repeat the outbox skipped), by their ids. */
export async function dropShortLinks(ctx: AppContext, ids: number[]) {
  if (!ids.length) return;
  await ready(ctx.db);
  ctx.db.$client.query(`DELETE FROM short_links WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(ids));
}

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
 * before migration 0074 by its index. The redirect's hot path: answered at once, in the request's own turn, when
 * no transaction is open on the connection (always but while another caller's async transaction awaits); else, as
 * an async record, once that transaction has ended (`ready`), so the key it keeps is one that committed. Awaiting
 * on every click doubled the redirect bench's p95 (8-11 ms answered at once, 17-29 ms awaited, alternated at load
 * 12-14).
 */
export function findShortLink(ctx: AppContext, code: string): ShortLink | null | Promise<ShortLink | null> {
  const wait = ctx.db.$client.inTransaction ? ready(ctx.db) : undefined;
  return wait ? wait.then(() => lookUp(ctx, code)) : lookUp(ctx, code);
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
