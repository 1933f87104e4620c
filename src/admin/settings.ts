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

const PRIVATE_NETWORKS = "allowPrivateNetworks";

/**
 * Whether user webhooks may call private, loopback and link-local addresses (n8n on the same network). Off by
 * default. Kept apart from SystemSettings so the retention setting's answer keeps its shape.
 */
export function allowsPrivateNetworks(ctx: AppContext): boolean {
  const row = ctx.db.$client.query(`SELECT value FROM system_settings WHERE key = ?`).get(PRIVATE_NETWORKS) as { value: string } | null;
  return row ? JSON.parse(row.value) === true : false;
}

export function setAllowPrivateNetworks(ctx: AppContext, allow: boolean): { allowPrivateNetworks: boolean } {
  ctx.db.$client
    .query(
      `INSERT INTO system_settings (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    )
    .run(PRIVATE_NETWORKS, JSON.stringify(allow), ctx.now());
  return { allowPrivateNetworks: allow };
}
