import { useEffect, useState, type FormEvent } from "react";
import { confirmIdentity } from "../api/security";
import { setReauthPrompt } from "../lib/api";
import { useMutation } from "../lib/use-mutation";
import { Alert, Button, Field, Input, Modal } from "./ui";

type Ask = { methods: string[]; resolve: (confirmed: boolean) => void };

/**
 * "Confirm your password": shown when a change that outlives the session (an API key, a webhook's URL, a passkey
 * removed, 2FA set up, the admin portal's changes to accounts, plans, settings and backups) answers 403
 * `reauth_required` (src/auth/reauth.ts). Confirming with the password, a code
 * from the authenticator app or a passkey lets the change go through (ui/lib/api.ts sends it again); closing the
 * dialog lets the change fail with the server's message. Mounted once, at the root.
 */
export function ReauthDialog() {
  const [ask, setAsk] = useState<Ask | null>(null);
  useEffect(() => {
    // Changes refused together (two saves at once) wait for the one question, and are all sent again after it.
    let asking: Promise<boolean> | null = null;
    setReauthPrompt((error) => {
      const methods = Array.isArray(error.body.methods) ? (error.body.methods as string[]) : ["password"];
      asking ??= new Promise<boolean>((resolve) => setAsk({ methods, resolve })).finally(() => (asking = null));
      return asking;
    });
    return () => setReauthPrompt(null);
  }, []);
  if (!ask) return null;
  const finish = (confirmed: boolean) => {
    ask.resolve(confirmed);
    setAsk(null);
  };
  return <ConfirmForm methods={ask.methods} onDone={finish} />;
}

function ConfirmForm({ methods, onDone }: { methods: string[]; onDone: (confirmed: boolean) => void }) {
  const [byCode, setByCode] = useState(!methods.includes("password"));
  /** A password or a code to type (an account with passkeys only confirms with one of them). */
  const typed = methods.includes("password") || methods.includes("code");
  const [value, setValue] = useState("");
  // Not ui/lib/passkeys' check: that module carries the WebAuthn library, loaded only when a passkey is used.
  const passkeys = methods.includes("passkey") && typeof window.PublicKeyCredential === "function";

  const confirmation = useMutation((confirm: () => Promise<unknown>) => confirm(), {
    onSuccess: () => onDone(true),
    fallback: "Could not confirm it's you",
  });
  const { run, busy, error, setError } = confirmation;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!value.trim()) return setError(byCode ? "Please enter a code from your authenticator app" : "Please enter your password");
    void run(() => confirmIdentity(byCode ? { token: value.trim() } : { password: value }));
  };
  const withPasskey = () => run(async () => (await import("../lib/passkeys")).confirmWithPasskey());

  return (
    <Modal open onClose={() => onDone(false)} title={byCode ? "Confirm it's you" : "Confirm your password"}>
      <form onSubmit={submit} className="space-y-4" noValidate>
        <p className="text-sm text-slate-600">
          This is a sensitive change, so we ask once more. You won't be asked again for the next 10 minutes.
        </p>
        {error && <Alert>{error}</Alert>}
        {typed && (
          <>
            <Field label={byCode ? "Authentication code" : "Password"} htmlFor="reauth-secret">
              <Input
                id="reauth-secret"
                type={byCode ? "text" : "password"}
                autoComplete={byCode ? "one-time-code" : "current-password"}
                inputMode={byCode ? "numeric" : undefined}
                value={value}
                autoFocus
                onChange={(e) => setValue(e.target.value)}
              />
            </Field>
            <Button type="submit" className="w-full" disabled={busy}>
              {busy ? "Confirming..." : "Confirm"}
            </Button>
          </>
        )}
        {passkeys && (
          <Button variant="secondary" className="w-full" onClick={withPasskey} disabled={busy}>
            Use a passkey
          </Button>
        )}
        {methods.includes("code") && methods.includes("password") && (
          <button
            type="button"
            className="w-full text-center text-sm text-brand-700 hover:underline"
            onClick={() => {
              setByCode(!byCode);
              setValue("");
              setError(null);
            }}
          >
            {byCode ? "Use your password instead" : "Use a code from your authenticator app instead"}
          </button>
        )}
      </form>
    </Modal>
  );
}
