import { signal } from "@preact/signals-react";

export type Toast = {
  id: number;
  title: string;
  description?: string;
  variant?: "default" | "destructive";
  action?: { label: string; onClick: () => void };
  durationMs?: number;
  /** At the top of the screen, for a page whose bottom holds what the user is typing (/chat's reply box). */
  placement?: "top";
};

/** A toast shows at the bottom right: the chat popup and panel move up above it. */
export const toastAtBottom = () => toasts.value.some((t) => t.placement !== "top");

/** One toast is visible at a time (the spec's limit); a new one replaces it. */
export const toasts = signal<Toast[]>([]);
let nextId = 1;

export function toast(t: Omit<Toast, "id">): number {
  const id = nextId++;
  toasts.value = [{ ...t, id }];
  setTimeout(() => dismissToast(id), t.durationMs ?? 5000);
  return id;
}

export function dismissToast(id: number) {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}
