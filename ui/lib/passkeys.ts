/** The browser side of passkeys: support detection and the spec's messages for WebAuthn failures. */
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import {
  beginPasskeyRegistration,
  beginPasskeySignIn,
  completePasskeyRegistration,
  completePasskeySignIn,
  confirmWithPasskeyCredential,
  type Authenticator,
} from "../api/security";
import { ApiError } from "./api";

export type { Authenticator };

export const passkeysSupported = () =>
  typeof window !== "undefined" && typeof window.PublicKeyCredential === "function" && !!navigator.credentials;

/** The WebAuthn error name (the library keeps the browser's, e.g. NotAllowedError) and its code. */
const webAuthnName = (err: unknown) => (err instanceof Error ? err.name : "");
const webAuthnCode = (err: unknown) => (err as { code?: string } | null)?.code ?? "";

/** `proof`: the password (or a current 2FA code) the server asks for again before a new passkey. */
export async function registerPasskey(friendlyName: string, proof: { password?: string; token?: string } = {}) {
  const optionsJSON = await beginPasskeyRegistration(proof);
  const credential = await startRegistration({ optionsJSON });
  return completePasskeyRegistration(credential, friendlyName);
}

/** Title and description of a failed registration, per the spec's catalogue. */
export function registrationFailure(err: unknown): { title: string; description: string } {
  const name = webAuthnName(err);
  const code = webAuthnCode(err);
  const message = err instanceof Error ? err.message : "";
  if (code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" || (err instanceof ApiError && err.code === "conflict")) {
    return { title: "Failed to register passkey", description: "This device is already registered" };
  }
  if (name === "NotAllowedError" || name === "AbortError") {
    return { title: "Failed to register passkey", description: "Registration was cancelled or timed out. Please try again." };
  }
  if (name === "SecurityError" || code === "ERROR_INVALID_DOMAIN" || code === "ERROR_INVALID_RP_ID") {
    return {
      title: "Failed to register passkey",
      description: "Passkeys work only at this appliance's public address, reached at localhost or over HTTPS on a domain name.",
    };
  }
  if (name === "NotSupportedError") {
    const safari = /^((?!chrome|android|crios|fxios).)*safari/i.test(navigator.userAgent);
    return {
      title: "Not Supported",
      description: safari
        ? "Use Safari 16 or later with Touch ID or Face ID turned on to add a passkey."
        : "This browser cannot create passkeys. Try the latest Chrome, Edge, Safari or Firefox.",
    };
  }
  return { title: "Failed to register passkey", description: message || "Failed to register passkey" };
}

/** A usernameless sign-in: fresh options (a challenge is used once), the browser's choice of passkey, the session. */
export async function signInWithPasskey() {
  const optionsJSON = await beginPasskeySignIn();
  const credential = await startAuthentication({ optionsJSON });
  return completePasskeySignIn(credential);
}

/** Confirms this session (sudo mode) with one of the account's passkeys. */
export async function confirmWithPasskey() {
  const optionsJSON = await beginPasskeySignIn();
  const credential = await startAuthentication({ optionsJSON });
  return confirmWithPasskeyCredential(credential);
}

export function authenticationFailure(err: unknown): string {
  const name = webAuthnName(err);
  if (name === "NotAllowedError" || name === "AbortError") return "Authentication was cancelled or timed out";
  if (err instanceof ApiError && err.code === "not_found") return "No passkey found for this account";
  return "Failed to authenticate with passkey";
}
