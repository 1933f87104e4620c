/** Conversations (two-way texting): the list, one conversation, its thread, replies, read and unread marks, states, bulk read, archive and delete: /api/conversations/*, /api/messages. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type {
  BulkResult,
  ConversationFilter,
  ConversationPage,
  ConversationState,
  ConversationView,
  SentChatMessage,
  ThreadMessage,
  UnreadTotals,
} from "../../shared/conversations/types";
import { qs } from "./types";

export type {
  BulkResult,
  ConversationFilter,
  ConversationPage,
  ConversationState,
  ConversationView,
  SentChatMessage,
  ThreadMessage,
  UnreadTotals,
};

const CONVERSATIONS = "/api/conversations";

export type ConversationQuery = { page: number; pageSize: number; filter?: ConversationFilter; q?: string };

/** Newest activity first; `q` searches names, phones and message text. */
export const conversationsUrl = (q: ConversationQuery) => `${CONVERSATIONS}${qs(q)}`;

export const useConversations = (q: ConversationQuery, refreshMs?: number) => useApi<ConversationPage>(conversationsUrl(q), { refreshMs });

export const fetchConversations = (q: ConversationQuery, signal?: AbortSignal) => api<ConversationPage>(conversationsUrl(q), { signal });

export const useConversation = (id: number | null) => useApi<ConversationView>(id === null ? null : `${CONVERSATIONS}/${id}`);

export const fetchConversation = (id: number) => api<ConversationView>(`${CONVERSATIONS}/${id}`);

/** The unread total over the conversations not archived (sidebar badge, page title, popup button). */
export const useUnreadTotals = (refreshMs?: number) => useApi<UnreadTotals>(`${CONVERSATIONS}/unread`, { refreshMs });

export const fetchUnreadTotals = () => api<UnreadTotals>(`${CONVERSATIONS}/unread`);

/**
 * A thread, oldest first, in server order (`seq`): without a cursor its newest `limit` messages; `after` what came
 * after the last one a client has; `before` the page of history before its first.
 */
export type ThreadQuery = { after?: number; before?: number; limit?: number };

export const threadUrl = (conversationId: number, q: ThreadQuery = {}) => `/api/messages/${conversationId}${qs(q)}`;

export const fetchThread = (conversationId: number, q: ThreadQuery = {}, signal?: AbortSignal) =>
  api<ThreadMessage[]>(threadUrl(conversationId, q), { signal });

export const useThread = (conversationId: number | null, q: ThreadQuery = {}) =>
  useApi<ThreadMessage[]>(conversationId === null ? null : threadUrl(conversationId, q));

/**
 * Sends a chat message through the outbox. Pass the same `idempotencyKey` (e.g. crypto.randomUUID() made once per
 * composed message) when retrying: the server sends once and answers the same. `fromNumber` overrides the sticky
 * sender.
 */
export const sendChatMessage = (
  input: { phone: string; content: string; fromNumber?: string | null; mediaIds?: string[] },
  idempotencyKey: string,
) =>
  api<SentChatMessage>("/api/messages", {
    body: { ...input, direction: "outbound" },
    headers: { "idempotency-key": idempotencyKey },
  });

/** Marks the thread read up to `upTo` (a seq; the newest message when omitted). */
export const markConversationRead = (id: number, upTo?: number) =>
  api<ConversationView>(`${CONVERSATIONS}/${id}/read`, { body: upTo === undefined ? {} : { upTo } });

/** Marks the thread unread: its contact's newest message counts unread again (409 when the contact never wrote). */
export const markConversationUnread = (id: number) => api<ConversationView>(`${CONVERSATIONS}/${id}/unread`, { body: {} });

/** Marks up to 500 conversations read, or with `read: false` unread. */
export const bulkReadConversations = (conversationIds: number[], read = true) =>
  api<BulkResult>(`${CONVERSATIONS}/bulk-read`, { body: { conversationIds, read } });

/** Close, reopen (open) or archive one conversation. */
export const setConversationState = (id: number, state: ConversationState) =>
  api<ConversationView>(`${CONVERSATIONS}/${id}/state`, { body: { state } });

/**
 * A possible opt-out's one click: the contact opted out as STOP does, with STOP's confirmation when within 5 minutes
 * of their text (`message` says which).
 */
export const optOutConversation = (id: number) =>
  api<{ conversation: ConversationView; confirmationSent: boolean; message: string }>(`${CONVERSATIONS}/${id}/opt-out`, { body: {} });

/** Dismisses a possible opt-out's mark: the text was no opt-out. */
export const dismissPossibleOptOut = (id: number) => api<ConversationView>(`${CONVERSATIONS}/${id}/dismiss-opt-out`, { body: {} });

/** Archives (or with `archive: false` brings back to the inbox) up to 500 conversations. */
export const bulkArchiveConversations = (conversationIds: number[], archive = true) =>
  api<BulkResult>(`${CONVERSATIONS}/bulk-archive`, { body: { conversationIds, archive } });

/** Deletes up to 500 conversations: gone from the lists, their threads emptied. */
export const bulkDeleteConversations = (conversationIds: number[]) =>
  api<BulkResult>(`${CONVERSATIONS}/bulk-delete`, { body: { conversationIds } });
