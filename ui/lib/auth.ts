import { signal } from "@preact/signals-react";
import { fetchUser, finishSignUp, signIn, signOut, signUp, type RegisterPayload, type User } from "../api/auth";
import { clearToken, getStoredToken, storeToken } from "./api";

export type { User };

export type AuthState = { status: "loading" | "signed-out" | "signed-in"; user: User | null };

export const auth = signal<AuthState>({ status: "loading", user: null });

/**
 * Set while this browser holds a session. The session cookie is httpOnly, so the page cannot see it; without a
 * token and without this mark there is nothing to ask the server about, and a visitor's page does not log a 401
 * from /api/auth/user on every load. The server also sets a readable `smsdesk_signed_in` cookie beside the session
 * cookie (src/auth/sessions.ts), which covers sessions this page did not make (Google, an API sign-in, another tab).
 */
const SESSION_MARK = "smsdesk_session";

const maybeSignedIn = () =>
  getStoredToken() !== null ||
  localStorage.getItem(SESSION_MARK) === "1" ||
  /(?:^|;\s*)smsdesk_signed_in=1/.test(document.cookie);

export async function refreshUser(): Promise<User | null> {
  if (!maybeSignedIn()) {
    auth.value = { status: "signed-out", user: null };
    return null;
  }
  try {
    const user = await fetchUser();
    auth.value = user ? { status: "signed-in", user } : { status: "signed-out", user: null };
    if (user) localStorage.setItem(SESSION_MARK, "1");
    else {
      // The session is over (expired or revoked): forget it, so the next load does not ask again.
      localStorage.removeItem(SESSION_MARK);
      clearToken();
    }
    return user;
  } catch {
    // A server that cannot answer leaves whoever was signed in signed in; the next call retries.
    if (auth.value.status === "loading") auth.value = { status: "signed-out", user: null };
    return auth.value.user;
  }
}

export function setUser(user: User) {
  localStorage.setItem(SESSION_MARK, "1");
  auth.value = { status: "signed-in", user };
}

export async function login(email: string, password: string) {
  const answer = await signIn(email, password);
  if (answer.token) {
    storeToken(answer.token);
    setUser(answer.user);
  }
  return answer;
}

export type { RegisterPayload };

/** Starts a sign-up; nobody is signed in until its emailed code (finishRegistration). */
export const register = (payload: RegisterPayload) => signUp(payload);

export async function finishRegistration(signupToken: string, code: string) {
  const answer = await finishSignUp(signupToken, code);
  storeToken(answer.token);
  setUser(answer.user);
  return answer;
}

export async function logout() {
  await signOut();
  clearToken();
  localStorage.removeItem(SESSION_MARK);
  auth.value = { status: "signed-out", user: null };
}

export const displayName = (u: Pick<User, "firstName" | "lastName" | "email">) =>
  [u.firstName, u.lastName].filter(Boolean).join(" ") || u.email;
