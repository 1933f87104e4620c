import { useState } from "react";
import { formatDate } from "../../../../shared/users/regional-options";
import { Button, Modal, Spinner } from "../../../components/ui";
import { optOutContact, useConsentHistory } from "../../../api/contacts";
import { useConfirm } from "../../../components/confirm-dialog";
import { useMutation } from "../../../lib/use-mutation";
import { contactName, type Contact } from "./model";

const SOURCE: Record<string, string> = {
  manual: "Manual",
  import: "Import",
  keyword: "Keyword",
  api: "API",
  provider: "Opted out at the provider",
  inbound: "Texted in (no marketing consent until they opt in)",
};

export function ConsentDialog({
  contact,
  dateFormat,
  timeZone,
  onClose,
  onChanged,
}: {
  contact: Contact;
  dateFormat: string;
  timeZone: string;
  onClose: () => void;
  onChanged: () => void;
}) {
  const answer = useConsentHistory(contact.id);
  const log = { ...answer, data: answer.data?.data ?? null };
  const [optedOut, setOptedOut] = useState(contact.status === "opted_out");
  const { ask, dialog } = useConfirm();
  const { run: sendOptOut, busy } = useMutation(() => optOutContact(contact.id), {
    onSuccess: () => {
      setOptedOut(true);
      void log.reload();
      onChanged();
    },
    success: "Contact opted out",
    fallback: "Failed to opt out contact",
    failureToast: "Error",
  });

  const optOut = async () => {
    const ok = await ask({
      title: "Opt out contact",
      message: `Opt out ${contactName(contact)}? They will no longer receive messages until they text START.`,
      confirmLabel: "Opt out",
    });
    if (ok) await sendOptOut();
  };

  // The question takes the dialog's place while it is asked: one dialog at a time.
  if (dialog) return dialog;
  return (
    <Modal open onClose={onClose} title="Consent history">
      <p className="mb-3 text-sm text-slate-600">
        {contactName(contact)} is{" "}
        <strong className={optedOut ? "text-red-700" : "text-green-700"}>{optedOut ? "opted out" : "subscribed"}</strong>.
        {optedOut && " Only the contact can subscribe again (by texting START)."}
      </p>
      {log.loading && <Spinner className="text-slate-400" />}
      {log.error && <p className="text-sm text-red-600">Could not load the consent history: {log.error.message}</p>}
      {log.data && log.data.length === 0 && <p className="text-sm text-slate-500">No consent records yet.</p>}
      <ol className="space-y-2">
        {log.data?.map((entry, i) => (
          <li key={i} className="rounded-lg border border-slate-200 p-3 text-sm">
            <div className="flex items-center justify-between gap-2">
              <span className={entry.kind === "opt_in" ? "font-medium text-green-700" : "font-medium text-red-700"}>
                {entry.kind === "opt_in" ? "Opted in" : "Opted out"}
              </span>
              <span className="text-xs text-slate-500">
                {formatDate(new Date(entry.createdAt), dateFormat, timeZone)}{" "}
                {new Date(entry.createdAt).toLocaleTimeString(undefined, { timeZone, hour: "2-digit", minute: "2-digit" })}
              </span>
            </div>
            <p className="text-xs text-slate-500">
              Source: {SOURCE[entry.source] ?? entry.source}
              {entry.keyword && ` · keyword ${entry.keyword}`}
              {entry.number && ` · texted to ${entry.number}`}
            </p>
            {entry.text && (
              <p className="mt-1 break-words text-slate-700" data-testid="consent-text">
                “{entry.text}”
              </p>
            )}
          </li>
        ))}
      </ol>
      <div className="mt-4 flex justify-end gap-2">
        {!optedOut && (
          <Button variant="danger" onClick={optOut} disabled={busy}>
            Opt out
          </Button>
        )}
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
    </Modal>
  );
}
