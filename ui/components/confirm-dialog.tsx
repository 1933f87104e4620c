import { useCallback, useState, type ReactNode } from "react";
import { useMutation } from "../lib/use-mutation";
import { Button, Modal, Spinner } from "./ui";

/** A destructive action asked once more; the dialog stays open (and busy) until the action settles. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  danger = true,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  /** False for a question that destroys nothing (make an administrator, send a link): the button is not red. */
  danger?: boolean;
}) {
  // The action reports its own failures (its toast); the dialog only shows it busy until it settles.
  const confirm = useMutation(onConfirm);
  return (
    <Modal open onClose={onClose} title={title}>
      <div className="space-y-5 text-sm text-slate-700">
        {children}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button variant={danger ? "danger" : "primary"} onClick={() => confirm.run()} disabled={confirm.busy}>
            {confirm.busy && <Spinner />}
            {confirmLabel}
          </Button>
        </div>
      </div>
    </Modal>
  );
}

export type Question = { title: string; message: ReactNode; confirmLabel: string; danger?: boolean };

/**
 * The app's dialog in place of the browser's confirm(): `ask` resolves true when confirmed, false when cancelled;
 * render `dialog` somewhere in the component.
 */
export function useConfirm(): { ask: (q: Question) => Promise<boolean>; dialog: ReactNode } {
  const [pending, setPending] = useState<(Question & { resolve: (ok: boolean) => void }) | null>(null);
  const ask = useCallback((q: Question) => new Promise<boolean>((resolve) => setPending({ ...q, resolve })), []);
  const answer = (ok: boolean) => {
    pending?.resolve(ok);
    setPending(null);
  };
  const dialog = pending && (
    <ConfirmDialog
      title={pending.title}
      confirmLabel={pending.confirmLabel}
      danger={pending.danger}
      onConfirm={async () => answer(true)}
      onClose={() => answer(false)}
    >
      <p>{pending.message}</p>
    </ConfirmDialog>
  );
  return { ask, dialog };
}
