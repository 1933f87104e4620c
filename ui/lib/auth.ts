import { signal } from "@preact/signals-react";
import { fetchUser, finishSignUp, signIn, signOut, signUp, type RegisterPayload, type User } from "../api/auth";

export type { User };

export type AuthState = { status: "loading" | "signed-out" | "signed-in"; user: User | null };

export const auth = signal<AuthState>({ status: "loading", user: null });

/**
 * The session cookie is httpOnly, so the page cannot see it. The server sets a readable `smsdesk_signed_in=1` beside it
 * (src/auth/sessions.ts), with the same lifetime and no secret: without it there is nothing to ask the server about,
 * and a visitor's page does not log a 401 from /api/auth/user on every load. It covers every way a session is made
 * (this page, Google, an API sign-in, another tab).
 */
const maybeSignedIn = () => /(?:^|;\s*)smsdesk_signed_in=1/.test(document.cookie);

/**
 * What an older version of this page kept in localStorage (the session token, the admin portal's copy of it, a
 * signed-in mark) is removed at start: a token left there would outlive its sign-out.
 */
export function forgetStoredTokens() {
  for (const key of ["auth_token", "admin_token", "smsdesk_session"]) localStorage.removeItem(key);
}

export async function refreshUser(): Promise<User | null> {
  if (!maybeSignedIn()) {
    auth.value = { status: "signed-out", user: null };
    return null;
  }
  try {
    const user = await fetchUser();
    auth.value = user ? { status: "signed-in", user } : { status: "signed-out", user: null };
    // The session is over (expired or revoked elsewhere): drop the hint, so the next load does not ask again.
    if (!user) document.cookie = "smsdesk_signed_in=; Max-Age=0; Path=/";
    return user;
  } catch {
    // A server that cannot answer leaves whoever was signed in signed in; the next call retries.
    if (auth.value.status === "loading") auth.value = { status: "signed-out", user: null };
    return auth.value.user;
  }
}

export function setUser(user: User) {
  auth.value = { status: "signed-in", user };
}

export async function login(email: string, password: string) {
  const answer = await signIn(email, password);
  if (answer.token) setUser(answer.user);
  return answer;
}

export type { RegisterPayload };

/** Starts a sign-up; nobody is signed in until its emailed code (finishRegistration). */
export const register = (payload: RegisterPayload) => signUp(payload);

export async function finishRegistration(signupToken: string, code: string) {
  const answer = await finishSignUp(signupToken, code);
  setUser(answer.user);
  return answer;
}

export async function logout() {
  // The server revokes the session and clears both cookies.
  await signOut();
  auth.value = { status: "signed-out", user: null };
}

export const displayName = (u: Pick<User, "firstName" | "lastName" | "email">) =>
  [u.firstName, u.lastName].filter(Boolean).join(" ") || u.email;
