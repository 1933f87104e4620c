import { useNavigate } from "@tanstack/react-router";
import { useEffect, useRef, useState } from "react";
import { Alert, Button } from "../../components/ui";
import { sendVerificationEmail, verifyEmail } from "../../api/auth";
import { ApiError } from "../../lib/api";
import { logout, setUser, type User } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { submitWith, useMutation } from "../../lib/use-mutation";
import { AuthShell } from "./auth-page";
import { CodeFields } from "./code-fields";

const COOLDOWN = 60;

/** Replaces the whole app until the account's email is verified. */
export function VerifyEmailScreen({ user }: { user: User }) {
  const navigate = useNavigate();
  const [code, setCode] = useState("");
  const [verified, setVerified] = useState(false);
  const [cooldown, setCooldown] = useState(0);
  const autoSent = useRef(false);

  useEffect(() => {
    if (cooldown <= 0) return;
    const timer = setTimeout(() => setCooldown((c) => c - 1), 1000);
    return () => clearTimeout(timer);
  }, [cooldown]);

  const send = async (quiet: boolean) => {
    try {
      const answer = await sendVerificationEmail();
      setCooldown(answer.retryAfter ?? COOLDOWN);
      if (!quiet) toast({ title: "Code sent", description: `We sent a new code to ${user.email}.` });
    } catch (err) {
      // A code sent moments ago (at sign-up) is still valid: just show how long until a new one.
      if (err instanceof ApiError && err.code === "rate_limited") return setCooldown(Number(err.body.retryAfter) || COOLDOWN);
      toast({ title: "Failed to send verification email", description: (err as Error).message, variant: "destructive" });
    }
  };

  useEffect(() => {
    if (autoSent.current) return;
    autoSent.current = true;
    void send(true);
  }, []);

  const verify = useMutation(() => verifyEmail(code), {
    onSuccess: (answer) => {
      setVerified(true);
      setTimeout(() => {
        setUser(answer.user);
        // First the setup wizard (business name, customers, time zone and country); it ends on /dashboard.
        void navigate({ to: "/onboarding" });
      }, 1500);
    },
    success: "Email verified successfully!",
    fallback: "Invalid verification code",
    failureToast: "Verification failed",
  });
  const { busy, error, setError } = verify;
  const submit = submitWith(() => (!/^\d{6}$/.test(code) ? setError("Please enter a 6-digit verification code") : verify.run()));

  const signOut = async () => {
    await logout().catch(() => undefined);
    void navigate({ to: "/" });
  };

  return (
    <AuthShell>
      <h1 className="text-xl font-semibold">Verify your email</h1>
      <p className="mt-1 text-sm text-slate-600">
        We sent a 6-digit code to <strong>{user.email}</strong>. Enter it below to activate your account.
      </p>
      {verified ? (
        <Alert tone="success">Email verified successfully! Next, a few questions to set up your account…</Alert>
      ) : (
        <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
          {error && <Alert>{error}</Alert>}
          <CodeFields id="verify-code" code={code} onCode={setCode} busy={busy} cooldown={cooldown} onResend={() => send(false)} />
        </form>
      )}
      <ul className="mt-6 space-y-1 text-sm text-slate-600">
        <li>✓ Keeps your account and your customers' data safe</li>
        <li>✓ Lets us send you password resets and important notices</li>
        <li>✓ Unlocks campaigns, contacts and two-way texting</li>
      </ul>
      <Button variant="ghost" className="mt-4 w-full" onClick={signOut}>
        Sign Out
      </Button>
    </AuthShell>
  );
}
