import { Cron } from "croner";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { cancelJobs, enqueueJob, registerJobHandler, rescheduleJob } from "../jobs/jobs";
import { backUp, backupsDir, deleteBackup, drillBackup, listBackups, sweepStaleStaging, type BackupInfo, onDatabaseReplaced, waitForBackupLock, writeDurably } from "./backups";
import { copyToRemote } from "./remote";

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
const DRILL_JOB = "backups.drill";
/** The restore drill runs daily, two hours after the default backup time. */
export const DRILL_CRON = "0 5 * * *";
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

/**
 * Saves the schedule and moves its job. Two saves at once move the job in the order they wrote the file (the jobs'
 * records are let go in the order they asked for the connection), so the job follows the schedule saved last.
 */
export async function updateBackupSchedule(ctx: AppContext, change: { enabled: boolean; preset: Preset; cron?: string; keep: number }) {
  const cron = change.preset === "custom" ? (change.cron ?? "").trim() : PRESETS[change.preset];
  try {
    nextRun(cron, ctx.now());
  } catch {
    throw badRequest("Please enter a valid cron expression (5 fields: minute hour day month weekday)");
  }
  const schedule: BackupSchedule = { enabled: change.enabled, preset: change.preset, cron, keep: change.keep };
  mkdirSync(backupsDir(ctx.config.dataDir), { recursive: true, mode: 0o700 });
  writeDurably(schedulePath(ctx.config.dataDir), JSON.stringify(schedule, null, 2));
  await applySchedule(ctx);
  return scheduleView(ctx);
}

/** The schedule with its next run, for the screen. */
export function scheduleView(ctx: AppContext) {
  const schedule = backupSchedule(ctx.config.dataDir);
  return { ...schedule, nextRunAt: schedule.enabled ? nextRun(schedule.cron, ctx.now()) : null };
}

async function applySchedule(ctx: AppContext) {
  const schedule = backupSchedule(ctx.config.dataDir);
  if (schedule.enabled) await rescheduleJob(ctx, { kind: JOB, key: JOB, runAt: nextRun(schedule.cron, ctx.now()) });
  else await cancelJobs(ctx, { key: JOB });
}

/** Deletes the oldest scheduled backups beyond the number to keep. */
export function applyRetention(dataDir: string, keep: number): string[] {
  const scheduled = listBackups(dataDir).filter((b) => b.reason === "scheduled");
  const doomed = scheduled.slice(keep).map((b) => b.id);
  for (const id of doomed) deleteBackup(dataDir, id);
  return doomed;
}

/** Registers the scheduled backup's job (server start) and keeps it in step with the schedule after a restore. */
export async function scheduleBackups(ctx: AppContext) {
  registerJobHandler(
    ctx,
    JOB,
    async () => {
      const schedule = backupSchedule(ctx.config.dataDir);
      if (!schedule.enabled) return;
      const release = await waitForBackupLock(ctx.config.dataDir);
      let made: BackupInfo;
      try {
        made = await backUp(ctx, "scheduled");
      } finally {
        release();
      }
      const deleted = applyRetention(ctx.config.dataDir, schedule.keep);
      const { remote } = await copyToRemote(ctx, made, schedule.keep);
      return { result: { id: made.id, deleted, ...(remote ? { remote } : {}) }, runAgainAt: nextRun(schedule.cron, ctx.now()) };
    },
    { firstDelayMs: 60_000, maxAttempts: Infinity },
  );
  registerJobHandler(
    ctx,
    DRILL_JOB,
    async () => {
      sweepStaging(ctx);
      const result = await drillNewest(ctx);
      return { result, runAgainAt: nextRun(DRILL_CRON, ctx.now()) };
    },
    { firstDelayMs: 60_000, maxAttempts: Infinity },
  );
  sweepStaging(ctx);
  const queueDrill = () => enqueueJob(ctx, { kind: DRILL_JOB, key: DRILL_JOB, runAt: nextRun(DRILL_CRON, ctx.now()) });
  await applySchedule(ctx);
  await queueDrill();
  // The restore's hooks are synchronous: the job is moved in the restored database as soon as it may be.
  onDatabaseReplaced(ctx, () => {
    Promise.all([applySchedule(ctx), queueDrill()]).catch((err) => ctx.log(`backups: the schedule's jobs could not be put in the restored database: ${(err as Error)?.stack ?? err}`));
  });
}

/** Removes the staging folders a crash left behind (each a whole database copy), at start and before each daily drill. */
function sweepStaging(ctx: AppContext) {
  const swept = sweepStaleStaging(ctx.config.dataDir);
  if (swept.length) ctx.log(`backups: removed ${swept.length} staging folder(s) left by an interrupted restore or check: ${swept.join(", ")}`);
}

/** Drills the newest good backup (the one a disaster would be recovered from); logs a failure. */
export async function drillNewest(ctx: AppContext): Promise<{ id: string | null; ok: boolean; error: string | null }> {
  const newest = listBackups(ctx.config.dataDir).find((b) => b.status === "good");
  if (!newest) return { id: null, ok: false, error: "There is no good backup to drill" };
  const { drill } = await drillBackup(ctx.config.dataDir, newest.id, ctx.now(), { wait: true });
  if (!drill!.ok) ctx.log(`backups: the restore drill of ${newest.id} failed: ${drill!.error}`);
  return { id: newest.id, ok: drill!.ok, error: drill!.error };
}
