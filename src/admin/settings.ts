import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { DEFAULT_RETENTION_DAYS } from "../events/events";

/** Installation-wide settings an administrator changes, stored one row per key in system_settings. */
export type SystemSettings = {
  /** Days the event log keeps an event (webhooks and automation that were down longer miss older ones). */
  eventRetentionDays: number;
};

const DEFAULTS: SystemSettings = { eventRetentionDays: DEFAULT_RETENTION_DAYS };

export const RETENTION_BOUNDS = { minimum: 1, maximum: 3650 };

export async function systemSettings(ctx: AppContext): Promise<SystemSettings> {
  await ready(ctx.db);
  return await settingsNow(ctx);
}

async function settingsNow(ctx: AppContext): Promise<SystemSettings> {
  const rows = await ctx.records.$rows<{ key: string; value: string }>(`SELECT key, value FROM system_settings`);
  const stored = Object.fromEntries(rows.filter((r) => r.key in DEFAULTS).map((r) => [r.key, JSON.parse(r.value)]));
  return { ...DEFAULTS, ...stored };
}

/**
 * Saves the changes given. `beforeShortening` runs (and may refuse) when the event retention would be shortened
 * (older events deleted for good): the route's check that the administrator confirmed, made against the retention
 * read in the transaction that writes, so a change saved meanwhile is what it is compared with.
 */
export async function updateSystemSettings(ctx: AppContext, changes: Partial<SystemSettings>, beforeShortening?: () => Promise<void>): Promise<SystemSettings> {
  return ctx.withTransaction(async () => {
    if (changes.eventRetentionDays !== undefined && changes.eventRetentionDays < (await settingsNow(ctx)).eventRetentionDays) await beforeShortening?.();
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined || !(key in DEFAULTS)) continue;
      await ctx.records.$run(
        `INSERT INTO system_settings (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [key, JSON.stringify(value), ctx.now()],
      );
    }
    return await settingsNow(ctx);
  });
}
