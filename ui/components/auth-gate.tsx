import { useSignals } from "@preact/signals-react/runtime";
import { Navigate } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { auth } from "../lib/auth";
import { VerifyEmailScreen } from "../routes/auth/verify-email";
import { AppLayout } from "./app-layout";
import { FullScreenLoader } from "./ui";

/** Signed-in routes: the loader while the session loads, sign-in when signed out, verification when unverified. */
export function AuthGate({ children, bare = false }: { children: ReactNode; bare?: boolean }) {
  useSignals();
  const { status, user } = auth.value;
  if (status === "loading") return <FullScreenLoader text="Authenticating..." />;
  if (status === "signed-out" || !user) return <Navigate to="/auth" replace />;
  if (!user.emailVerified) return <VerifyEmailScreen user={user} />;
  return bare ? <>{children}</> : <AppLayout>{children}</AppLayout>;
}
