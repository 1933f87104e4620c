import { useState } from "react";
import { saveBackupPassphrase, useBackupEncryption } from "../../../api/backups";
import { Alert, Button, Card, Field, Input, Spinner } from "../../../components/ui";
import { accountTime } from "../../../lib/format";
import { useMutation } from "../../../lib/use-mutation";

const MIN = 12;

/**
 * The passphrase that encrypts every backup leaving the appliance (downloads, copies to S3). Said up front: the
 * appliance keeps only a public key made from it, so a lost passphrase cannot be recovered, by anyone.
 */
export function EncryptionCard({ onSaved }: { onSaved: () => void }) {
  const current = useBackupEncryption();
  const [passphrase, setPassphrase] = useState("");
  const [again, setAgain] = useState("");
  const [stored, setStored] = useState(false);
  const set = current.data?.set ?? false;
  const problem =
    passphrase.length > 0 && passphrase.length < MIN
      ? `At least ${MIN} characters`
      : again.length > 0 && again !== passphrase
        ? "The two passphrases differ"
        : null;
  const ready = passphrase.length >= MIN && again === passphrase && stored;

  const save = useMutation(() => saveBackupPassphrase(passphrase), {
    onSuccess: () => {
      setPassphrase("");
      setAgain("");
      setStored(false);
      void current.reload();
      onSaved();
    },
    success: "Backup passphrase set",
    fallback: "The passphrase was not set",
    failureToast: (message) => ({ title: message, variant: "destructive" }),
  });

  return (
    <Card className="space-y-4 p-4">
      <section data-testid="backup-encryption" className="space-y-4">
        <h2 className="text-lg font-semibold">Encryption</h2>
        <p className="text-sm text-slate-700">
          Backups you download and the copies sent to S3 are encrypted with a passphrase that only you keep. smsdesk
          stores just a public key made from it, so nothing on this server, not even <code>secret.key</code>, can
          decrypt them. To upload or restore such a backup you type the passphrase.
        </p>
        <Alert tone="info">
          If you lose the passphrase, the backups encrypted with it cannot be restored by anyone. Keep it in a password
          manager or another safe place before you set it.
        </Alert>
        {current.error && <Alert>{current.error.message}</Alert>}
        {current.data && (
          <p className="text-sm font-medium" data-testid="backup-encryption-status">
            {set
              ? `Passphrase set ${accountTime(current.data.setAt)}. Backups made before a change keep needing the passphrase they were made with.`
              : "No passphrase yet: backups cannot be downloaded or copied to S3 until you set one."}
          </p>
        )}
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label={set ? "New passphrase" : "Passphrase"} htmlFor="backup-passphrase" hint={`${MIN} characters or more; a few words is good`}>
            <Input id="backup-passphrase" type="password" autoComplete="new-password" maxLength={200} value={passphrase} onChange={(e) => setPassphrase(e.target.value)} />
          </Field>
          <Field label="Repeat the passphrase" htmlFor="backup-passphrase-again">
            <Input id="backup-passphrase-again" type="password" autoComplete="new-password" maxLength={200} value={again} onChange={(e) => setAgain(e.target.value)} />
          </Field>
        </div>
        {problem && <p className="text-sm text-red-700">{problem}</p>}
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={stored} onChange={(e) => setStored(e.target.checked)} />
          I have stored this passphrase somewhere safe. Without it, the backups encrypted with it cannot be restored.
        </label>
        <Button disabled={!ready || save.busy} onClick={() => void save.run()}>
          {save.busy && <Spinner />}
          {set ? "Change passphrase" : "Set passphrase"}
        </Button>
      </section>
    </Card>
  );
}
