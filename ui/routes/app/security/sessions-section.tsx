import { useRef } from "react";
import { Alert, Button, Card, Spinner } from "../../../components/ui";
import { revokeOtherSessions, revokeSession, useSessions, type Session } from "../../../api/security";
import { errorMessage } from "../../../lib/api";
import { Badge } from "../../../components/badge";
import { useConfirm } from "../../../components/confirm-dialog";
import { accountTime } from "../../../lib/format";
import { useMutation } from "../../../lib/use-mutation";
import { credentialName } from "./keep-credentials";

// In the account's zone (Account Settings), like every other time in the app.
const when = (iso: string) => accountTime(iso);

/** Where the account is signed in on /settings/security: each session, signing one out, or all but this one. */
export function SessionsSection() {
  const { data, loading, error, reload } = useSessions();
  const { ask, dialog } = useConfirm();
  const sessions = data?.sessions ?? [];
  const others = sessions.filter((s) => !s.current).length;
  const keep = useRef(false);

  const othersRun = useMutation(revokeOtherSessions, {
    onSuccess: () => reload(),
    success: (answer) => {
      const signedOut = `${answer.revoked} session${answer.revoked === 1 ? "" : "s"} signed out.`;
      return { title: "Signed out of other sessions", description: [signedOut, answer.credentials.summary].filter(Boolean).join(" ") };
    },
    fallback: "",
    failureToast: "Failed to sign out other sessions",
  });

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
    if (ok) await othersRun.run(keep.current);
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
          <Button variant="secondary" onClick={signOutOthers} disabled={othersRun.busy || others === 0}>
            {othersRun.busy ? "Signing out..." : "Sign out of all other sessions"}
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
                  <EndSession session={s} onEnded={reload} />
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Card>
  );
}

/** One other session's "End session": each row has its own, so ending one leaves the others' buttons as they are. */
function EndSession({ session, onEnded }: { session: Session; onEnded: () => unknown }) {
  const end = useMutation(() => revokeSession(session.id), {
    onSuccess: onEnded,
    success: { title: "Session ended", description: session.device },
    fallback: "",
    failureToast: "Failed to end the session",
  });
  return (
    <Button variant="ghost" onClick={() => void end.run()} disabled={end.busy} aria-label={`End the session on ${session.device}`}>
      End session
    </Button>
  );
}
