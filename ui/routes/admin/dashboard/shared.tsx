import { toast } from "../../../lib/toast";
import { accountTime } from "../../../lib/format";

/** Rows per page of every admin list. */
export const PAGE_SIZE = 20;

/** A moment in the administrator's own zone (Account Settings), as every table of the app shows it. */
export const when = (iso: string | null) => accountTime(iso, { fallback: "-" });

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
