import { effect, signal } from "@preact/signals-react";
import { fetchConversation, fetchUnreadTotals, type ConversationView } from "../api/conversations";
import { subscribe } from "../lib/live";
import { liveConnected } from "./chat-live";
import { auth } from "../lib/auth";
import { notifyDesktop, pageUnattended, playChime, unlockSoundOnFirstGesture } from "./chat-alerts";
import { toast } from "../lib/toast";

/**
 * The inbox state every signed-in page shares: the unread total (popup button, sidebar, title), the popup's state,
 * and a counter that bumps whenever the conversations changed, so open lists and threads read again. Module
 * signals rather than component state: the layout is mounted afresh on each page, and the popup must stay open on
 * its thread across a navigation.
 */

export const unreadTotal = signal(0);

const FALLBACK_POLL_MS = 10_000;

export type PopupState = {
  open: boolean;
  minimised: boolean;
  /** The thread shown; null shows the list. */
  conversationId: number | null;
  /** Opened by an inbound text rather than by the user: its thread is not marked read until they touch it. */
  auto: boolean;
};
export const popup = signal<PopupState>({ open: false, minimised: false, conversationId: null, auto: false });

/** Bumped on every inbound message and conversation change; lists and threads depend on it to reload. */
export const inboxVersion = signal(0);

/** The thread the user is looking at on /chat: an inbound message there needs no popup. */
export const pageThread = signal<number | null>(null);

let reading = false;
let readAgain = false;
/**
 * Reads the unread total from the server. One call at a time; a change during a call reads once more after it, so
 * the badge never settles on a figure older than the last change.
 */
function refreshUnread() {
  if (reading) {
    readAgain = true;
    return;
  }
  reading = true;
  fetchUnreadTotals()
    .then((t) => {
      if (t) unreadTotal.value = t.unreadTotal;
    })
    .catch(() => {
      // The badge keeps its last figure; the next change or page load asks again.
    })
    .finally(() => {
      reading = false;
      if (readAgain) {
        readAgain = false;
        refreshUnread();
      }
    });
}

let changeTimer: ReturnType<typeof setTimeout> | null = null;
/** The conversations changed: lists and the unread total read again, once per burst of changes (300 ms). */
export function changed() {
  changeTimer ??= setTimeout(() => {
    changeTimer = null;
    inboxVersion.value++;
    void refreshUnread();
  }, 300);
}

/** /chat is on screen: an inbound text there shows a toast, never the popup over the page's own thread. */
export const onChatPage = signal(false);
/** A thread /chat should open (the toast's action there); the page takes it and sets it back to null. */
export const pageThreadRequest = signal<number | null>(null);

/**
 * Closed by the user, the popup stays closed, across pages and reloads, until they open it again: an inbound text
 * then shows a toast only. Kept in this browser's localStorage.
 */
const CLOSED_KEY = "chat_popup_closed";
export const popupClosedByUser = () => {
  try {
    return localStorage.getItem(CLOSED_KEY) === "1";
  } catch {
    return false;
  }
};
function rememberClosed(closed: boolean) {
  try {
    if (closed) localStorage.setItem(CLOSED_KEY, "1");
    else localStorage.removeItem(CLOSED_KEY);
  } catch {
    // Storage refused (a private window's quota): the popup is closed for this page only.
  }
}

/** The user opens the popup (its button, a toast's Reply) on a thread or the list: it may open by itself again. */
export function openPopup(conversationId: number | null) {
  rememberClosed(false);
  popup.value = { open: true, minimised: false, conversationId, auto: false };
}

/** The user closes the popup: it stays closed until they open it. */
export function closePopup() {
  rememberClosed(true);
  popup.value = { ...popup.value, open: false };
}

/**
 * Whether an inbound text to `conversationId` may open the popup on it by itself: not on /chat, not once the user
 * closed it, and not over another thread they opened themselves (they may be typing in it).
 */
function mayOpenBySelf(conversationId: number): boolean {
  if (onChatPage.value || popupClosedByUser()) return false;
  const p = popup.value;
  return !(p.open && !p.minimised && !p.auto && p.conversationId !== null && p.conversationId !== conversationId);
}

const preview = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

/** The conversation of an inbound text, for the contact's name; null if it cannot be read (the toast shows the phone). */
const conversationOf = (id: number): Promise<ConversationView | null> => fetchConversation(id).catch(() => null);

let started = false;
/**
 * Starts listening for the account's live events, once per page load: an inbound text shows a toast with its first
 * 80 characters (at the top on /chat) and opens the popup on its thread where it may (mayOpenBySelf), neither when
 * that thread is on screen already. When nobody is watching the tab, a desktop notification and a chime.
 */
export function startInbox() {
  if (started) return;
  started = true;
  unlockSoundOnFirstGesture();
  // Whoever signs in on this page starts from their own inbox: another account's count and thread are dropped.
  let account: string | undefined;
  effect(() => {
    const id = auth.value.user?.id;
    if (id === account) return;
    account = id;
    unreadTotal.value = 0;
    popup.value = { open: false, minimised: false, conversationId: null, auto: false };
    if (id) refreshUnread();
  });
  // Read, closed, archived or deleted, here or in another tab or browser; or a campaign's texts joined threads.
  subscribe("conversation_updated", changed);
  // The server could not replay everything missed while away: read the inbox afresh.
  subscribe("reset", changed);
  // Only while the socket is down (a proxy without WebSockets, a restart): read the inbox now and then instead.
  setInterval(() => {
    if (!liveConnected.value && auth.value.status === "signed-in") changed();
  }, FALLBACK_POLL_MS);
  subscribe("new_message", async (m) => {
    changed();
    if (m.direction !== "inbound") return;
    const c = await conversationOf(m.conversationId);
    const who = c?.contactName ?? m.phone;
    // On /chat the toast's action opens the thread on the page; elsewhere in the popup.
    const open = () => (onChatPage.value ? (pageThreadRequest.value = m.conversationId) : openPopup(m.conversationId));
    const onScreen = pageThread.value === m.conversationId;
    if (!onScreen && mayOpenBySelf(m.conversationId)) popup.value = { open: true, minimised: false, conversationId: m.conversationId, auto: true };
    // The thread on screen shows the text itself; on /chat a toast goes at the top, clear of the reply box.
    if (!onScreen) {
      const action = { label: onChatPage.value ? "Open" : "Reply", onClick: open };
      toast({ title: `New message from ${who}`, description: preview(m.content), action, ...(onChatPage.value ? { placement: "top" as const } : {}) });
    }
    if (pageUnattended()) {
      notifyDesktop(`New message from ${who}`, preview(m.content), `conversation-${m.conversationId}`, open);
      playChime();
    }
  });
}
