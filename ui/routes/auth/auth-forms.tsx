import { useEffect, useState } from "react";
import { Alert, Button, Field, Input } from "../../components/ui";
import { requestPasswordReset, resendSignUpCode, signInSecondStep, type SignUpStarted } from "../../api/auth";
import { ApiError } from "../../lib/api";
import { finishRegistration, login, refreshUser, register } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { submitWith, useMutation } from "../../lib/use-mutation";
import { CodeFields } from "./code-fields";
import { PasskeySignInButton } from "./passkey-sign-in";

/** The spec's sign-in error wording, by the server's error code: a wrong email or password, or a blocked address. */
export function loginFailureText(err: unknown): string {
  if (err instanceof ApiError && err.code === "unauthorized") return "Invalid email or password. Please check your credentials and try again.";
  if (err instanceof ApiError && err.code === "locked") return "Account temporarily locked due to multiple failed attempts. Please try again later.";
  return (err instanceof Error && err.message) || "Login failed";
}

export function PasswordInput(props: { id: string; value: string; onChange: (v: string) => void; autoComplete: string }) {
  const [shown, setShown] = useState(false);
  return (
    <div className="relative">
      <Input
        id={props.id}
        type={shown ? "text" : "password"}
        value={props.value}
        autoComplete={props.autoComplete}
        onChange={(e) => props.onChange(e.target.value)}
        className="pr-16"
      />
      <button
        type="button"
        className="absolute inset-y-0 right-2 my-auto h-7 rounded px-2 text-xs text-slate-600 hover:bg-slate-100"
        aria-label={shown ? "Hide password" : "Show password"}
        onClick={() => setShown(!shown)}
      >
        {shown ? "Hide" : "Show"}
      </button>
    </div>
  );
}

export function SignInForm({ onSignedIn, onForgot }: { onSignedIn: () => void; onForgot: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [pendingToken, setPendingToken] = useState<string | null>(null);
  const signIn = useMutation(
    // The spec's wording replaces the server's message, in the form and in the toast.
    () => login(email.trim(), password).catch((err: unknown) => Promise.reject(new Error(loginFailureText(err)))),
    {
      onSuccess: (answer) => (answer.requires2FA && answer.pendingToken ? setPendingToken(answer.pendingToken) : onSignedIn()),
      fallback: "Login failed",
      failureToast: "Login Failed",
    },
  );
  const { busy, error, setError } = signIn;
  const submit = submitWith(() => (!email.trim() || !password ? setError("Please fill in all fields") : signIn.run()));

  if (pendingToken) {
    return <TwoFactorForm pendingToken={pendingToken} onBack={() => setPendingToken(null)} onSignedIn={onSignedIn} />;
  }
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      {error && <Alert>{error}</Alert>}
      <Field label="Email" htmlFor="signin-email">
        <Input id="signin-email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <Field label="Password" htmlFor="signin-password">
        <PasswordInput id="signin-password" autoComplete="current-password" value={password} onChange={setPassword} />
      </Field>
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Signing in..." : "Sign In"}
      </Button>
      <PasskeySignInButton onSignedIn={onSignedIn} onError={setError} />
      <button type="button" className="w-full text-center text-sm text-brand-700 hover:underline" onClick={onForgot}>
        Forgot your password?
      </button>
    </form>
  );
}

/**
 * The code step of a sign-in. `pendingToken` comes from the password step's answer; after Google the server keeps
 * it in an httpOnly cookie instead, so it is absent here and the browser sends the cookie.
 */
export function TwoFactorForm({ pendingToken, onBack, onSignedIn }: { pendingToken?: string; onBack: () => void; onSignedIn: () => void }) {
  const [code, setCode] = useState("");
  const verify = useMutation(
    async () => {
      await signInSecondStep(pendingToken, code);
      await refreshUser();
    },
    { onSuccess: onSignedIn, fallback: "Invalid verification code" },
  );
  const { busy, error, setError } = verify;
  const submit = submitWith(() =>
    // A 6-digit code from the app, or one of the backup codes ("ABCD-EFGH").
    !/^\d{6}$/.test(code) && !/^[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}$/.test(code) ? setError("Please enter a valid 6-digit code") : verify.run(),
  );
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <p className="text-sm text-slate-600">Enter the 6-digit code from your authenticator app.</p>
      <p className="text-xs text-slate-500">Lost your phone? Enter one of your backup codes instead.</p>
      {error && <Alert>{error}</Alert>}
      <Field label="Verification code" htmlFor="twofa-code">
        <Input
          id="twofa-code"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={9}
          value={code}
          onChange={(e) => setCode(e.target.value.replace(/\s/g, ""))}
        />
      </Field>
      <Button type="submit" className="w-full" disabled={busy}>
        Verify & Continue
      </Button>
      <Button variant="ghost" className="w-full" onClick={onBack}>
        Back to Login
      </Button>
    </form>
  );
}

export function SignUpForm({ onRegistered }: { onRegistered: () => void }) {
  const [form, setForm] = useState({
    firstName: "",
    lastName: "",
    email: "",
    phone: "",
    password: "",
    confirmPassword: "",
    licenseCode: "",
  });
  const [started, setStarted] = useState<SignUpStarted | null>(null);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const validate = () => {
    if (!form.email.trim() || !form.password) return "Email and password are required";
    if (!form.confirmPassword) return "Please confirm your password";
    if (form.password.length < 6) return "Password must be at least 6 characters";
    if (form.password !== form.confirmPassword) return "Passwords do not match";
    return null;
  };

  const signUp = useMutation(
    () =>
      register({
        ...form,
        email: form.email.trim(),
        phone: form.phone.trim() || undefined,
        licenseCode: form.licenseCode.trim() || undefined,
      }),
    { onSuccess: setStarted, fallback: "Registration failed" },
  );
  const { busy, error, setError } = signUp;
  const submit = submitWith(() => {
    const invalid = validate();
    return invalid ? setError(invalid) : signUp.run();
  });

  if (started) return <SignUpCodeStep started={started} onBack={() => setStarted(null)} onRegistered={onRegistered} />;
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      {error && <Alert>{error}</Alert>}
      <div className="grid grid-cols-2 gap-3">
        <Field label="First name" htmlFor="signup-first">
          <Input id="signup-first" autoComplete="given-name" value={form.firstName} onChange={(e) => set("firstName")(e.target.value)} />
        </Field>
        <Field label="Last name" htmlFor="signup-last">
          <Input id="signup-last" autoComplete="family-name" value={form.lastName} onChange={(e) => set("lastName")(e.target.value)} />
        </Field>
      </div>
      <Field label="Email" htmlFor="signup-email">
        <Input id="signup-email" type="email" autoComplete="email" value={form.email} onChange={(e) => set("email")(e.target.value)} />
      </Field>
      <Field label="Phone (optional)" htmlFor="signup-phone">
        <Input id="signup-phone" type="tel" autoComplete="tel" value={form.phone} onChange={(e) => set("phone")(e.target.value)} />
      </Field>
      <Field label="Password" htmlFor="signup-password" hint="At least 6 characters">
        <PasswordInput id="signup-password" autoComplete="new-password" value={form.password} onChange={set("password")} />
      </Field>
      <Field label="Confirm password" htmlFor="signup-confirm">
        <PasswordInput id="signup-confirm" autoComplete="new-password" value={form.confirmPassword} onChange={set("confirmPassword")} />
      </Field>
      <Field label="License code (optional)" htmlFor="signup-license" hint="Codes from deal platforms can also be redeemed later.">
        <Input
          id="signup-license"
          maxLength={23}
          value={form.licenseCode}
          onChange={(e) => set("licenseCode")(e.target.value.toUpperCase())}
        />
      </Field>
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Creating account..." : "Create Account"}
      </Button>
    </form>
  );
}

const RESEND_COOLDOWN = 60;

/**
 * The emailed code's step of a sign-up: the code signs the new account in. Every sign-up reaches it, an address with
 * an account too (its owner is emailed instead), so the form never tells anyone which addresses have accounts.
 */
function SignUpCodeStep({ started, onBack, onRegistered }: { started: SignUpStarted; onBack: () => void; onRegistered: () => void }) {
  const [code, setCode] = useState("");
  const [cooldown, setCooldown] = useState(RESEND_COOLDOWN);
  useEffect(() => {
    if (cooldown <= 0) return;
    const timer = setTimeout(() => setCooldown((c) => c - 1), 1000);
    return () => clearTimeout(timer);
  }, [cooldown]);

  const finish = useMutation(() => finishRegistration(started.signupToken, code), {
    onSuccess: (answer) => {
      toast({ title: "Email verified successfully!" });
      if (answer.licenseRedeemed) toast({ title: "License Activated!", description: `Your ${answer.licensePlan} plan is active.` });
      else if (answer.licenseError) toast({ title: "License code not redeemed", description: answer.licenseError, variant: "destructive" });
      onRegistered();
    },
    fallback: "Invalid verification code",
  });
  const { busy, error, setError } = finish;
  const submit = submitWith(() => (!/^\d{6}$/.test(code) ? setError("Please enter a 6-digit verification code") : finish.run()));
  const resend = async () => {
    try {
      setCooldown((await resendSignUpCode(started.signupToken)).retryAfter ?? RESEND_COOLDOWN);
      toast({ title: "Code sent", description: `We sent a new code to ${started.email}.` });
    } catch (err) {
      if (err instanceof ApiError && err.code === "rate_limited") setCooldown(Number(err.body.retryAfter) || RESEND_COOLDOWN);
      setError(err instanceof Error && err.message ? err.message : "Failed to send verification email");
    }
  };
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <h2 className="text-lg font-semibold">Verify your email</h2>
      <p className="text-sm text-slate-600">{started.message}</p>
      {error && <Alert>{error}</Alert>}
      <CodeFields id="signup-code" code={code} onCode={setCode} busy={busy} cooldown={cooldown} onResend={resend} />
      <Button variant="ghost" className="w-full" onClick={onBack}>
        Back to Sign Up
      </Button>
    </form>
  );
}

export function ForgotPasswordForm({ onBack }: { onBack?: () => void }) {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState<{ debugToken?: string } | null>(null);
  const request = useMutation(() => requestPasswordReset(email.trim()), {
    onSuccess: setSent,
    fallback: "Failed to send reset link",
    failureToast: "Failed to send reset email",
  });
  const { busy, error, setError } = request;
  const submit = submitWith(() => (!email.trim() ? setError("Please enter your email address") : request.run()));

  if (sent) {
    return (
      <div className="space-y-4">
        <h2 className="text-lg font-semibold">Email Sent</h2>
        <p className="text-sm text-slate-600">
          If an account exists for <strong>{email}</strong>, a link to reset its password is on its way.
        </p>
        <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-600">
          <li>Open the email from smsdesk (check your spam folder too).</li>
          <li>Click the reset link; it works once and expires in 60 minutes.</li>
          <li>Choose a new password and sign in.</li>
        </ol>
        {sent.debugToken && (
          <Alert tone="info">
            Demo Mode: no mail server is configured.{" "}
            <a className="font-medium underline" href={`/auth/reset-password?token=${sent.debugToken}`}>
              Reset your password directly
            </a>
          </Alert>
        )}
        <Button variant="secondary" className="w-full" onClick={() => setSent(null)}>
          Try again
        </Button>
        {onBack && (
          <Button variant="ghost" className="w-full" onClick={onBack}>
            Back to Sign In
          </Button>
        )}
      </div>
    );
  }
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <p className="text-sm text-slate-600">Enter your email and we will send you a link to reset your password.</p>
      {error && <Alert>{error}</Alert>}
      <Field label="Email" htmlFor="forgot-email">
        <Input id="forgot-email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Sending..." : "Send Reset Link"}
      </Button>
      {onBack && (
        <Button variant="ghost" className="w-full" onClick={onBack}>
          Back to Sign In
        </Button>
      )}
    </form>
  );
}
