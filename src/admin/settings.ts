import type { AppContext } from "../context";
import { DEFAULT_RETENTION_DAYS } from "../events/events";

/** Installation-wide settings an administrator changes, stored one row per key in system_settings. */
export type SystemSettings = {
  /** Days the event log keeps an event (webhooks and automation that were down longer miss older ones). */
  eventRetentionDays: number;
};

const DEFAULTS: SystemSettings = { eventRetentionDays: DEFAULT_RETENTION_DAYS };

export const RETENTION_BOUNDS = { minimum: 1, maximum: 3650 };

export function systemSettings(ctx: AppContext): SystemSettings {
  const rows = ctx.db.$client.query(`SELECT key, value FROM system_settings`).all() as { key: string; value: string }[];
  const stored = Object.fromEntries(rows.filter((r) => r.key in DEFAULTS).map((r) => [r.key, JSON.parse(r.value)]));
  return { ...DEFAULTS, ...stored };
}

export function updateSystemSettings(ctx: AppContext, changes: Partial<SystemSettings>): SystemSettings {
  const upsert = ctx.db.$client.query(
    `INSERT INTO system_settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  ctx.db.$client.transaction(() => {
    for (const [key, value] of Object.entries(changes)) if (value !== undefined && key in DEFAULTS) upsert.run(key, JSON.stringify(value), ctx.now());
  })();
  return systemSettings(ctx);
}
