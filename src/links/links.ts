import type { Database, Statement } from "bun:sqlite";
import type { AppContext } from "../context";
import { CODE_ALPHABET, CODE_LENGTH, replaceLinks, shortUrl } from "./text";

/**
 * Short links (issue 32 item 1): one per recipient and link of a message, made when the outbox renders the text,
 * so a click names its contact, message and campaign. The redirect (src/links/redirect.ts) reads one row by its
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

function drawCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(CODE_LENGTH * 2));
  let code = "";
  for (const b of bytes) {
    // 248 = 4 * 62: higher bytes are dropped so every character is equally likely.
    if (b < 248) code += CODE_ALPHABET[b % 62];
    if (code.length === CODE_LENGTH) return code;
  }
  return code + drawCode().slice(code.length);
}

const inserts = new WeakMap<Database, Statement>();

export type LinkOwner = {
  userId: string;
  campaignId: string | null;
  messageId: string;
  contactId: string | null;
  phone: string;
  utm: Utm | null;
  expiresAt: number | null;
};

/**
 * The text with each of its links replaced by a new short link of this message, the rows written on the context's
 * connection (call it in the transaction that writes the message). A drawn code already taken is drawn again.
 * `made` collects the codes written.
 */
export function shortenText(ctx: AppContext, domain: string, text: string, owner: LinkOwner, made?: string[]): string {
  const db = ctx.db.$client;
  let insert = inserts.get(db);
  if (!insert) {
    insert = db.prepare(
      `INSERT INTO short_links (code, user_id, campaign_id, message_id, contact_id, phone, url, target, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    inserts.set(db, insert);
  }
  const now = ctx.now();
  return replaceLinks(text, domain, (url) => {
    const target = withUtm(absolute(url), owner.utm);
    for (;;) {
      const code = drawCode();
      const res = insert!.run(code, owner.userId, owner.campaignId, owner.messageId, owner.contactId, owner.phone, url, target, owner.expiresAt, now);
      if (res.changes) {
        made?.push(code);
        return shortUrl(domain, code);
      }
    }
  });
}

/**
 * Short links made before their recipient was a contact (a keyword's welcome to a new number), by the codes
 * shortenText made, given the contact they were sent to, so a click counts for them in segments and automation.
 * By code, the table's key.
 */
export function giveLinksToContact(ctx: AppContext, codes: string[], contactId: string) {
  if (!codes.length) return;
  ctx.db.$client.query(`UPDATE short_links SET contact_id = ? WHERE code IN (SELECT value FROM json_each(?))`).run(contactId, JSON.stringify(codes));
}

/** When links made now with this many days' life expire. */
export const expiryAt = (now: number, days: number) => now + days * DAY;

/** Removes the short links of messages that were not written after all (a repeat the outbox skipped), by message_id's index. */
export function dropLinksOfMessages(ctx: AppContext, messageIds: string[]) {
  if (!messageIds.length) return;
  ctx.db.$client.query(`DELETE FROM short_links WHERE message_id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(messageIds));
}

export type ShortLink = {
  code: string;
  user_id: string;
  campaign_id: string | null;
  message_id: string | null;
  contact_id: string | null;
  url: string;
  target: string;
  expires_at: number | null;
};

const lookups = new WeakMap<Database, Statement>();

/** One short link by its code: one primary-key lookup on a statement prepared once per connection. */
export function findShortLink(ctx: AppContext, code: string): ShortLink | null {
  const db = ctx.db.$client;
  let q = lookups.get(db);
  if (!q) {
    q = db.prepare(`SELECT code, user_id, campaign_id, message_id, contact_id, url, target, expires_at FROM short_links WHERE code = ?`);
    lookups.set(db, q);
  }
  return (q.get(code) as ShortLink | null) ?? null;
}
