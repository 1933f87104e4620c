import { Cron } from "croner";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { cancelJobs, registerJobHandler, rescheduleJob } from "../jobs/jobs";
import { backupsDir, deleteBackup, listBackups, onDatabaseReplaced, takeBackupLock, writeBackup, writeDurably } from "./backups";

/**
 * Scheduled backups: a preset or a cron expression, and how many scheduled backups to keep (older ones are
 * deleted after each good one; manual, uploaded and automatic backups are never deleted by it). The schedule is
 * kept beside the backups, not in the database, so restoring an older database does not change it.
 */

export const PRESETS = { daily: "0 3 * * *", weekly: "0 3 * * 0", monthly: "0 3 1 * *" } as const;
export type Preset = keyof typeof PRESETS | "custom";
export type BackupSchedule = { enabled: boolean; preset: Preset; cron: string; keep: number };
export const KEEP_BOUNDS = { minimum: 1, maximum: 365 };

const JOB = "backups.scheduled";
const DEFAULT: BackupSchedule = { enabled: false, preset: "daily", cron: PRESETS.daily, keep: 7 };

const schedulePath = (dataDir: string) => join(backupsDir(dataDir), "schedule.json");

export function backupSchedule(dataDir: string): BackupSchedule {
  const path = schedulePath(dataDir);
  return existsSync(path) ? { ...DEFAULT, ...(JSON.parse(readFileSync(path, "utf8")) as Partial<BackupSchedule>) } : { ...DEFAULT };
}

/** The next run after `now`, in the server's time zone. */
function nextRun(cron: string, now: number): number {
  const next = new Cron(cron, { paused: true }).nextRun(new Date(now));
  if (!next) throw badRequest("This cron expression never runs");
  return next.getTime();
}

export function updateBackupSchedule(ctx: AppContext, change: { enabled: boolean; preset: Preset; cron?: string; keep: number }) {
  const cron = change.preset === "custom" ? (change.cron ?? "").trim() : PRESETS[change.preset];
  try {
    nextRun(cron, ctx.now());
  } catch {
    throw badRequest("Please enter a valid cron expression (5 fields: minute hour day month weekday)");
  }
  const schedule: BackupSchedule = { enabled: change.enabled, preset: change.preset, cron, keep: change.keep };
  writeDurably(schedulePath(ctx.config.dataDir), JSON.stringify(schedule, null, 2));
  applySchedule(ctx);
  return scheduleView(ctx);
}

/** The schedule with its next run, for the screen. */
export function scheduleView(ctx: AppContext) {
  const schedule = backupSchedule(ctx.config.dataDir);
  return { ...schedule, nextRunAt: schedule.enabled ? nextRun(schedule.cron, ctx.now()) : null };
}

function applySchedule(ctx: AppContext) {
  const schedule = backupSchedule(ctx.config.dataDir);
  if (schedule.enabled) rescheduleJob(ctx, { kind: JOB, key: JOB, runAt: nextRun(schedule.cron, ctx.now()) });
  else cancelJobs(ctx, { key: JOB });
}

/** Deletes the oldest scheduled backups beyond the number to keep. */
export function applyRetention(dataDir: string, keep: number): string[] {
  const scheduled = listBackups(dataDir).filter((b) => b.reason === "scheduled");
  const doomed = scheduled.slice(keep).map((b) => b.id);
  for (const id of doomed) deleteBackup(dataDir, id);
  return doomed;
}

/** Registers the scheduled backup's job (server start) and keeps it in step with the schedule after a restore. */
export function scheduleBackups(ctx: AppContext) {
  registerJobHandler(
    ctx,
    JOB,
    () => {
      const schedule = backupSchedule(ctx.config.dataDir);
      if (!schedule.enabled) return;
      const release = takeBackupLock(ctx.config.dataDir);
      let id: string;
      try {
        id = writeBackup(ctx.db.$client, ctx.config.dataDir, "scheduled", ctx.now()).id;
      } finally {
        release();
      }
      const deleted = applyRetention(ctx.config.dataDir, schedule.keep);
      return { result: { id, deleted }, runAgainAt: nextRun(schedule.cron, ctx.now()) };
    },
    { firstDelayMs: 60_000, maxAttempts: Infinity },
  );
  applySchedule(ctx);
  onDatabaseReplaced(ctx, () => applySchedule(ctx));
}
