import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/**
 * The keyword_opt_ins records: who subscribed through which keyword, a double opt-in's question waiting for its Y,
 * and whether a subscriber replied since (the keyword's response rate). The inbound flow (src/inbound/keywords.ts)
 * decides; these write.
 */

export type OptInRow = { id: string; keyword_id: string; status: "pending" | "confirmed"; created_at: number };

/** The sender's opt-in through a keyword, if any. */
export async function optInOf(ctx: AppContext, keywordId: string, phone: string): Promise<OptInRow | null> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<OptInRow>(`SELECT id, keyword_id, status, created_at FROM keyword_opt_ins WHERE keyword_id = ? AND phone = ?`, [
    keywordId,
    phone,
  ]);
  return rows[0] ?? null;
}

/** The sender's newest double opt-in asked at or after `since` and still waiting for its Y. */
export async function latestPending(ctx: AppContext, userId: string, phone: string, since: number): Promise<OptInRow | null> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<OptInRow>(
    `SELECT id, keyword_id, status, created_at FROM keyword_opt_ins
     WHERE user_id = ? AND phone = ? AND status = 'pending' AND created_at >= ? ORDER BY created_at DESC LIMIT 1`,
    [userId, phone, since],
  );
  return rows[0] ?? null;
}

/** Withdraws the sender's questions not answered yet. */
export async function withdrawPending(ctx: AppContext, userId: string, phone: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.$run(`DELETE FROM keyword_opt_ins WHERE user_id = ? AND phone = ? AND status = 'pending'`, [userId, phone]);
}

/** A subscriber's first reply since they subscribed; answers whether the sender was one not counted yet. */
export async function markReplied(ctx: AppContext, userId: string, phone: string, at: number): Promise<boolean> {
  await ready(ctx.db);
  const { changes } = await ctx.records.$run(
    `UPDATE keyword_opt_ins SET replied_at = ? WHERE user_id = ? AND phone = ? AND status = 'confirmed' AND replied_at IS NULL`,
    [at, userId, phone],
  );
  return changes > 0;
}

type OptInOf = { userId: string; keywordId: string; phone: string; number: string | null; at: number };

/** A double opt-in's question asked (again): pending from `at`, any earlier confirmation undone. */
export async function markPending(ctx: AppContext, o: OptInOf): Promise<void> {
  await ready(ctx.db);
  await ctx.records.$run(
    `INSERT INTO keyword_opt_ins (id, user_id, keyword_id, phone, number, status, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)
     ON CONFLICT (keyword_id, phone) DO UPDATE SET status = 'pending', number = excluded.number, created_at = excluded.created_at, confirmed_at = NULL`,
    [Bun.randomUUIDv7(), o.userId, o.keywordId, o.phone, o.number, o.at],
  );
}

/** The sender subscribed through the keyword at `at` (no reply counted yet). */
export async function markConfirmed(ctx: AppContext, o: OptInOf): Promise<void> {
  await ready(ctx.db);
  await ctx.records.$run(
    `INSERT INTO keyword_opt_ins (id, user_id, keyword_id, phone, number, status, created_at, confirmed_at) VALUES (?, ?, ?, ?, ?, 'confirmed', ?, ?)
     ON CONFLICT (keyword_id, phone) DO UPDATE SET status = 'confirmed', confirmed_at = excluded.confirmed_at, replied_at = NULL`,
    [Bun.randomUUIDv7(), o.userId, o.keywordId, o.phone, o.number, o.at, o.at],
  );
}
