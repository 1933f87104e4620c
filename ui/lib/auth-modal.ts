import { signal } from "@preact/signals-react";

export type AuthTab = "signin" | "signup";

/** The landing page's sign-in/sign-up modal; any public page can open it. */
export const authModal = signal<{ open: boolean; tab: AuthTab }>({ open: false, tab: "signin" });

export const openAuthModal = (tab: AuthTab = "signup") => (authModal.value = { open: true, tab });
export const closeAuthModal = () => (authModal.value = { ...authModal.value, open: false });
