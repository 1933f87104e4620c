import { useSignals } from "@preact/signals-react/runtime";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { Logo } from "../../components/public-layout";
import { NavigateHref } from "../../components/navigate-href";
import { Alert, Card } from "../../components/ui";
import { auth } from "../../lib/auth";
import { forgetNextAfterGoogle, nextAfterGoogle } from "../../lib/next-path";
import { authRoute } from "../../router";
import { TwoFactorForm } from "./auth-forms";
import { AuthTabs } from "./auth-tabs";

export function AuthShell({ children }: { children: React.ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center gap-6 bg-slate-50 p-4">
      <Logo />
      <Card className="w-full max-w-md p-6">{children}</Card>
    </div>
  );
}

export function AuthPage() {
  useSignals();
  const navigate = useNavigate();
  const search = authRoute.useSearch();
  // Google sign-in of an account with 2FA comes back as /auth?step=2fa: the code step, its token in a cookie.
  const [codeStep, setCodeStep] = useState(() => search.step === "2fa");
  // Back to the page that sent the user here (?next=, same-origin paths only, ui/lib/search.ts; kept in the tab
  // across Google's round trip), else home.
  const [next] = useState(() => search.next ?? (codeStep ? nextAfterGoogle() : null) ?? "/");
  const signedIn = () => {
    forgetNextAfterGoogle();
    void navigate({ href: next });
  };
  if (auth.value.status === "signed-in") return <NavigateHref href={next} replace />;
  if (codeStep) {
    const leave = () => {
      setCodeStep(false);
      window.history.replaceState(null, "", "/auth");
    };
    return (
      <AuthShell>
        <TwoFactorForm onBack={leave} onSignedIn={signedIn} />
      </AuthShell>
    );
  }
  return (
    <AuthShell>
      <ProviderError message={search.error} />
      <AuthTabs initialTab="signin" next={search.next} onSignedIn={signedIn} onRegistered={() => navigate({ to: "/onboarding" })} />
    </AuthShell>
  );
}

/** A failed Google sign-in comes back as /auth?error=...; show it once, readable. */
function ProviderError({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <div className="mb-4">
      <Alert>{message}</Alert>
    </div>
  );
}
