import { useSignals } from "@preact/signals-react/runtime";
import type { ReactNode } from "react";
import { auth } from "../lib/auth";
import { signInHref } from "../lib/next-path";
import { VerifyEmailScreen } from "../routes/auth/verify-email";
import { AppLayout } from "./app-layout";
import { NavigateHref } from "./navigate-href";
import { FullScreenLoader } from "./ui";

/**
 * Signed-in routes: the loader while the session loads, sign-in when signed out (which returns here afterwards),
 * verification when unverified.
 */
export function AuthGate({ children, bare = false }: { children: ReactNode; bare?: boolean }) {
  useSignals();
  const { status, user } = auth.value;
  if (status === "loading") return <FullScreenLoader text="Authenticating..." />;
  if (status === "signed-out" || !user) {
    return <NavigateHref replace href={signInHref(window.location.pathname + window.location.search + window.location.hash)} />;
  }
  if (!user.emailVerified) return <VerifyEmailScreen user={user} />;
  return bare ? <>{children}</> : <AppLayout>{children}</AppLayout>;
}
