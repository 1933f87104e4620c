import { useState, type FormEvent } from "react";
import { Button, Card, Field, Input, Spinner } from "../../../components/ui";
import {
  beginTwoFactorSetup,
  disableTwoFactor,
  enableTwoFactor,
  regenerateBackupCodes,
  useTwoFactorStatus,
  type TwoFactorSetup as Setup,
} from "../../../api/security";
import { useConfirm } from "../../../components/confirm-dialog";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";

const digitsOnly = (value: string) => value.replace(/\D/g, "").slice(0, 6);

function downloadCodes(codes: string[]) {
  const text = [
    "smsdesk two-factor backup codes",
    `Generated ${new Date().toLocaleString()}`,
    "Each code signs you in once. Keep them somewhere safe, offline.",
    "",
    ...codes,
    "",
  ].join("\n");
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = "smsdesk-backup-codes.txt";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Two-factor authentication on /settings/security: status, setup, verify, enabled with backup codes, disable. */
export function TwoFactorSection() {
  const status = useTwoFactorStatus();
  const { ask, dialog } = useConfirm();
  const [setup, setSetup] = useState<Setup | null>(null);
  const [code, setCode] = useState("");
  const [backupCodes, setBackupCodes] = useState<string[] | null>(null);
  const [disableCode, setDisableCode] = useState("");
  const [regenerateCode, setRegenerateCode] = useState("");
  const setupRun = useMutation(beginTwoFactorSetup, {
    onSuccess: (started) => {
      setSetup(started);
      setCode("");
    },
    fallback: "",
    failureToast: "Failed to setup two-factor authentication",
  });
  const startSetup = () => void setupRun.run();

  const enableRun = useMutation((code: string, secret: string) => enableTwoFactor(code, secret), {
    onSuccess: (answer) => {
      setBackupCodes(answer.backupCodes);
      setSetup(null);
      setCode("");
      return status.reload();
    },
    success: { title: "Two-factor authentication enabled", description: "Save your backup codes somewhere safe." },
    fallback: "Invalid verification code. Please try again.",
    failureToast: "Verification Failed",
  });
  const enable = (e: FormEvent) => {
    e.preventDefault();
    if (!setup) return;
    if (code.length !== 6) {
      toast({ title: "Code Required", description: "Please enter the 6-digit verification code", variant: "destructive" });
      return;
    }
    void enableRun.run(code, setup.secret);
  };

  /** A code from the app or a backup code, asked for before the confirmation; null when none was typed. */
  const codeFrom = (typed: string) => {
    const token = typed.trim();
    if (!token) {
      toast({
        title: "Code Required",
        description: "Enter a code from your authenticator app or a backup code",
        variant: "destructive",
      });
      return null;
    }
    return token;
  };

  const disableRun = useMutation(disableTwoFactor, {
    onSuccess: () => {
      setBackupCodes(null);
      setDisableCode("");
      return status.reload();
    },
    success: "Two-factor authentication disabled",
    fallback: "",
    failureToast: "Failed to disable two-factor authentication",
  });
  const disable = async (e: FormEvent) => {
    e.preventDefault();
    const token = codeFrom(disableCode);
    if (!token) return;
    const ok = await ask({
      title: "Disable two-factor authentication",
      message: "Disable two-factor authentication? Your account will be protected by your password only.",
      confirmLabel: "Disable",
    });
    if (ok) await disableRun.run(token);
  };

  const regenerateRun = useMutation(regenerateBackupCodes, {
    onSuccess: (answer) => {
      setBackupCodes(answer.backupCodes);
      setRegenerateCode("");
      return status.reload();
    },
    success: "New backup codes generated",
    fallback: "",
    failureToast: "Failed to regenerate backup codes",
  });
  const regenerate = async (e: FormEvent) => {
    e.preventDefault();
    // New codes are a way into the account: a code from the app proves it is the owner asking, not a stolen session.
    const token = codeFrom(regenerateCode);
    if (!token) return;
    const ok = await ask({
      title: "Regenerate backup codes",
      message: "Generate new backup codes? Your current backup codes will stop working.",
      confirmLabel: "Generate",
    });
    if (ok) await regenerateRun.run(token);
  };

  const enabled = status.data?.enabled ?? false;

  return (
    <Card className="p-6">
      {dialog}
      <section aria-labelledby="two-factor-heading" className="space-y-4">
        <div className="flex items-start justify-between gap-4">
          <div>
            <h2 id="two-factor-heading" className="text-lg font-semibold">
              Two-factor authentication
            </h2>
            <p className="text-sm text-slate-600">
              Ask for a code from an authenticator app (Google Authenticator, 1Password, Authy...) at every sign-in.
            </p>
          </div>
          {status.data && (
            <span
              data-testid="two-factor-status"
              className={
                enabled
                  ? "rounded-full bg-green-100 px-3 py-1 text-xs font-medium text-green-800"
                  : "rounded-full bg-slate-100 px-3 py-1 text-xs font-medium text-slate-700"
              }
            >
              {enabled ? "Enabled" : "Disabled"}
            </span>
          )}
        </div>

        {status.loading && !status.data ? (
          <Spinner />
        ) : status.error ? (
          <div className="space-y-2 text-sm text-red-700">
            <p>Could not load the two-factor status.</p>
            <Button variant="secondary" onClick={() => void status.reload()}>
              Try again
            </Button>
          </div>
        ) : !enabled && !setup ? (
          <Button onClick={startSetup} disabled={setupRun.busy}>
            {setupRun.busy ? "Setting up..." : "Enable Two-Factor Authentication"}
          </Button>
        ) : !enabled && setup ? (
          <form onSubmit={enable} className="space-y-4" noValidate>
            <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
              <li>Scan this QR code with your authenticator app, or type the key below.</li>
              <li>Enter the 6-digit code the app shows.</li>
            </ol>
            <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
              <img
                src={setup.qrCodeUrl}
                alt="QR code for your authenticator app"
                width={180}
                height={180}
                className="rounded border border-slate-200"
              />
              <div className="space-y-1">
                <p className="text-sm font-medium text-slate-700">Manual entry key</p>
                <code
                  data-testid="manual-entry-key"
                  className="block select-all break-all rounded bg-slate-100 px-3 py-2 font-mono text-sm tracking-wider"
                >
                  {setup.manualEntryKey}
                </code>
              </div>
            </div>
            <Field label="Verification code" htmlFor="twofa-setup-code">
              <Input
                id="twofa-setup-code"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                placeholder="123456"
                className="max-w-40 font-mono tracking-widest"
                value={code}
                onChange={(e) => setCode(digitsOnly(e.target.value))}
              />
            </Field>
            <div className="flex gap-2">
              <Button type="submit" disabled={code.length !== 6 || enableRun.busy}>
                {enableRun.busy ? "Verifying..." : "Verify & Enable"}
              </Button>
              <Button variant="ghost" onClick={() => setSetup(null)}>
                Cancel
              </Button>
            </div>
          </form>
        ) : (
          <div className="space-y-4">
            <p className="text-sm text-slate-700">
              Two-factor authentication is on. Backup codes left:{" "}
              <strong data-testid="backup-codes-count">{status.data?.backupCodesCount ?? 0}</strong>
            </p>

            {backupCodes && (
              <div className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4" data-testid="backup-codes">
                <p className="text-sm font-medium text-amber-900">
                  Your backup codes. Each one signs you in once if you lose your phone. They are shown only now.
                </p>
                <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-5">
                  {backupCodes.map((c) => (
                    <li key={c} className="rounded bg-white px-2 py-1 text-center">
                      {c}
                    </li>
                  ))}
                </ul>
                <div className="flex gap-2">
                  <Button variant="secondary" onClick={() => downloadCodes(backupCodes)}>
                    Download
                  </Button>
                  <Button variant="ghost" onClick={() => setBackupCodes(null)}>
                    Hide
                  </Button>
                </div>
              </div>
            )}

            <form onSubmit={regenerate} className="space-y-2" noValidate>
              <Field
                label="Code from your authenticator app (or a backup code) for new backup codes"
                htmlFor="twofa-regenerate-code"
              >
                <Input
                  id="twofa-regenerate-code"
                  autoComplete="one-time-code"
                  maxLength={9}
                  className="max-w-48 font-mono tracking-widest"
                  value={regenerateCode}
                  onChange={(e) => setRegenerateCode(e.target.value.trim())}
                />
              </Field>
              <Button type="submit" variant="secondary" disabled={regenerateRun.busy}>
                {regenerateRun.busy ? "Generating..." : "Regenerate Backup Codes"}
              </Button>
            </form>

            <form onSubmit={disable} className="space-y-2 border-t border-slate-200 pt-4" noValidate>
              <Field label="Code from your app (or a backup code) to turn it off" htmlFor="twofa-disable-code">
                <Input
                  id="twofa-disable-code"
                  autoComplete="one-time-code"
                  maxLength={9}
                  className="max-w-48 font-mono tracking-widest"
                  value={disableCode}
                  onChange={(e) => setDisableCode(e.target.value.trim())}
                />
              </Field>
              <Button type="submit" variant="danger" disabled={disableRun.busy}>
                {disableRun.busy ? "Disabling..." : "Disable Two-Factor Authentication"}
              </Button>
            </form>
          </div>
        )}
      </section>
    </Card>
  );
}
