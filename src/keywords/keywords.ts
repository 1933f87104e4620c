import { and, asc, eq, sql } from "drizzle-orm";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { keywords } from "../../db/schema";
import { ready } from "../../db/transaction";
import { normalizeTags } from "../contacts/contacts";
import type { AppContext } from "../context";
import { badRequest, conflict, notFound } from "../http/errors";
import { numbersWithAccounts } from "../phone-numbers/numbers";
import { businessNameOf, findUserById } from "../users/queries";
import { checkKeyword, classify, type MatchMode } from "./matcher";

export type KeywordRow = typeof keywords.$inferSelect;

export type KeywordInput = {
  keyword?: string;
  shortCode?: string | null;
  autoReply?: string;
  alreadyReply?: string | null;
  tags?: string[];
  matchMode?: MatchMode;
  numbers?: string[];
  doubleOptIn?: boolean;
  shortenLinks?: boolean;
};

type Stats = { optIns: number; replied: number; pending: number };
const NO_STATS: Stats = { optIns: 0, replied: 0, pending: 0 };

/** Replies over opt-ins, a whole percent; null (a dash on the card) before the first opt-in. */
const rate = (s: Stats) => (s.optIns ? Math.round((100 * s.replied) / s.optIns) : null);

export function keywordView(k: KeywordRow, s: Stats = NO_STATS) {
  return {
    id: k.id,
    userId: k.userId,
    keyword: k.keyword,
    shortCode: k.shortCode,
    autoReply: k.autoReply,
    alreadyReply: k.alreadyReply,
    tags: k.tags,
    matchMode: k.matchMode,
    numbers: k.numbers,
    doubleOptIn: k.doubleOptIn,
    shortenLinks: k.shortenLinks,
    isActive: k.isActive,
    optInCount: s.optIns,
    pendingCount: s.pending,
    responseRate: rate(s),
    createdAt: k.createdAt.toISOString(),
  };
}
export type KeywordView = ReturnType<typeof keywordView>;

// count(CASE ...) rather than SQLite's sum of a comparison: PostgreSQL sums no booleans, and its count is a bigint
// read back as a number (a sum would be a numeric). Aliases quoted: PostgreSQL folds unquoted names to lower case.
async function statsByKeyword(ctx: AppContext, userId: string): Promise<Map<string, Stats>> {
  const rows = await ctx.records.$rows<{ id: string } & Stats>(
    `SELECT keyword_id AS id, count(CASE WHEN status = 'confirmed' THEN 1 END) AS "optIns",
       count(CASE WHEN status = 'confirmed' AND replied_at IS NOT NULL THEN 1 END) AS replied,
       count(CASE WHEN status = 'pending' THEN 1 END) AS pending
     FROM keyword_opt_ins WHERE user_id = ? GROUP BY keyword_id`,
    [userId],
  );
  return new Map(rows.map((r) => [r.id, { optIns: r.optIns, replied: r.replied, pending: r.pending }]));
}

/** The account's keywords with their opt-ins and response rates, and the page's totals. */
export async function listKeywords(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  const rows = await ctx.records.select().from(keywords).where(eq(keywords.userId, userId)).orderBy(asc(keywords.createdAt), asc(keywords.id)).all();
  const stats = await statsByKeyword(ctx, userId);
  const all = [...stats.values()].reduce((a, s) => ({ optIns: a.optIns + s.optIns, replied: a.replied + s.replied, pending: a.pending + s.pending }), NO_STATS);
  return {
    data: rows.map((k) => keywordView(k, stats.get(k.id))),
    totals: { keywords: rows.length, active: rows.filter((k) => k.isActive).length, optIns: all.optIns, responseRate: rate(all) },
  };
}

/** One of the account's keywords, switched off or not. */
export async function findKeyword(ctx: AppContext, userId: string, id: string): Promise<KeywordRow | undefined> {
  await ready(ctx.db);
  return keywordOf(ctx, userId, id);
}

/** findKeyword in the caller's turn on the connection (this file's transactions). */
function keywordOf(ctx: AppContext, userId: string, id: string): Promise<KeywordRow | undefined> {
  return ctx.records.select().from(keywords).where(and(eq(keywords.userId, userId), eq(keywords.id, id))).get();
}

async function getKeyword(ctx: AppContext, userId: string, id: string): Promise<KeywordRow> {
  const row = await keywordOf(ctx, userId, id);
  if (!row) throw notFound("Keyword not found");
  return row;
}

async function viewOf(ctx: AppContext, userId: string, id: string) {
  return keywordView(await getKeyword(ctx, userId, id), (await statsByKeyword(ctx, userId)).get(id));
}

/** The numbers a keyword listens on, each one of the account's own (E.164 as stored); empty means all. */
async function checkNumbers(ctx: AppContext, userId: string, input: string[]): Promise<string[]> {
  const own = new Set((await numbersWithAccounts(ctx, userId)).map((j) => j.n.phoneNumber));
  const numbers = [...new Set(input.map((n) => n.replace(/[\s().\-]/g, "")))];
  for (const n of numbers) if (!own.has(n)) throw badRequest(`${n} is not one of your phone numbers. Choose numbers from Phone Settings.`);
  return numbers;
}

/** One keyword per account and sender number: another keyword with the same word may not listen on a shared number. */
async function assertUnique(ctx: AppContext, userId: string, matchKey: string, numbers: string[], exceptId?: string) {
  const same = await ctx.records.select().from(keywords).where(and(eq(keywords.userId, userId), eq(keywords.matchKey, matchKey))).all();
  for (const k of same) {
    if (k.id === exceptId) continue;
    // Either listening on all numbers overlaps everything; else the first number both listen on.
    const overlap = !k.numbers.length || !numbers.length ? k.numbers.join(", ") || "all your numbers" : k.numbers.find((n) => numbers.includes(n));
    if (overlap) throw conflict(`The keyword "${k.keyword}" already exists on ${overlap}. Edit it, or choose other numbers.`);
  }
}

/** Checked in the transaction that writes them (its callback awaits the numbers' record, then runs the rest). */
async function checkedFields(ctx: AppContext, userId: string, input: Required<Pick<KeywordInput, "keyword" | "autoReply">> & KeywordInput, exceptId?: string) {
  const checked = checkKeyword(input.keyword);
  if ("error" in checked) throw badRequest(checked.error);
  const autoReply = input.autoReply.trim();
  if (!autoReply) throw badRequest("Keyword and auto-reply are required");
  const numbers = await checkNumbers(ctx, userId, input.numbers ?? []);
  await assertUnique(ctx, userId, checked.matchKey, numbers, exceptId);
  return {
    keyword: checked.matchKey.toUpperCase(),
    matchKey: checked.matchKey,
    matchMode: input.matchMode ?? "whole",
    shortCode: input.shortCode?.trim() || null,
    autoReply,
    alreadyReply: input.alreadyReply?.trim() || null,
    tags: normalizeTags(input.tags),
    numbers,
    doubleOptIn: input.doubleOptIn ?? false,
    shortenLinks: input.shortenLinks ?? true,
  };
}

/**
 * The word's uniqueness per sender number is checked in the transaction that writes it (no constraint can say
 * "overlapping numbers"): two creates of one word at once cannot both pass.
 */
export async function createKeyword(ctx: AppContext, userId: string, input: KeywordInput) {
  const keyword = input.keyword;
  const autoReply = input.autoReply;
  if (!keyword?.trim() || !autoReply?.trim()) throw badRequest("Keyword and auto-reply are required");
  return ctx.withTransaction(async () => {
    const fields = await checkedFields(ctx, userId, { ...input, keyword, autoReply });
    const at = new Date(ctx.now());
    const row = await ctx.records.insert(keywords).values({ id: Bun.randomUUIDv7(), userId, ...fields, createdAt: at, updatedAt: at }).returning().get();
    return keywordView(row);
  });
}

/** Fields left out keep their values; a keyword and auto-reply sent empty are refused like at creation. */
export async function updateKeyword(ctx: AppContext, userId: string, id: string, input: KeywordInput) {
  return ctx.withTransaction(async () => keywordUpdated(ctx, userId, id, input));
}

async function keywordUpdated(ctx: AppContext, userId: string, id: string, input: KeywordInput) {
  const k = await getKeyword(ctx, userId, id);
  const fields = await checkedFields(
    ctx,
    userId,
    {
      keyword: input.keyword ?? k.keyword,
      autoReply: input.autoReply ?? k.autoReply,
      shortCode: input.shortCode === undefined ? k.shortCode : input.shortCode,
      alreadyReply: input.alreadyReply === undefined ? k.alreadyReply : input.alreadyReply,
      tags: input.tags ?? k.tags,
      matchMode: input.matchMode ?? k.matchMode,
      numbers: input.numbers ?? k.numbers,
      doubleOptIn: input.doubleOptIn ?? k.doubleOptIn,
      shortenLinks: input.shortenLinks ?? k.shortenLinks,
    },
    id,
  );
  await ctx.records.update(keywords).set({ ...fields, updatedAt: new Date(ctx.now()) }).where(eq(keywords.id, k.id)).run();
  return viewOf(ctx, userId, id);
}

export async function toggleKeyword(ctx: AppContext, userId: string, id: string, isActive: boolean) {
  return ctx.withTransaction(async () => {
    const k = await getKeyword(ctx, userId, id);
    await ctx.records.update(keywords).set({ isActive, updatedAt: new Date(ctx.now()) }).where(eq(keywords.id, k.id)).run();
    return viewOf(ctx, userId, id);
  });
}

// Prepared once: every inbound message is matched against its account's keywords.
const ofUser = (activeOnly: boolean) =>
  preparedPerDb((db: RecordsDb) => {
    const userId = eq(keywords.userId, sql.placeholder("userId"));
    return db
      .select()
      .from(keywords)
      .where(activeOnly ? and(userId, eq(keywords.isActive, true)) : userId)
      .orderBy(asc(keywords.createdAt), asc(keywords.id))
      .prepare();
  });
const activeOfUser = ofUser(true);
const allOfUser = ofUser(false);

/** The keywords that listen on a number (empty: the provider did not say which, so only those on all numbers). */
export async function keywordsOn(ctx: AppContext, userId: string, number: string, opts: { activeOnly: boolean }): Promise<KeywordRow[]> {
  await ready(ctx.db);
  return listeningOn(ctx, userId, number, opts);
}

/** keywordsOn in the caller's turn on the connection (testKeyword's reads, after its ready). */
async function listeningOn(ctx: AppContext, userId: string, number: string, opts: { activeOnly: boolean }): Promise<KeywordRow[]> {
  const rows = await (opts.activeOnly ? activeOfUser : allOfUser)(ctx.records).all({ userId });
  const compact = number.replace(/[\s().\-]/g, "");
  return rows.filter((k) => !k.numbers.length || (!!compact && k.numbers.includes(compact)));
}

/** The business name the account's replies sign with. */
export async function businessOf(ctx: AppContext, userId: string): Promise<string> {
  const owner = await findUserById(ctx, userId);
  return owner ? businessNameOf(owner) : "Your Business";
}

/** The double opt-in's question, sent before anyone is subscribed. */
export function confirmRequestText(business: string, k: Pick<KeywordRow, "keyword">) {
  return `${business}: Reply Y within 24 hours to confirm you want texts from us (keyword ${k.keyword}). Msg & data rates may apply. Reply STOP to cancel.`;
}

const RULES = {
  "opt-out": "Opt-out: the sender is unsubscribed and gets one confirmation. Opt-out words always win over keywords.",
  "opt-in": "Opt-in: the sender is subscribed again and gets one confirmation. Opt-in words always win over keywords.",
  help: "Help: the sender gets the help reply. Help words always win over keywords.",
  none: "No rule fires: the message is recorded in the inbox and nothing is sent.",
} as const;

/**
 * What happens if someone texts `text` to `number` (empty: a provider that does not name it): the rule that fires
 * and the reply a new subscriber would get, without sending or recording anything.
 */
export async function testKeyword(ctx: AppContext, userId: string, input: { number: string; text: string }) {
  await ready(ctx.db);
  const active = await listeningOn(ctx, userId, input.number, { activeOnly: true });
  const m = classify(input.text, active);
  if (m.rule === "keyword") {
    const k = m.keyword;
    const reply = k.doubleOptIn ? confirmRequestText(await businessOf(ctx, userId), k) : k.autoReply;
    const how = k.doubleOptIn
      ? `Keyword ${k.keyword}: the sender is asked to reply Y to confirm; once confirmed they are subscribed, tagged and get the auto-reply.`
      : `Keyword ${k.keyword}: the sender is subscribed${k.tags.length ? `, tagged ${k.tags.join(", ")},` : ""} and gets the auto-reply once.`;
    return { rule: "keyword" as const, keyword: { id: k.id, keyword: k.keyword }, reply, description: how };
  }
  if (m.rule === "none") {
    // A keyword that would match but is switched off is the likeliest surprise: say so.
    const off = classify(input.text, (await listeningOn(ctx, userId, input.number, { activeOnly: false })).filter((k) => !k.isActive));
    const description = off.rule === "keyword" ? `${RULES.none} (Keyword ${off.keyword.keyword} would match, but it is switched off.)` : RULES.none;
    return { rule: "none" as const, keyword: null, reply: null, description };
  }
  return { rule: m.rule, keyword: null, reply: null, description: RULES[m.rule] };
}
