import { eq } from "drizzle-orm";
import { t } from "elysia";
import { sessions } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { credentialMadeEmail } from "../mail/templates";
import { findUserById } from "../users/queries";
import { describeDevice, listSessions, revokeOtherSessions } from "./sessions";

/**
 * Credentials a session makes that outlive it: API keys and webhooks (their URL and secret). Each remembers the
 * session that made it (created_by_session, migration 0051), so that when the owner ends sessions they no longer
 * trust (a password change, a password reset, "sign out of all other sessions") what those sessions made ends
 * with them, unless the owner chooses to keep it. Their domains sit above auth and register here (server.ts).
 */

/** Whether to keep the API keys and webhooks that the sessions being ended set up (they are revoked by default). */
export const keepCredentialsField = t.Optional(t.Boolean({ error: "keepCredentials is true or false" }));

export type CredentialKind = "api_key" | "webhook";
/** One credential a session made that still works. */
export type MadeCredential = { kind: CredentialKind; id: string; name: string; sessionId: string };

export type CredentialHolder = {
  kind: CredentialKind;
  /** The account's working credentials of this kind made by one of `sessionIds`. */
  madeBy(ctx: AppContext, userId: string, sessionIds: string[]): Promise<MadeCredential[]>;
  /** Ends them for good (a key revoked, a webhook turned off), `reason` kept where the owner sees it. */
  end(ctx: AppContext, userId: string, ids: string[], reason: string): Promise<void>;
};

const holders = new WeakMap<AppContext, CredentialHolder[]>();

export function registerCredentialHolder(ctx: AppContext, holder: CredentialHolder) {
  holders.set(ctx, [...(holders.get(ctx) ?? []).filter((h) => h.kind !== holder.kind), holder]);
}

export async function credentialsMadeBy(ctx: AppContext, userId: string, sessionIds: string[]): Promise<MadeCredential[]> {
  if (sessionIds.length === 0) return [];
  const made: MadeCredential[] = [];
  for (const holder of holders.get(ctx) ?? []) made.push(...(await holder.madeBy(ctx, userId, sessionIds)));
  return made;
}

/** What ending some sessions did to the credentials they made: ended (the default) or kept at the owner's choice. */
export type CredentialOutcome = { revoked: MadeCredential[]; kept: MadeCredential[] };

/**
 * Ends the credentials the sessions `sessionIds` made, unless `keep`; answers which. `why` completes "Revoked
 * when ..." (e.g. "the password was changed"), the reason shown beside each.
 */
export async function endCredentialsOfSessions(
  ctx: AppContext,
  userId: string,
  sessionIds: string[],
  keep: boolean,
  why: string,
): Promise<CredentialOutcome> {
  const made = await credentialsMadeBy(ctx, userId, sessionIds);
  if (keep || made.length === 0) return { revoked: [], kept: made };
  const reason = `Revoked when ${why}: the session that set it up was signed out`;
  for (const holder of holders.get(ctx) ?? []) {
    const ids = made.filter((c) => c.kind === holder.kind).map((c) => c.id);
    if (ids.length) await holder.end(ctx, userId, ids, reason);
  }
  return { revoked: made, kept: [] };
}

/** "Sign out of all other sessions": they end, and what they set up with them unless `keep`; in one transaction. */
export async function signOutOtherSessions(ctx: AppContext, userId: string, keepSessionId: string, keep: boolean) {
  return ctx.withTransaction(async () => {
    const ended = await revokeOtherSessions(ctx, userId, keepSessionId);
    return { ended: ended.length, credentials: await endCredentialsOfSessions(ctx, userId, ended, keep, "you signed out of your other sessions") };
  });
}

/** A credential's public shape in an answer: what it is and its name. */
export const credentialView = ({ kind, id, name }: MadeCredential) => ({ kind, id, name });

const KIND_NAMES: Record<CredentialKind, string> = { api_key: "API key", webhook: "webhook" };
const listed = (made: MadeCredential[]) => made.map((c) => `${KIND_NAMES[c.kind]} "${c.name}"`).join(", ");

/**
 * What an answer says of the credentials: those revoked and those kept, each by name, and one sentence for people
 * ("Revoked what those sessions set up: API key "Zapier", webhook "CRM".", or empty when they set up nothing).
 */
export function outcomeView(o: CredentialOutcome) {
  const summary = o.revoked.length
    ? `Revoked what those sessions set up: ${listed(o.revoked)}.`
    : o.kept.length
      ? `Kept what those sessions set up: ${listed(o.kept)}.`
      : "";
  return { revoked: o.revoked.map(credentialView), kept: o.kept.map(credentialView), summary };
}

/**
 * The account's working sessions (listSessions), each with the working credentials it set up, so the owner sees
 * what signing it out would revoke.
 */
export async function sessionsWithCredentials(ctx: AppContext, userId: string, currentSessionId: string) {
  const list = await listSessions(ctx, userId, currentSessionId);
  const made = await credentialsMadeBy(ctx, userId, list.map((s) => s.id));
  return list.map((s) => ({ ...s, credentials: made.filter((c) => c.sessionId === s.id).map(credentialView) }));
}

/**
 * Tells the owner by email that a session of theirs made a credential (or changed where a webhook sends): what,
 * when, and from which device and address, so a session they do not know about is noticed. Not awaited by the
 * request: a slow mail server neither delays nor fails the change; a failure is logged (what is awaited is the
 * reading of the account and the session).
 */
export async function noticeCredentialMade(
  ctx: AppContext,
  made: { userId: string; sessionId: string | null; what: string; details: string[]; at: number },
): Promise<void> {
  const user = await findUserById(ctx, made.userId);
  if (!user) return;
  await ready(ctx.db);
  const session = made.sessionId ? await ctx.records.select().from(sessions).where(eq(sessions.id, made.sessionId)).get() : undefined;
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
