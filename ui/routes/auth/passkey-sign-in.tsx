import { useEffect, useRef, useState } from "react";
import { Button } from "../../components/ui";
import { storeToken } from "../../lib/api";
import { refreshUser } from "../../lib/auth";
import { authenticationFailure, passkeyOptionsFor, passkeysSupported, signInWithPasskey, type AuthenticationOptions } from "../../lib/passkeys";
import { toast } from "../../lib/toast";

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DEBOUNCE_MS = 400;
/** The server keeps a challenge 5 minutes; older options are fetched again on click. */
const OPTIONS_FRESH_MS = 4 * 60_000;

type Found = { email: string; options: AuthenticationOptions; at: number };

/**
 * 'Sign in with Passkey' under the sign-in form: shown only when this browser supports passkeys and the typed
 * email has some (a debounced authenticate/begin; its options are kept for the click).
 */
export function PasskeySignInButton({ email, onSignedIn, onError }: { email: string; onSignedIn: () => void; onError?: (text: string) => void }) {
  const [found, setFound] = useState<Found | null>(null);
  const [busy, setBusy] = useState(false);
  const supported = useRef(passkeysSupported()).current;
  const typed = email.trim().toLowerCase();

  useEffect(() => {
    if (!supported || !EMAIL_RE.test(typed)) return;
    if (found?.email === typed) return;
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      const options = await passkeyOptionsFor(typed, controller.signal);
      if (!controller.signal.aborted) setFound(options ? { email: typed, options, at: Date.now() } : null);
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [typed, supported]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!supported || !found || found.email !== typed) return null;

  const signIn = async () => {
    if (!typed) {
      toast({ title: "Email Required", description: "Please enter your email address first", variant: "destructive" });
      return;
    }
    setBusy(true);
    try {
      let options = found.options;
      if (Date.now() - found.at > OPTIONS_FRESH_MS) {
        const fresh = await passkeyOptionsFor(typed);
        if (!fresh) throw Object.assign(new Error("No passkey found for this account"), { status: 404 });
        options = fresh;
      }
      // A challenge is used once: whatever happens next, a new attempt needs new options.
      setFound((f) => (f ? { ...f, at: 0 } : f));
      const answer = await signInWithPasskey(options);
      storeToken(answer.token);
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
      {busy ? "Waiting for your passkey..." : "Sign in with Passkey"}
    </Button>
  );
}
