import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { fetchConversations, type ConversationView } from "../api/conversations";
import { auth } from "../lib/auth";
import { errorMessage } from "../lib/api";
import { ChatThread } from "./chat-thread";
import { inboxVersion } from "./chat-store";
import { Spinner, cx } from "./ui";
import { toastAtBottom } from "../lib/toast";
import { formatPhone } from "../routes/app/contacts/model";

/**
 * "Send Message" on a contact: a chat panel fixed at the bottom right, on the contact's conversation (found by its
 * phone), or empty until the first text creates it.
 */
export function ContactChatPanel({
  contact,
  onClose,
}: {
  contact: { name: string; phone: string; optedOut: boolean };
  onClose: () => void;
}) {
  useSignals();
  const version = inboxVersion.value;
  const [conversation, setConversation] = useState<ConversationView | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    fetchConversations({ page: 1, pageSize: 10, filter: "all", q: contact.phone })
      .then(async (page) => {
        let found = page.data.find((c) => c.phone === contact.phone);
        // An archived conversation is still this contact's thread.
        if (!found)
          found = (await fetchConversations({ page: 1, pageSize: 10, filter: "archived", q: contact.phone })).data.find(
            (c) => c.phone === contact.phone,
          );
        if (live) setConversation((cur) => (cur && !found ? cur : (found ?? null)));
      })
      .catch((err) => live && setError(errorMessage(err, "Could not load messages")));
    return () => {
      live = false;
    };
    // A first reply creates the conversation: look again when the inbox changes.
  }, [contact.phone, version]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  return (
    <section
      role="dialog"
      aria-label={`Chat with ${contact.name}`}
      className={cx(
        "fixed right-4 z-50 flex h-[520px] w-96 max-w-[calc(100vw-2rem)] flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-2xl transition-[bottom]",
        // Above a toast, which shares the corner, so the reply box stays in reach.
        toastAtBottom() ? "bottom-36 max-h-[calc(100vh-10rem)]" : "bottom-4 max-h-[calc(100vh-2rem)]",
      )}
    >
      <header className="flex items-center gap-2 border-b border-slate-200 bg-brand-600 px-3 py-2 text-white">
        <div className="min-w-0 flex-1">
          <h2 className="truncate text-sm font-semibold">{contact.name}</h2>
          <p className="truncate text-xs opacity-90">{formatPhone(contact.phone)}</p>
        </div>
        <button
          type="button"
          aria-label={`Close chat with ${contact.name}`}
          className="rounded p-1 hover:bg-white/20"
          onClick={onClose}
        >
          ✕
        </button>
      </header>
      {error ? (
        <p className="flex-1 p-4 text-sm text-red-600">{error}</p>
      ) : conversation === undefined ? (
        <div className="flex flex-1 items-center justify-center gap-2 text-sm text-slate-500">
          <Spinner /> Loading messages...
        </div>
      ) : (
        <ChatThread
          conversationId={conversation?.id ?? null}
          phone={contact.phone}
          optedOut={conversation?.optedOut ?? contact.optedOut}
          compact
          timeZone={auth.value.user?.timezone}
          emptyText="No messages yet."
          emptyHint="Start a conversation!"
        />
      )}
    </section>
  );
}
