import { signal } from "@preact/signals-react";
import { api, apiGet, clearToken, storeToken } from "./api";

export type User = {
  id: string;
  email: string;
  emailVerified: boolean;
  firstName: string;
  lastName: string;
  phone: string | null;
  role: "user" | "admin";
  timezone: string;
  locale: string;
  dateFormat: string;
  onboarding: { businessName: string; industry: string; customerType: string; goals: string[] } | null;
  createdAt: string;
};

export type AuthState = { status: "loading" | "signed-out" | "signed-in"; user: User | null };

export const auth = signal<AuthState>({ status: "loading", user: null });

export async function refreshUser(): Promise<User | null> {
  try {
    const user = await apiGet<User>("/api/auth/user");
    auth.value = user ? { status: "signed-in", user } : { status: "signed-out", user: null };
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

type SessionAnswer = { token: string; user: User; requires2FA?: boolean; userId?: string };

export async function login(email: string, password: string): Promise<SessionAnswer> {
  const answer = await api<SessionAnswer>("/api/auth/login", { body: { email, password } });
  if (answer.token) {
    storeToken(answer.token);
    setUser(answer.user);
  }
  return answer;
}

export type RegisterPayload = {
  email: string;
  password: string;
  confirmPassword: string;
  firstName: string;
  lastName: string;
  phone?: string;
  licenseCode?: string;
};

export async function register(payload: RegisterPayload) {
  const answer = await api<SessionAnswer & { licenseRedeemed: boolean; licensePlan: string | null }>(
    "/api/auth/register",
    { body: payload },
  );
  storeToken(answer.token);
  setUser(answer.user);
  return answer;
}

export async function logout() {
  await api("/api/auth/logout", { method: "POST" });
  clearToken();
  auth.value = { status: "signed-out", user: null };
}

export const displayName = (u: Pick<User, "firstName" | "lastName" | "email">) =>
  [u.firstName, u.lastName].filter(Boolean).join(" ") || u.email;
