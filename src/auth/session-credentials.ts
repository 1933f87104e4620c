import { eq } from "drizzle-orm";
import { sessions } from "../../db/schema";
import type { AppContext } from "../context";
import { credentialMadeEmail } from "../mail/templates";
import { findUserById } from "../users/queries";
import { describeDevice } from "./sessions";

/**
 * Credentials a session makes that outlive it: API keys and webhooks (their URL and secret). Each remembers the
 * session that made it (created_by_session, migration 0052), so that when the owner ends sessions they no longer
 * trust (a password change, a password reset, "sign out of all other sessions") what those sessions made ends
 * with them, unless the owner chooses to keep it. Their domains sit above auth and register here (server.ts).
 */

export type CredentialKind = "api_key" | "webhook";
/** One credential a session made that still works. */
export type MadeCredential = { kind: CredentialKind; id: string; name: string; sessionId: string };

export type CredentialHolder = {
  kind: CredentialKind;
  /** The account's working credentials of this kind made by one of `sessionIds`. */
  madeBy(ctx: AppContext, userId: string, sessionIds: string[]): MadeCredential[];
  /** Ends them for good (a key revoked, a webhook turned off), `reason` kept where the owner sees it. */
  end(ctx: AppContext, userId: string, ids: string[], reason: string): void;
};

const holders = new WeakMap<AppContext, CredentialHolder[]>();

export function registerCredentialHolder(ctx: AppContext, holder: CredentialHolder) {
  holders.set(ctx, [...(holders.get(ctx) ?? []).filter((h) => h.kind !== holder.kind), holder]);
}

export function credentialsMadeBy(ctx: AppContext, userId: string, sessionIds: string[]): MadeCredential[] {
  if (sessionIds.length === 0) return [];
  return (holders.get(ctx) ?? []).flatMap((h) => h.madeBy(ctx, userId, sessionIds));
}

/** What ending some sessions did to the credentials they made: ended (the default) or kept at the owner's choice. */
export type CredentialOutcome = { revoked: MadeCredential[]; kept: MadeCredential[] };

/**
 * Ends the credentials the sessions `sessionIds` made, unless `keep`; answers which. `why` completes "Revoked
 * when ..." (e.g. "the password was changed"), the reason shown beside each.
 */
export function endCredentialsOfSessions(ctx: AppContext, userId: string, sessionIds: string[], keep: boolean, why: string): CredentialOutcome {
  const made = credentialsMadeBy(ctx, userId, sessionIds);
  if (keep || made.length === 0) return { revoked: [], kept: made };
  const reason = `Revoked when ${why}: the session that set it up was signed out`;
  for (const holder of holders.get(ctx) ?? []) {
    const ids = made.filter((c) => c.kind === holder.kind).map((c) => c.id);
    if (ids.length) holder.end(ctx, userId, ids, reason);
  }
  return { revoked: made, kept: [] };
}

/** A credential's public shape in an answer: what it is and its name. */
export const credentialView = ({ kind, id, name }: MadeCredential) => ({ kind, id, name });
export const outcomeView = (o: CredentialOutcome) => ({ revoked: o.revoked.map(credentialView), kept: o.kept.map(credentialView) });

/**
 * Tells the owner by email that a session of theirs made a credential (or changed where a webhook sends): what,
 * when, and from which device and address, so a session they do not know about is noticed. Not awaited by the
 * request: a slow mail server neither delays nor fails the change; a failure is logged.
 */
export function noticeCredentialMade(
  ctx: AppContext,
  made: { userId: string; sessionId: string | null; what: string; details: string[]; at: number },
) {
  const user = findUserById(ctx, made.userId);
  if (!user) return;
  const session = made.sessionId ? ctx.db.select().from(sessions).where(eq(sessions.id, made.sessionId)).get() : undefined;
  const from = session
    ? `${describeDevice(session.userAgent)}, IP address ${session.ip ?? "unknown"}, a session signed in ${formatTime(session.createdAt.getTime(), user.timezone)}`
    : "unknown session";
  const email = credentialMadeEmail(user.email, {
    what: made.what,
    details: made.details,
    when: formatTime(made.at, user.timezone),
    from,
    securityUrl: `${ctx.config.publicUrl}/settings/security`,
  });
  ctx.mailer.send(email).catch((err: Error) => ctx.log(`mail error: ${email.purpose} to ${user.email}: ${err.message}`));
}

/** "Dec 6, 2026, 7:50 PM EST" in the account's zone (UTC if the zone is unknown to this runtime). */
function formatTime(at: number, timeZone: string): string {
  const options: Intl.DateTimeFormatOptions = { dateStyle: "medium", timeStyle: "short" };
  try {
    return `${new Intl.DateTimeFormat("en-US", { ...options, timeZone }).format(at)} (${timeZone})`;
  } catch {
    return `${new Intl.DateTimeFormat("en-US", { ...options, timeZone: "UTC" }).format(at)} (UTC)`;
  }
}
