/** The backup manager: /api/admin/backups (src/backups/). */
import { api, ApiError, getStoredToken } from "../lib/api";
import { useApi } from "../lib/use-api";

export type Backup = {
  id: string;
  size: number;
  createdAt: number;
  reason: string;
  status: "good" | "failed";
  error: string | null;
  manifest: { app: string; schema: string | null; tables: Record<string, number> } | null;
  /** The last restore drill: restored into a temporary folder and checked. */
  drill?: { at: number; ok: boolean; error: string | null };
  /** The copy to the S3-compatible destination. */
  remote?: { at: number; ok: boolean; key: string; error: string | null };
};
/** The S3-compatible destination; the secret key is never sent back, only whether it is set. */
export type BackupRemote = { enabled: boolean; endpoint: string; bucket: string; region: string; accessKeyId: string; prefix: string; secretSet: boolean };
export type BackupSchedule = { enabled: boolean; preset: "daily" | "weekly" | "monthly" | "custom"; cron: string; keep: number; nextRunAt: number | null };

/** The backups, newest first, and the newest good one that passed its restore drill. */
export const useBackups = (enabled = true) => useApi<{ data: Backup[]; lastDrilled: Backup | null }>(enabled ? "/api/admin/backups" : null);
export const useBackupRemote = () => useApi<BackupRemote>("/api/admin/backups/remote");
export const saveBackupRemote = (body: Omit<BackupRemote, "secretSet"> & { secretAccessKey?: string }) =>
  api<BackupRemote>("/api/admin/backups/remote", { method: "PUT", body });
export const useBackupSchedule = () => useApi<BackupSchedule>("/api/admin/backups/schedule");

// A backup of a large database takes a while: longer than the default 10 s.
export const createBackup = () => api<Backup>("/api/admin/backups", { method: "POST", timeoutMs: 300_000 });
export const drillBackup = (id: string) => api<Backup>(`/api/admin/backups/${id}/drill`, { method: "POST", timeoutMs: 300_000 });
export const deleteBackup = (id: string) => api(`/api/admin/backups/${id}`, { method: "DELETE" });
export const restoreBackup = (id: string) => api(`/api/admin/backups/${id}/restore`, { method: "POST", timeoutMs: 300_000 });
export const saveBackupSchedule = (body: { enabled: boolean; preset: BackupSchedule["preset"]; cron?: string; keep: number }) =>
  api<BackupSchedule>("/api/admin/backups/schedule", { method: "PUT", body });

/** The archive's address; the session cookie authorises the browser's own download. */
export const backupDownloadUrl = (id: string) => `/api/admin/backups/${id}/download`;
/**
 * Asked before the browser downloads an archive: a download needs a recent sign-in or confirmation (it holds every
 * account's data and secret.key), and only this call, not the browser's own download, can show the confirm dialog.
 */
export const prepareBackupDownload = (id: string) => api<{ url: string }>(`/api/admin/backups/${id}/download`, { method: "POST" });

/** Sends the file as the raw body (the server verifies it before keeping it). */
export async function uploadBackup(file: File): Promise<Backup> {
  const token = getStoredToken();
  const response = await fetch("/api/admin/backups/upload", {
    method: "POST",
    credentials: "include",
    headers: { "content-type": "application/gzip", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: file,
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new ApiError(response.status, typeof body.message === "string" ? body.message : `${response.status}: ${response.statusText}`, body);
  return body as unknown as Backup;
}
