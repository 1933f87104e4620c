import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import {
  backupDownloadUrl,
  prepareBackupDownload,
  createBackup,
  deleteBackup,
  drillBackup,
  restoreBackup,
  saveBackupSchedule,
  uploadBackup,
  useBackups,
  useBackupSchedule,
  type Backup,
  type BackupDuties,
  type BackupSchedule,
} from "../../../api/backups";
import { useConfirm } from "../../../components/confirm-dialog";
import { ScrollBox } from "../../../components/scroll-box";
import { Alert, Button, Card, Field, Input, Modal, Select, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { accountTime } from "../../../lib/format";
import { auth } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { BackupAgeCard } from "./backup-age";
import { EncryptionCard } from "./encryption-card";
import { RemoteCard } from "./remote-card";

const size = (n: number) => (n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`);
const rows = (b: Backup) => (b.manifest ? Object.values(b.manifest.tables).reduce((a, n) => a + n, 0) : 0);

/** /admin/backup-manager: verified backups of the database and secret.key; create, upload, download, restore, schedule. */
export function BackupManagerPage() {
  useSignals();
  const user = auth.value.user;
  const list = useBackups();
  const { ask, dialog } = useConfirm();
  const [uploading, setUploading] = useState(false);
  // One change at a time, named by its label ("create", "restore:<id>"...) for the button that shows its spinner.
  const change = useMutation((_label: string, work: () => Promise<unknown>, _done: string) => work(), {
    success: (_, _label, _work, done) => done,
    failureToast: (message) => ({ title: message, variant: "destructive" }),
  });
  const busy = change.args?.[0] ?? null;

  if (user?.role !== "admin") {
    return (
      <div className="mx-auto max-w-lg space-y-3 py-12 text-center">
        <h1 className="text-2xl font-bold">Access Denied</h1>
        <Alert>Administrator access required. Sign in with an administrator account at /admin.</Alert>
      </div>
    );
  }

  // The list is read again after a change, whether it went through or not.
  const run = async (label: string, work: () => Promise<unknown>, done: string) => {
    await change.run(label, work, done);
    void list.reload();
  };

  const onRestore = async (b: Backup) => {
    const ok = await ask({
      title: "Restore this backup?",
      message: `Everything in the appliance goes back to ${accountTime(b.createdAt)}. The current data is backed up first.`,
      confirmLabel: "Restore",
    });
    if (ok) await run(`restore:${b.id}`, () => restoreBackup(b.id), "Backup restored");
  };
  // Asked first (the confirm dialog if the sign-in is over 10 minutes old), then the browser's own download.
  const onDownload = async (b: Backup) => {
    try {
      const { url } = await prepareBackupDownload(b.id);
      const link = document.createElement("a");
      link.href = url;
      link.download = "";
      link.click();
    } catch (err) {
      toast({ title: errorMessage(err, "The backup could not be downloaded"), variant: "destructive" });
    }
  };
  const onDelete = async (b: Backup) => {
    const ok = await ask({ title: "Delete this backup?", message: `${b.id} is deleted for good.`, confirmLabel: "Delete" });
    if (ok) await run(`delete:${b.id}`, () => deleteBackup(b.id), "Backup deleted");
  };

  const backups = list.data?.data ?? [];
  return (
    <div className="space-y-6">
      {dialog}
      <UploadDialog
        open={uploading}
        onClose={() => setUploading(false)}
        onUpload={(f, passphrase) => {
          setUploading(false);
          void run("upload", () => uploadBackup(f, passphrase), "Backup uploaded and verified");
        }}
      />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold">Backup Manager</h1>
          <p className="text-slate-600">
            Verified copies of the database and secret.key, kept in the data folder's backups/. A backup that leaves it (a download, a copy
            to S3) is encrypted with your passphrase.
          </p>
        </div>
        <div className="flex gap-2">
          <Button variant="secondary" disabled={busy !== null} onClick={() => setUploading(true)}>
            {busy === "upload" && <Spinner />}Upload backup
          </Button>
          <Button disabled={busy !== null} onClick={() => void run("create", createBackup, "Backup created and verified")}>
            {busy === "create" && <Spinner />}Create backup
          </Button>
        </div>
      </div>

      {list.error && <Alert>{list.error.message}</Alert>}
      {list.data && <BackupAgeCard lastDrilled={list.data.lastDrilled} />}
      {list.data && <DutiesCard duties={list.data.duties} />}
      <Card>
        <ScrollBox label="Backups">
        <table className="w-full text-left text-sm">
          <thead className="border-b text-xs uppercase text-slate-500">
            <tr>
              <th className="p-3">Created</th>
              <th className="p-3">Kind</th>
              <th className="p-3">Status</th>
              <th className="p-3">Size</th>
              <th className="p-3">Contents</th>
              <th className="p-3">Restore drill</th>
              <th className="p-3">Actions</th>
            </tr>
          </thead>
          <tbody>
            {backups.length === 0 && !list.loading && (
              <tr>
                <td className="p-3 text-slate-500" colSpan={7}>
                  No backups yet.
                </td>
              </tr>
            )}
            {backups.map((b) => (
              <tr key={b.id} className="border-b last:border-0" data-testid="backup-row">
                <td className="p-3">{accountTime(b.createdAt)}</td>
                <td className="p-3">
                  {b.reason}
                  {b.remote && (
                    <span
                      className={`block text-xs ${b.remote.ok ? "text-green-700" : "text-red-700"}`}
                      title={b.remote.error ?? b.remote.key}
                    >
                      {b.remote.ok ? "Copied to S3" : `S3 copy failed: ${b.remote.error}`}
                    </span>
                  )}
                </td>
                <td className="p-3">
                  {b.status === "good" ? (
                    <span className="font-medium text-green-700">Good</span>
                  ) : (
                    <span className="text-red-700" title={b.error ?? ""}>
                      Failed
                    </span>
                  )}
                </td>
                <td className="p-3">{b.status === "good" ? size(b.size) : "-"}</td>
                <td className="p-3 text-slate-600">
                  {b.manifest
                    ? `${rows(b).toLocaleString()} rows, schema ${b.manifest.schema ?? "?"}, version ${b.manifest.app}`
                    : (b.error ?? "")}
                </td>
                <td className="p-3" data-testid="backup-drill">
                  {!b.drill ? (
                    <span className="text-slate-500">Not tested</span>
                  ) : b.drill.ok ? (
                    <span className="text-green-700">Passed {accountTime(b.drill.at)}</span>
                  ) : (
                    <span className="text-red-700">Failed: {b.drill.error}</span>
                  )}
                </td>
                <td className="space-x-2 whitespace-nowrap p-3">
                  {b.status === "good" && (
                    <>
                      <a
                        className="text-blue-700 underline"
                        href={backupDownloadUrl(b.id)}
                        download
                        onClick={(e) => {
                          e.preventDefault();
                          void onDownload(b);
                        }}
                      >
                        Download
                      </a>
                      <Button
                        variant="secondary"
                        disabled={busy !== null}
                        title="Restore it into a temporary folder and check it, without touching the running data"
                        onClick={() =>
                          void run(
                            `drill:${b.id}`,
                            () =>
                              drillBackup(b.id).then((d) => {
                                if (!d.drill?.ok) throw new Error(`The restore drill failed: ${d.drill?.error ?? "unknown"}`);
                              }),
                            "Restore drill passed",
                          )
                        }
                      >
                        {busy === `drill:${b.id}` && <Spinner />}Test restore
                      </Button>
                      <Button variant="secondary" disabled={busy !== null} onClick={() => void onRestore(b)}>
                        Restore
                      </Button>
                    </>
                  )}
                  <Button variant="danger" disabled={busy !== null} onClick={() => void onDelete(b)}>
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </ScrollBox>
      </Card>
      <EncryptionCard onSaved={() => void list.reload()} />
      <ScheduleCard />
      <RemoteCard />
    </div>
  );
}

/** Whose backups are whose: this manager's, and the database's own (PostgreSQL's, when DATABASE_URL names one). */
function DutiesCard({ duties }: { duties: BackupDuties }) {
  return (
    <section data-testid="backup-duties" aria-label="Whose backups are whose">
      <Card className={`space-y-2 p-4 ${duties.engine === "postgresql" ? "border-sky-300 bg-sky-50" : ""}`}>
        <h2 className="text-lg font-semibold">Whose backups are whose ({duties.engine === "sqlite" ? "SQLite" : "PostgreSQL"})</h2>
        <p className="text-sm">
          <span className="font-semibold">This manager's job: </span>
          {duties.ours}
        </p>
        <p className="text-sm">
          <span className="font-semibold">The database's job: </span>
          {duties.database}
        </p>
      </Card>
    </section>
  );
}

function ScheduleCard() {
  const current = useBackupSchedule();
  const [form, setForm] = useState<BackupSchedule | null>(null);
  const save = useMutation(
    (f: BackupSchedule) => saveBackupSchedule({ enabled: f.enabled, preset: f.preset, cron: f.preset === "custom" ? f.cron : undefined, keep: f.keep }),
    {
      onSuccess: setForm,
      success: "Schedule saved",
      fallback: "The schedule was not saved",
      failureToast: (message) => ({ title: message, variant: "destructive" }),
    },
  );
  useEffect(() => {
    if (current.data) setForm(current.data);
  }, [current.data]);
  if (!form) return current.error ? <Alert>{current.error.message}</Alert> : null;

  return (
    <Card className="space-y-4 p-4">
      <h2 className="text-lg font-semibold">Schedule</h2>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
        Back up automatically
      </label>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="How often" htmlFor="backup-preset">
          <Select
            id="backup-preset"
            value={form.preset}
            onChange={(e) => setForm({ ...form, preset: e.target.value as BackupSchedule["preset"] })}
          >
            <option value="daily">Daily (03:00)</option>
            <option value="weekly">Weekly (Sunday 03:00)</option>
            <option value="monthly">Monthly (the 1st, 03:00)</option>
            <option value="custom">Cron expression</option>
          </Select>
        </Field>
        {form.preset === "custom" && (
          <Field label="Cron expression" htmlFor="backup-cron" hint="minute hour day month weekday">
            <Input
              id="backup-cron"
              maxLength={100}
              value={form.cron}
              onChange={(e) => setForm({ ...form, cron: e.target.value })}
            />
          </Field>
        )}
        <Field label="Scheduled backups to keep" htmlFor="backup-keep">
          <Input
            id="backup-keep"
            type="number"
            min={1}
            max={365}
            value={form.keep}
            onChange={(e) => setForm({ ...form, keep: Number(e.target.value) })}
          />
        </Field>
      </div>
      {form.nextRunAt && <p className="text-sm text-slate-600">Next backup: {accountTime(form.nextRunAt)}</p>}
      <Button disabled={save.busy} onClick={() => void save.run(form)}>
        {save.busy && <Spinner />}Save schedule
      </Button>
    </Card>
  );
}

/** Asks for the archive and, for an encrypted one (every download and S3 copy), its passphrase. */
function UploadDialog({ open, onClose, onUpload }: { open: boolean; onClose: () => void; onUpload: (file: File, passphrase: string) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [passphrase, setPassphrase] = useState("");
  useEffect(() => {
    if (!open) {
      setFile(null);
      setPassphrase("");
    }
  }, [open]);
  return (
    <Modal open={open} onClose={onClose} title="Upload a backup">
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (file) onUpload(file, passphrase);
        }}
      >
        <Field label="Backup file" htmlFor="backup-file" hint="A .tar.gz.enc downloaded from smsdesk or copied to S3 (older .tar.gz files too)">
          <input id="backup-file" type="file" accept=".enc,.gz,.tgz" className="block w-full text-sm" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </Field>
        <Field label="Backup passphrase" htmlFor="backup-upload-passphrase" hint="The one set when the backup was made; older unencrypted backups need none">
          <Input id="backup-upload-passphrase" type="password" autoComplete="off" maxLength={200} value={passphrase} onChange={(e) => setPassphrase(e.target.value)} />
        </Field>
        <p className="text-sm text-slate-600">The backup is decrypted and checked completely before it is listed; nothing is restored until you choose Restore.</p>
        <div className="flex justify-end gap-2">
          <Button type="button" variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={!file}>
            Upload and verify
          </Button>
        </div>
      </form>
    </Modal>
  );
}
