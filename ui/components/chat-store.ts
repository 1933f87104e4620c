import { signal } from "@preact/signals-react";
import { fetchConversation, fetchConversations, fetchUnreadTotals, type ConversationView } from "../api/conversations";
import { subscribe } from "../lib/live";
import { conversationIdOf, liveConnected } from "./chat-live";
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

let refreshing: Promise<void> | null = null;
/** Reads the unread total from the server (one call in flight at a time; callers share it). */
export function refreshUnread(): Promise<void> {
  refreshing ??= fetchUnreadTotals()
    .then((t) => {
      if (t) unreadTotal.value = t.unreadTotal;
    })
    .catch(() => {
      // The badge keeps its last figure; the next message or page load asks again.
    })
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

let changeTimer: ReturnType<typeof setTimeout> | null = null;
/** The conversations changed: lists and the unread total read again, at most every half second in a burst. */
export function changed() {
  changeTimer ??= setTimeout(() => {
    changeTimer = null;
    inboxVersion.value++;
    void refreshUnread();
  }, 300);
}

/** Opens the popup on a thread (or the list); `auto`: a push did it, not the user. */
export function openPopup(conversationId: number | null, auto = false) {
  popup.value = { open: true, minimised: false, conversationId, auto };
}

const preview = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

/**
 * The conversation of an inbound text, with the contact's name: by the id the socket sends, else (a message
 * recorded before it had a conversation) by its phone.
 */
async function conversationOf(frame: { conversationId: string | number | null; phone: string }): Promise<ConversationView | null> {
  const id = conversationIdOf(frame.conversationId);
  try {
    if (id !== null) return await fetchConversation(id);
    const found = await fetchConversations({ page: 1, pageSize: 5, filter: "all", q: frame.phone });
    return found.data.find((c) => c.phone === frame.phone) ?? null;
  } catch {
    return null;
  }
}

let started = false;
/**
 * Starts listening for the account's live events, once per page load: an inbound text opens the popup on its
 * thread (unless that thread is already on screen), shows a toast with its first 80 characters and, when nobody is
 * watching the tab, a desktop notification and a chime.
 */
export function startInbox() {
  if (started) return;
  started = true;
  unlockSoundOnFirstGesture();
  void refreshUnread();
  // Read, closed, archived or deleted, here or in another tab or browser; or a campaign's texts joined threads.
  subscribe("conversation_updated", changed);
  // The server could not replay everything missed while away: read the inbox afresh.
  subscribe("reset", changed);
  // Reading in another tab or browser sends no push: coming back to this one reads the total again.
  window.addEventListener("focus", changed);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && changed());
  // Only while the socket is down (a proxy without WebSockets, a restart): read the inbox now and then instead.
  setInterval(() => {
    if (!liveConnected.value && auth.value.status === "signed-in") changed();
  }, FALLBACK_POLL_MS);
  subscribe("new_message", async (m) => {
    changed();
    if (m.direction !== "inbound") return;
    const c = await conversationOf(m);
    const who = c?.contactName ?? m.phone;
    const open = () => openPopup(c?.id ?? null);
    if (!c || pageThread.value !== c.id) openPopup(c?.id ?? null, true);
    toast({ title: `New message from ${who}`, description: preview(m.content), action: { label: "Reply", onClick: open } });
    if (pageUnattended()) {
      notifyDesktop(`New message from ${who}`, preview(m.content), `conversation-${c?.id ?? m.phone}`, open);
      playChime();
    }
  });
}
