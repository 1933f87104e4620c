import { signal } from "@preact/signals-react";

export type Toast = {
  id: number;
  title: string;
  description?: string;
  variant?: "default" | "destructive";
  action?: { label: string; onClick: () => void };
  durationMs?: number;
};

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
