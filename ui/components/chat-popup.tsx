import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { useConversation, useConversations, type ConversationView } from "../api/conversations";
import { auth } from "../lib/auth";
import { formatPhone } from "../routes/app/contacts/model";
import { askNotificationPermission, notificationPermission } from "./chat-alerts";
import { ConversationSummary, CountPill, countText } from "./chat-avatar";
import { ConnectionDot } from "./chat-connection";
import { closePopup, inboxVersion, openPopup, pageThread, popup, startInbox, unreadTotal } from "./chat-store";
import { toastAtBottom } from "../lib/toast";
import { ChatThread } from "./chat-thread";
import { Icon } from "./icons";
import { Badge } from "./badge";
import { cx } from "./ui";

const BASE_TITLE = "smsdesk: SMS marketing";
/** Wide enough to open straight on the first unread thread (the spec's 640 px). */
const WIDE = "(min-width: 641px)";

/** Set by the round button: the list then opens the first unread thread once it has loaded. */
let pickUnread = false;

/** The sidebar's count beside Chat & Replies. */
export function UnreadCount() {
  useSignals();
  return <CountPill count={unreadTotal.value} label="unread" />;
}

/** "(3) smsdesk: SMS marketing" while replies wait unread. */
export function useUnreadTitle() {
  useSignals();
  const n = unreadTotal.value;
  useEffect(() => {
    document.title = n > 0 ? `(${n}) ${BASE_TITLE}` : BASE_TITLE;
  }, [n]);
}

/**
 * Space the page keeps free under its content for the round button (bottom-4 + h-14 = 72 px, and 24 px between):
 * at the end of any page its last row (a pager's Next, a card's last line) scrolls clear of the button instead of
 * under it. On a phone's /chat thread the button is hidden, and so is the space.
 */
export function launcherClearance() {
  return pageThread.value !== null ? "pb-24 max-md:pb-4" : "pb-24";
}

/**
 * The chat popup on every signed-in page (platform.md 2.15): a round button with the unread total; open, a panel
 * with the conversations and one thread at a time, minimisable to its header. An inbound text opens it on that
 * thread, except on /chat and once the user closed it (chat-store.ts).
 */
export function ChatPopup() {
  useSignals();
  useEffect(startInbox, []);
  const { open, minimised, conversationId } = popup.value;
  const unread = unreadTotal.value;
  // A toast sits at the bottom right too: the popup moves up while one shows, so the reply box stays in reach.
  const lift = toastAtBottom() ? "bottom-36" : "bottom-4";
  // On a phone, /chat's own thread has its Send button where the round button would be.
  const hideButton = pageThread.value !== null ? "max-md:hidden" : "";

  if (!open) {
    return (
      <button
        type="button"
        onClick={() => {
          pickUnread = popup.value.conversationId === null;
          openPopup(popup.value.conversationId);
        }}
        // The name contains what the button shows (the pill's "99+"): speech input users say what they see.
        aria-label={unread > 0 ? `Open chat (${countText(unread)} unread)` : "Open chat"}
        className={cx(
          "fixed right-4 z-40 flex h-14 w-14 items-center justify-center rounded-full bg-brand-600 text-white shadow-lg transition-[bottom] hover:bg-brand-700 focus:outline-none focus-visible:ring-4 focus-visible:ring-brand-500/40",
          lift,
          hideButton,
        )}
      >
        <Icon name="chat" className="h-7 w-7" />
        <CountPill count={unread} label="unread" className="absolute -right-1 -top-1" />
      </button>
    );
  }

  return (
    <section
      aria-label="Chat"
      className={cx(
        "fixed right-4 z-40 flex w-96 max-w-[calc(100vw-2rem)] flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-2xl transition-[bottom]",
        lift,
        minimised ? "" : lift === "bottom-4" ? "h-[600px] max-h-[calc(100vh-2rem)]" : "h-[600px] max-h-[calc(100vh-10rem)]",
      )}
    >
      <header className="flex items-center gap-2 border-b border-slate-200 bg-brand-600 px-3 py-2 text-white">
        <h2 className="text-sm font-semibold">Messages</h2>
        {unread > 0 && (
          <Badge tone="brand" className="bg-white text-brand-700">
            {unread} new
          </Badge>
        )}
        <span className="flex h-4 w-4 items-center justify-center rounded-full bg-white">
          <ConnectionDot />
        </span>
        <span className="flex-1" />
        <button
          type="button"
          aria-label={minimised ? "Expand chat" : "Minimise chat"}
          className="rounded p-1 hover:bg-white/20"
          onClick={() => (popup.value = { ...popup.value, minimised: !minimised })}
        >
          {minimised ? "▴" : "▾"}
        </button>
        <button
          type="button"
          aria-label="Close chat"
          className="rounded p-1 hover:bg-white/20"
          onClick={closePopup}
        >
          ✕
        </button>
      </header>
      {!minimised && (conversationId === null ? <PopupList /> : <PopupThread id={conversationId} />)}
    </section>
  );
}

function NotificationOffer() {
  const [state, setState] = useState(notificationPermission);
  const [dismissed, setDismissed] = useState(() => localStorage.getItem("chat_notifications_offer") === "dismissed");
  if (state !== "default" || dismissed) return null;
  return (
    <div className="flex items-center gap-2 border-b border-slate-200 bg-slate-50 px-3 py-2 text-xs text-slate-700">
      <span className="flex-1">Get a desktop notification when a reply arrives while you are in another tab?</span>
      <button
        type="button"
        className="rounded border border-slate-300 bg-white px-2 py-0.5 font-medium hover:bg-slate-100"
        onClick={() => void askNotificationPermission().then(setState)}
      >
        Turn on
      </button>
      <button
        type="button"
        aria-label="Not now"
        className="text-slate-500"
        onClick={() => {
          localStorage.setItem("chat_notifications_offer", "dismissed");
          setDismissed(true);
        }}
      >
        ✕
      </button>
    </div>
  );
}

function PopupList() {
  useSignals();
  const version = inboxVersion.value;
  const list = useConversations({ page: 1, pageSize: 30, filter: "all" });
  useEffect(() => {
    if (version) void list.reload();
  }, [version]); // eslint-disable-line react-hooks/exhaustive-deps

  const rows = list.data?.data ?? [];
  // Opened by its button with nothing chosen, a wide screen goes straight to the first conversation waiting to be
  // read (not on the way back from a thread).
  useEffect(() => {
    if (!pickUnread || !list.data) return;
    pickUnread = false;
    const first = rows.find((c) => c.unreadCount > 0);
    if (first && window.matchMedia(WIDE).matches) popup.value = { ...popup.value, conversationId: first.id, auto: false };
  }, [list.data]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <NotificationOffer />
      <p className="px-3 pb-1 pt-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Conversations</p>
      {list.error && <p className="px-3 text-sm text-red-600">Could not load conversations: {list.error.message}</p>}
      {list.data && rows.length === 0 && <p className="px-3 py-6 text-center text-sm text-slate-500">No conversations yet</p>}
      <ul className="min-h-0 flex-1 overflow-y-auto">
        {rows.map((c: ConversationView) => (
          <li key={c.id}>
            <button
              type="button"
              className="flex w-full items-center px-3 py-2 text-left hover:bg-slate-50"
              onClick={() => (popup.value = { ...popup.value, conversationId: c.id, auto: false })}
            >
              <ConversationSummary c={c} formatPhone={formatPhone} />
            </button>
          </li>
        ))}
      </ul>
      {list.data && rows.length > 0 && (
        <p className="border-t border-slate-200 px-3 py-2 text-center text-xs text-slate-500">
          Select a conversation to start chatting
        </p>
      )}
    </div>
  );
}

function PopupThread({ id }: { id: number }) {
  useSignals();
  const version = inboxVersion.value;
  const conversation = useConversation(id);
  useEffect(() => {
    if (version) void conversation.reload();
  }, [version]); // eslint-disable-line react-hooks/exhaustive-deps
  const c = conversation.data;
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex items-center gap-2 border-b border-slate-200 px-2 py-2">
        <button
          type="button"
          aria-label="Back to conversations"
          className="rounded p-1 text-slate-600 hover:bg-slate-100"
          onClick={() => (popup.value = { ...popup.value, conversationId: null })}
        >
          ←
        </button>
        <div className="min-w-0">
          <p className="truncate text-sm font-medium" data-testid="popup-thread-name">
            {c ? (c.contactName !== c.phone ? c.contactName : formatPhone(c.phone)) : "…"}
          </p>
          {c && c.contactName !== c.phone && <p className="truncate text-xs text-slate-500">{formatPhone(c.phone)}</p>}
        </div>
      </div>
      {conversation.error && <p className="p-3 text-sm text-red-600">{conversation.error.message}</p>}
      {c && (
        <ChatThread
          conversationId={c.id}
          phone={c.phone}
          optedOut={c.optedOut}
          compact
          awaitInteraction={popup.value.auto}
          timeZone={auth.value.user?.timezone}
        />
      )}
    </div>
  );
}
