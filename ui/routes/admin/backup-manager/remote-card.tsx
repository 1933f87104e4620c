import { useEffect, useState } from "react";
import { saveBackupRemote, useBackupRemote, type BackupRemote } from "../../../api/backups";
import { Alert, Button, Card, Field, Input, Spinner } from "../../../components/ui";
import { useMutation } from "../../../lib/use-mutation";

/** The S3-compatible destination each scheduled backup is copied to (keeping as many there as here). */
export function RemoteCard() {
  const current = useBackupRemote();
  const [form, setForm] = useState<BackupRemote | null>(null);
  const [secret, setSecret] = useState("");
  const save = useMutation(
    ({ secretSet: _set, ...settings }: BackupRemote) => saveBackupRemote({ ...settings, ...(secret ? { secretAccessKey: secret } : {}) }),
    {
      onSuccess: (saved) => {
        setForm(saved);
        setSecret("");
      },
      success: "S3 destination saved",
      fallback: "The S3 destination was not saved",
      failureToast: (message) => ({ title: message, variant: "destructive" }),
    },
  );
  useEffect(() => {
    if (current.data) setForm(current.data);
  }, [current.data]);
  if (!form) return current.error ? <Alert>{current.error.message}</Alert> : null;

  const text = (key: "endpoint" | "bucket" | "region" | "accessKeyId" | "prefix", label: string, hint?: string) => (
    <Field label={label} htmlFor={`s3-${key}`} hint={hint}>
      <Input id={`s3-${key}`} maxLength={500} value={form[key]} onChange={(e) => setForm({ ...form, [key]: e.target.value })} />
    </Field>
  );
  return (
    <Card className="space-y-4 p-4">
      <h2 className="text-lg font-semibold">Copy to S3-compatible storage</h2>
      <p className="text-sm text-slate-600">
        Each scheduled backup is uploaded (AWS S3, Cloudflare R2, Backblaze B2, MinIO...), and as many scheduled backups are kept
        there as here.
      </p>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
        Upload scheduled backups
      </label>
      <div className="grid gap-4 sm:grid-cols-2">
        {text("endpoint", "Endpoint", "e.g. https://s3.eu-central-1.amazonaws.com")}
        {text("bucket", "Bucket")}
        {text("region", "Region", "us-east-1; auto for R2")}
        {text("prefix", "Folder", "optional, ending in /, e.g. smsdesk/")}
        {text("accessKeyId", "Access key id")}
        <Field label="Secret access key" htmlFor="s3-secret" hint={form.secretSet ? "Set; leave empty to keep it" : undefined}>
          <Input
            id="s3-secret"
            type="password"
            autoComplete="off"
            maxLength={200}
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
        </Field>
      </div>
      <Button disabled={save.busy} onClick={() => void save.run(form)}>
        {save.busy && <Spinner />}Save destination
      </Button>
    </Card>
  );
}
