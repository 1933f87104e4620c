import { useRef, useState } from "react";
import { Button } from "../../components/ui";
import { refreshUser } from "../../lib/auth";
import { authenticationFailure, passkeysSupported, signInWithPasskey } from "../../lib/passkeys";
import { toast } from "../../lib/toast";

/**
 * 'Sign in with a passkey' under the sign-in form, whenever this browser supports passkeys: usernameless, the
 * browser offers the passkeys it holds for this site. It does not depend on the typed email, so the page tells
 * nobody which emails have accounts or passkeys.
 */
export function PasskeySignInButton({ onSignedIn, onError }: { onSignedIn: () => void; onError?: (text: string) => void }) {
  const [busy, setBusy] = useState(false);
  const supported = useRef(passkeysSupported()).current;
  if (!supported) return null;

  const signIn = async () => {
    setBusy(true);
    try {
      await signInWithPasskey();
      await refreshUser();
      toast({ title: "Signed in with passkey successfully" });
      onSignedIn();
    } catch (err) {
      const text = authenticationFailure(err);
      onError?.(text);
      toast({ title: "Passkey sign-in failed", description: text, variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button variant="secondary" className="w-full" onClick={signIn} disabled={busy}>
      {busy ? "Waiting for your passkey..." : "Sign in with a passkey"}
    </Button>
  );
}
