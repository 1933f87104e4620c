import { toast } from "../../../lib/toast";

/** Rows per page of every admin list. */
export const PAGE_SIZE = 20;

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "-");

export const failed = (err: unknown, fallback: string) =>
  toast({ title: "Error", description: (err as Error).message || fallback, variant: "destructive" });

/** Copies to the clipboard and says so; `copied` and `manual` are the toasts' texts on success and failure. */
export async function copyText(text: string, copied: string, manual: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: "Copied", description: copied });
  } catch {
    toast({ title: "Failed to copy", description: manual, variant: "destructive" });
  }
}
