/** The account's sessions, two-factor authentication and passkeys: /api/auth/sessions, /api/auth/2fa, /api/webauthn. */
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { User } from "./auth";
import type { Ok, Routes } from "./types";

type Auth = Routes["api"]["auth"];
type WebAuthn = Routes["api"]["webauthn"];

export type Session = Ok<Auth["sessions"]["get"]>["sessions"][number];
export type TwoFactorStatus = Ok<Auth["2fa"]["status"]["get"]>;
export type TwoFactorSetup = { secret: string; qrCodeUrl: string; manualEntryKey: string };
export type Authenticator = Ok<WebAuthn["authenticators"]["get"]>[number];

export const useSessions = () => useApi<Ok<Auth["sessions"]["get"]>>("/api/auth/sessions");

/** What ending sessions did to the API keys and webhooks they set up (src/auth/session-credentials.ts). */
export type CredentialOutcome = Ok<Auth["sessions"]["revoke-others"]["post"]>["credentials"];

/** Every other session ends, and the API keys and webhooks they set up are revoked unless `keepCredentials`. */
export const revokeOtherSessions = (keepCredentials: boolean) =>
  api<Ok<Auth["sessions"]["revoke-others"]["post"]>>("/api/auth/sessions/revoke-others", { body: { keepCredentials } });

export const revokeSession = (id: string) => api(`/api/auth/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });

export const useTwoFactorStatus = () => useApi<TwoFactorStatus>("/api/auth/2fa/status");

export const beginTwoFactorSetup = () => api<TwoFactorSetup>("/api/auth/2fa/setup", { method: "POST" });

export const enableTwoFactor = (code: string, secret: string) =>
  api<{ backupCodes: string[] }>("/api/auth/2fa/enable", { body: { token: code, secret } });

export const disableTwoFactor = (token: string) => api("/api/auth/2fa/disable", { body: { token } });

export const regenerateBackupCodes = (token: string) =>
  api<{ backupCodes: string[] }>("/api/auth/2fa/regenerate-backup-codes", { body: { token } });

export const usePasskeys = () => useApi<Authenticator[]>("/api/webauthn/authenticators");

export const deletePasskey = (id: string) => api(`/api/webauthn/authenticators/${encodeURIComponent(id)}`, { method: "DELETE" });

/** `proof`: the password (or a current 2FA code) the server asks for again before a new passkey. */
export const beginPasskeyRegistration = (proof: { password?: string; token?: string }) =>
  api<PublicKeyCredentialCreationOptionsJSON>("/api/webauthn/register/begin", { body: proof });

export const completePasskeyRegistration = (credential: unknown, friendlyName: string) =>
  api<{ verified: boolean; error?: string }>("/api/webauthn/register/complete", { body: { credential, friendlyName } });

/** Usernameless: the options name no account; the browser offers the passkeys it holds for this site. */
export const beginPasskeySignIn = () => api<PublicKeyCredentialRequestOptionsJSON>("/api/webauthn/authenticate/begin", { body: {} });

export const completePasskeySignIn = (credential: unknown) =>
  api<{ verified: boolean; token: string; user: User }>("/api/webauthn/authenticate/complete", { body: { credential } });

/** Sudo mode (src/auth/reauth.ts): the password or a current code confirms this session for 10 minutes. */
export const confirmIdentity = (proof: { password?: string; token?: string }) =>
  api<{ success: boolean; confirmedUntil: string }>("/api/auth/confirm", { body: proof });

/** Sudo mode by one of the account's passkeys: the credential of a usernameless ceremony (beginPasskeySignIn). */
export const confirmWithPasskeyCredential = (credential: unknown) =>
  api<{ verified: boolean; confirmedUntil: string }>("/api/webauthn/confirm", { body: { credential } });
