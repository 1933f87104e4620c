/** The backup manager: /api/admin/backups (src/backups/). */
import { api, ApiError } from "../lib/api";
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
/** Whether the passphrase that encrypts downloads and S3 copies is set (the appliance keeps only its public key). */
export type BackupEncryption = { set: boolean; setAt: number | null };
export type BackupSchedule = { enabled: boolean; preset: "daily" | "weekly" | "monthly" | "custom"; cron: string; keep: number; nextRunAt: number | null };

/** Which backups are the backup manager's job and which the database's (src/backups/duties.ts). */
export type BackupDuties = { engine: "sqlite" | "postgresql"; ours: string; database: string };

/** The backups, newest first, the newest good one that passed its restore drill, and whose backups are whose. */
export const useBackups = (enabled = true) =>
  useApi<{ data: Backup[]; lastDrilled: Backup | null; duties: BackupDuties }>(enabled ? "/api/admin/backups" : null);
export const useBackupRemote = () => useApi<BackupRemote>("/api/admin/backups/remote");
export const saveBackupRemote = (body: Omit<BackupRemote, "secretSet"> & { secretAccessKey?: string }) =>
  api<BackupRemote>("/api/admin/backups/remote", { method: "PUT", body });
export const useBackupSchedule = () => useApi<BackupSchedule>("/api/admin/backups/schedule");
export const useBackupEncryption = () => useApi<BackupEncryption>("/api/admin/backups/encryption");
// The server stretches the passphrase with scrypt (about half a second, more on a busy machine).
export const saveBackupPassphrase = (passphrase: string) =>
  api<BackupEncryption>("/api/admin/backups/encryption", { method: "PUT", body: { passphrase }, timeoutMs: 60_000 });

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

/**
 * Sends the file as the raw body (the server decrypts and verifies it before keeping it); the passphrase of an
 * encrypted archive goes in a header, URI-encoded (headers carry ASCII only). Older unencrypted archives need none.
 */
export async function uploadBackup(file: File, passphrase: string): Promise<Backup> {
  const response = await fetch("/api/admin/backups/upload", {
    method: "POST",
    credentials: "same-origin",
    headers: {
      "content-type": "application/octet-stream",
      ...(passphrase ? { "x-backup-passphrase": encodeURIComponent(passphrase) } : {}),
    },
    body: file,
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new ApiError(response.status, typeof body.message === "string" ? body.message : `${response.status}: ${response.statusText}`, body);
  return body as unknown as Backup;
}
