import type { Session } from "../../../api/security";

type Credential = Session["credentials"][number];

const KIND_NAMES: Record<Credential["kind"], string> = { api_key: "API key", webhook: "webhook" };
export const credentialName = (c: Credential) => `${KIND_NAMES[c.kind]} “${c.name}”`;

/**
 * Ending sessions revokes, by default, the API keys and webhooks they set up (src/auth/session-credentials.ts): a
 * stolen session's credentials must not outlive it. This says which (when known) and offers to keep them.
 * `credentials`: those the sessions to be ended set up, or null where the page cannot know (the reset screen).
 */
export function KeepCredentials({
  id,
  credentials,
  keep,
  onChange,
}: {
  id: string;
  credentials: Credential[] | null;
  keep: boolean;
  onChange: (keep: boolean) => void;
}) {
  if (credentials && credentials.length === 0) return null;
  return (
    <div className="space-y-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-slate-700" data-testid="keep-credentials">
      <p>
        {credentials
          ? `The API keys and webhooks those sessions set up will be revoked too: ${credentials.map(credentialName).join(", ")}.`
          : "The API keys and webhooks that your signed-in sessions set up will be revoked too."}{" "}
        If someone else had your password, they stop working with the sessions.
      </p>
      <label htmlFor={id} className="flex items-start gap-2">
        <input id={id} type="checkbox" className="mt-1" checked={keep} onChange={(e) => onChange(e.target.checked)} />
        <span>Keep them: they were set up by me</span>
      </label>
    </div>
  );
}
