import { useRef, useState } from "react";
import { Alert, Button, Card, Spinner } from "../../../components/ui";
import { revokeOtherSessions, revokeSession, useSessions, type Session } from "../../../api/security";
import { errorMessage } from "../../../lib/api";
import { Badge } from "../../../components/badge";
import { useConfirm } from "../../../components/confirm-dialog";
import { accountTime } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { credentialName } from "./keep-credentials";

// In the account's zone (Account Settings), like every other time in the app.
const when = (iso: string) => accountTime(iso);

/** Where the account is signed in on /settings/security: each session, signing one out, or all but this one. */
export function SessionsSection() {
  const { data, loading, error, reload } = useSessions();
  const [busy, setBusy] = useState<string | null>(null);
  const { ask, dialog } = useConfirm();
  const sessions = data?.sessions ?? [];
  const others = sessions.filter((s) => !s.current).length;
  const keep = useRef(false);

  const signOutOthers = async () => {
    const made = sessions.filter((s) => !s.current).flatMap((s) => s.credentials);
    keep.current = false;
    const ok = await ask({
      title: "Sign out other sessions",
      message: (
        <span className="block space-y-3">
          <span className="block">Sign out of every other session? Anyone signed in elsewhere with your account will have to sign in again.</span>
          {made.length > 0 && (
            <span className="block space-y-2 rounded-lg border border-amber-200 bg-amber-50 p-3" data-testid="keep-credentials">
              <span className="block">
                The API keys and webhooks those sessions set up will be revoked too: {made.map(credentialName).join(", ")}.
              </span>
              <label className="flex items-start gap-2">
                <input type="checkbox" className="mt-1" onChange={(e) => (keep.current = e.target.checked)} />
                <span>Keep them: they were set up by me</span>
              </label>
            </span>
          )}
        </span>
      ),
      confirmLabel: "Sign out",
    });
    if (!ok) return;
    setBusy("others");
    try {
      const answer = await revokeOtherSessions(keep.current);
      const signedOut = `${answer.revoked} session${answer.revoked === 1 ? "" : "s"} signed out.`;
      toast({ title: "Signed out of other sessions", description: [signedOut, answer.credentials.summary].filter(Boolean).join(" ") });
      await reload();
    } catch (err) {
      toast({ title: "Failed to sign out other sessions", description: errorMessage(err, ""), variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };

  const signOut = async (session: Session) => {
    setBusy(session.id);
    try {
      await revokeSession(session.id);
      toast({ title: "Session ended", description: session.device });
      await reload();
    } catch (err) {
      toast({ title: "Failed to end the session", description: errorMessage(err, ""), variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card className="p-6">
      {dialog}
      <section aria-labelledby="sessions-heading" className="space-y-4">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <h2 id="sessions-heading" className="text-lg font-semibold">
              Where you're signed in
            </h2>
            <p className="text-sm text-slate-600">Sign out anything you don't recognise, then change your password.</p>
          </div>
          <Button variant="secondary" onClick={signOutOthers} disabled={busy === "others" || others === 0}>
            {busy === "others" ? "Signing out..." : "Sign out of all other sessions"}
          </Button>
        </div>
        {loading && !data ? (
          <div className="flex justify-center py-4">
            <Spinner />
          </div>
        ) : error ? (
          <Alert>{errorMessage(error, "Failed to load your sessions")}</Alert>
        ) : (
          <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200" aria-label="Your sessions">
            {sessions.map((s) => (
              <li key={s.id} className="flex flex-wrap items-center justify-between gap-3 p-3" data-testid="session-item">
                <div className="min-w-0">
                  <p className="font-medium">
                    {s.device}
                    {s.current && (
                      <Badge tone="green" className="ml-2">
                        This device
                      </Badge>
                    )}
                  </p>
                  <p className="text-xs text-slate-500">
                    {s.ip ?? "Unknown address"} · Last seen {when(s.lastSeenAt)} · Signed in {when(s.createdAt)}
                  </p>
                  {s.credentials.length > 0 && (
                    <p className="text-xs text-slate-600" data-testid="session-credentials">
                      Set up {s.credentials.map(credentialName).join(", ")}
                    </p>
                  )}
                </div>
                {!s.current && (
                  <Button
                    variant="ghost"
                    onClick={() => signOut(s)}
                    disabled={busy === s.id}
                    aria-label={`End the session on ${s.device}`}
                  >
                    End session
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Card>
  );
}
