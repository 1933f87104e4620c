import { useEffect, useState } from "react";
import { formatDate } from "../../../../shared/users/regional-options";
import type { ConversationView } from "../../../api/conversations";
import { fetchContact, optOutContact, useConsentHistory, type Contact } from "../../../api/contacts";
import { Badge } from "../../../components/badge";
import { useConfirm } from "../../../components/confirm-dialog";
import { Button, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { useMutation } from "../../../lib/use-mutation";
import { contactName, formatPhone } from "../contacts/model";

const SOURCE: Record<string, string> = {
  manual: "Added by hand",
  import: "CSV import",
  keyword: "Keyword",
  api: "API",
  provider: "At the provider",
  inbound: "Texted in",
};

/**
 * The person behind a conversation: name, phone, tags, whether they may be texted (with the consent record that
 * says so) and a button to opt them out.
 */
export function ContactPanel({
  conversation,
  dateFormat,
  timeZone,
  onChanged,
}: {
  conversation: ConversationView;
  dateFormat: string;
  timeZone: string;
  onChanged: () => void;
}) {
  const [contact, setContact] = useState<Contact | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { ask, dialog } = useConfirm();
  const { run: sendOptOut, busy } = useMutation((c: Contact) => optOutContact(c.id), {
    onSuccess: (_done, c) => {
      setContact({ ...c, status: "opted_out" });
      onChanged();
    },
    success: "Contact opted out",
    fallback: "Failed to opt out contact",
    failureToast: "Error",
  });
  const id = conversation.contactId;

  useEffect(() => {
    setContact(null);
    setError(null);
    if (!id) return;
    let live = true;
    fetchContact(id)
      .then((c) => live && setContact(c))
      .catch((err) => live && setError(errorMessage(err, "Could not load the contact")));
    return () => {
      live = false;
    };
  }, [id, conversation.optedOut]);

  if (!id) {
    return (
      <aside aria-label="Contact" className="space-y-2 p-4 text-sm">
        <p className="font-medium">{formatPhone(conversation.phone)}</p>
        <p className="text-slate-500">
          This number is not in your contacts (the plan's contact limit was reached when it wrote).
        </p>
      </aside>
    );
  }

  const optOut = async () => {
    if (!contact) return;
    const ok = await ask({
      title: "Opt out contact",
      message: `Opt out ${contactName(contact)}? They will receive no more messages until they text START.`,
      confirmLabel: "Opt out",
    });
    if (ok) await sendOptOut(contact);
  };

  return (
    <aside aria-label="Contact" className="space-y-4 p-4 text-sm">
      {error && <p className="text-red-600">{error}</p>}
      {!contact && !error && <Spinner className="text-slate-400" />}
      {contact && (
        <>
          <div>
            <p className="text-base font-semibold" data-testid="contact-panel-name">
              {contactName(contact)}
            </p>
            <p className="text-slate-600">{formatPhone(contact.phone)}</p>
            {contact.email && <p className="truncate text-slate-600">{contact.email}</p>}
            {conversation.replyFrom && (
              <p className="mt-1 text-xs text-slate-500">
                Replies go out from {formatPhone(conversation.replyFrom)}, the number they wrote to.
              </p>
            )}
          </div>
          <div>
            <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Tags</p>
            {contact.tags.length ? (
              <div className="flex flex-wrap gap-1">
                {contact.tags.map((t) => (
                  <Badge key={t} tone="slate">
                    {t}
                  </Badge>
                ))}
              </div>
            ) : (
              <p className="text-slate-500">No tags</p>
            )}
          </div>
          <div>
            <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Texting consent</p>
            <ConsentRecord contact={contact} dateFormat={dateFormat} timeZone={timeZone} />
          </div>
          {contact.status !== "opted_out" && (
            <Button variant="secondary" className="w-full text-red-700" disabled={busy} onClick={() => void optOut()}>
              Opt out this contact
            </Button>
          )}
        </>
      )}
      {dialog}
    </aside>
  );
}

/**
 * Whether the contact may get campaigns, and the consent entries that say so (newest first, as the server keeps
 * them): what happened, when, from where, and the words used. A number that only texted in may be answered, but
 * has given no marketing consent until it opts in.
 */
function ConsentRecord({ contact, dateFormat, timeZone }: { contact: Contact; dateFormat: string; timeZone: string }) {
  const log = useConsentHistory(contact.id);
  useEffect(() => {
    void log.reload();
  }, [contact.status]); // eslint-disable-line react-hooks/exhaustive-deps
  const entries = log.data?.data ?? [];
  const optedIn = entries.some((e) => e.kind === "opt_in");
  return (
    <>
      {contact.status === "opted_out" ? (
        <Badge tone="red">Opted out</Badge>
      ) : contact.source === "inbound" && log.data && !optedIn ? (
        <>
          <Badge tone="amber">No marketing consent</Badge>
          <p className="mt-1 text-xs text-slate-600">
            They texted you first: you can reply, but campaigns leave them out until they opt in (a keyword or START).
          </p>
        </>
      ) : (
        <Badge tone="green">Subscribed</Badge>
      )}
      {log.error && <p className="mt-1 text-xs text-red-600">Could not load the consent record: {log.error.message}</p>}
      {log.data && entries.length === 0 && <p className="mt-1 text-xs text-slate-500">No consent records yet.</p>}
      {entries.length > 0 && (
        <ol className="mt-2 space-y-1" aria-label="Consent record">
          {entries.slice(0, 5).map((e, i) => (
            <li key={i} className="rounded border border-slate-200 px-2 py-1 text-xs">
              <span className={e.kind === "opt_in" ? "font-medium text-green-700" : "font-medium text-red-700"}>
                {e.kind === "opt_in" ? "Opted in" : "Opted out"}
              </span>{" "}
              <span className="text-slate-500">
                {formatDate(new Date(e.createdAt), dateFormat, timeZone)} · {SOURCE[e.source] ?? e.source}
              </span>
              {e.text && <span className="block text-slate-700">“{e.text}”</span>}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
