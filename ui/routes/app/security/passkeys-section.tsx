import { useSignals } from "@preact/signals-react/runtime";
import { useState } from "react";
import { Alert, Button, Card, Field, Input, Spinner } from "../../../components/ui";
import { deletePasskey, usePasskeys, useTwoFactorStatus } from "../../../api/security";
import { errorMessage } from "../../../lib/api";
import { useConfirm } from "../../../components/confirm-dialog";
import { auth } from "../../../lib/auth";
import { registerPasskey, registrationFailure, passkeysSupported, type Authenticator } from "../../../lib/passkeys";
import { accountTime } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";

const DEFAULT_NAME = "My Device";
const NOT_SUPPORTED = "Passkeys are not supported on this device or browser.";

const TRANSPORT_LABELS: Record<string, string> = {
  internal: "This device",
  usb: "USB key",
  nfc: "NFC",
  ble: "Bluetooth",
  hybrid: "Phone",
};

// In the account's zone (Account Settings), like every other time in the app.
const formatDate = (iso: string | null) => accountTime(iso, { fallback: "Never" });

/** The passkeys part of /settings/security: list, add (with a friendly name) and delete (after confirming). */
export function PasskeysSection() {
  useSignals();
  const { data, loading, error, reload } = usePasskeys();
  const twoFactor = useTwoFactorStatus();
  // A new passkey signs in on its own, so the server asks who is adding it: the password, else (Google accounts)
  // a code from the authenticator app, else nothing.
  const ask = auth.value.user?.authProvider === "password" ? "password" : twoFactor.data?.enabled ? "code" : null;
  const [proof, setProof] = useState("");
  const confirm = useConfirm();
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState(DEFAULT_NAME);
  const supported = passkeysSupported();

  const startAdding = () => {
    if (!passkeysSupported()) {
      toast({ title: "Not Supported", description: NOT_SUPPORTED, variant: "destructive" });
      return;
    }
    setName(DEFAULT_NAME);
    setProof("");
    setAdding(true);
  };

  const register = useMutation(
    async () => {
      try {
        const answer = await registerPasskey(
          name.trim(),
          ask === "password" ? { password: proof } : ask === "code" ? { token: proof } : {},
        );
        if (!answer.verified) throw new Error(answer.error || "Failed to register passkey");
      } catch (err) {
        // The failure's title depends on what the browser or the server refused (ui/lib/passkeys.ts).
        const { title, description } = registrationFailure(err);
        toast({ title, description, variant: "destructive" });
        throw err;
      }
    },
    {
      onSuccess: async () => {
        toast({ title: "Passkey registered successfully", description: `"${name.trim()}" can now sign you in.` });
        setAdding(false);
        await reload();
      },
    },
  );
  const busy = register.busy;

  const add = submitWith(() => {
    if (!name.trim()) {
      toast({ title: "Name Required", description: "Please enter a name for your passkey device", variant: "destructive" });
      return;
    }
    if (ask && !proof) {
      const description =
        ask === "password" ? "Please enter your password to add a passkey" : "Please enter a code from your authenticator app";
      toast({ title: "Confirm it's you", description, variant: "destructive" });
      return;
    }
    return register.run();
  });

  return (
    <Card className="p-6">
      {confirm.dialog}
      <section aria-labelledby="passkeys-heading" className="space-y-4">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <h2 id="passkeys-heading" className="text-lg font-semibold">
              Passkeys
            </h2>
            <p className="text-sm text-slate-600">Sign in with your fingerprint, face or device PIN instead of a password.</p>
          </div>
          {!adding && <Button onClick={startAdding}>Add Passkey</Button>}
        </div>

        {!supported && <Alert tone="info">{NOT_SUPPORTED}</Alert>}

        {adding && (
          <form onSubmit={add} className="space-y-3 rounded-lg border border-slate-200 bg-slate-50 p-4" noValidate>
            <Field label="Passkey name" htmlFor="passkey-name" hint="So you can tell your devices apart, e.g. 'Work laptop'.">
              <Input id="passkey-name" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
            </Field>
            {ask === "password" && (
              <Field label="Your password" htmlFor="passkey-proof" hint="To confirm it's you adding this passkey.">
                <Input
                  id="passkey-proof"
                  type="password"
                  autoComplete="current-password"
                  maxLength={200}
                  value={proof}
                  onChange={(e) => setProof(e.target.value)}
                />
              </Field>
            )}
            {ask === "code" && (
              <Field
                label="Code from your authenticator app"
                htmlFor="passkey-proof"
                hint="To confirm it's you adding this passkey."
              >
                <Input
                  id="passkey-proof"
                  autoComplete="one-time-code"
                  maxLength={9}
                  className="max-w-48 font-mono tracking-widest"
                  value={proof}
                  onChange={(e) => setProof(e.target.value.trim())}
                />
              </Field>
            )}
            <div className="flex gap-2">
              <Button type="submit" disabled={busy}>
                {busy ? "Waiting for your device..." : "Register Passkey"}
              </Button>
              <Button variant="ghost" onClick={() => setAdding(false)} disabled={busy}>
                Cancel
              </Button>
            </div>
          </form>
        )}

        {loading && !data ? (
          <div className="flex justify-center py-4">
            <Spinner />
          </div>
        ) : error ? (
          <Alert>{errorMessage(error, "Failed to load passkeys")}</Alert>
        ) : !data || data.length === 0 ? (
          <p className="text-sm text-slate-500">No passkeys yet.</p>
        ) : (
          <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200" aria-label="Your passkeys">
            {data.map((key) => (
              <li key={key.id} className="flex flex-wrap items-center justify-between gap-3 p-3" data-testid="passkey-item">
                <div className="min-w-0">
                  <p className="truncate font-medium">{key.name}</p>
                  <p className="text-xs text-slate-500">
                    {key.transports.map((t) => TRANSPORT_LABELS[t] ?? "Other").join(", ") || "Other"}
                    {" · "}
                    {key.credentialDeviceType === "multiDevice" ? "Synced" : "This device only"}
                    {key.credentialBackedUp ? " · Backed up" : ""}
                  </p>
                  <p className="text-xs text-slate-500">
                    Added {formatDate(key.createdAt)} · Last used {formatDate(key.lastUsed)}
                  </p>
                </div>
                <DeletePasskey passkey={key} ask={confirm.ask} onDeleted={reload} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </Card>
  );
}

/** A passkey's Delete, asked first; each row has its own, so deleting one leaves the others' buttons as they are. */
function DeletePasskey({
  passkey,
  ask,
  onDeleted,
}: {
  passkey: Authenticator;
  ask: ReturnType<typeof useConfirm>["ask"];
  onDeleted: () => unknown;
}) {
  const removal = useMutation(() => deletePasskey(passkey.id), {
    onSuccess: onDeleted,
    success: "Passkey deleted successfully",
    fallback: "Failed to delete passkey",
    failureToast: "Failed to delete passkey",
  });
  const remove = async () => {
    const ok = await ask({
      title: "Delete passkey",
      message: `Delete the passkey "${passkey.name}"? You will no longer be able to sign in with it.`,
      confirmLabel: "Delete",
    });
    if (ok) await removal.run();
  };
  return (
    <Button variant="secondary" onClick={() => void remove()} disabled={removal.busy} aria-label={`Delete passkey ${passkey.name}`}>
      Delete
    </Button>
  );
}
