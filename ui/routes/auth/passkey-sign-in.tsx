import { useRef } from "react";
import { Button } from "../../components/ui";
import { refreshUser } from "../../lib/auth";
import { authenticationFailure, passkeysSupported, signInWithPasskey } from "../../lib/passkeys";
import { toast } from "../../lib/toast";
import { useMutation } from "../../lib/use-mutation";

/**
 * 'Sign in with a passkey' under the sign-in form, whenever this browser supports passkeys: usernameless, the
 * browser offers the passkeys it holds for this site. It does not depend on the typed email, so the page tells
 * nobody which emails have accounts or passkeys.
 */
export function PasskeySignInButton({ onSignedIn, onError }: { onSignedIn: () => void; onError?: (text: string) => void }) {
  const signIn = useMutation(
    async () => {
      try {
        await signInWithPasskey();
        await refreshUser();
      } catch (err) {
        // The browser's refusals read as the spec's words, in the toast and in the form above.
        const text = authenticationFailure(err);
        onError?.(text);
        throw new Error(text);
      }
    },
    {
      onSuccess: () => {
        toast({ title: "Signed in with passkey successfully" });
        onSignedIn();
      },
      failureToast: "Passkey sign-in failed",
    },
  );
  const supported = useRef(passkeysSupported()).current;
  if (!supported) return null;

  return (
    <Button variant="secondary" className="w-full" onClick={() => signIn.run()} disabled={signIn.busy}>
      {signIn.busy ? "Waiting for your passkey..." : "Sign in with a passkey"}
    </Button>
  );
}
