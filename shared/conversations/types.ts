import type { MediaView } from "../media/types";
/**
 * The conversation API's answers, as JSON. Written out here (not inferred from the routes) so the UI imports them
 * type-only from one place: ui/api/conversations.ts.
 */

/** open: in the inbox; closed: handled, still listed; archived: out of the inbox until the contact writes again. */
export type ConversationState = "open" | "closed" | "archived";

export type ConversationView = {
  /** A whole number: GET /api/messages/:conversationId tells it from a message id (a UUID) by that. */
  id: number;
  phone: string;
  contactId: string | null;
  /** The contact's name, else the phone. */
  contactName: string;
  contact: { firstName: string; lastName: string } | null;
  state: ConversationState;
  /** Inbound messages after the last-read marker. */
  unreadCount: number;
  /** The sequence of the newest message, and of the newest one read. */
  lastSeq: number;
  lastReadSeq: number;
  /** The newest message's text (the first 160 characters), direction, status and time; null before any. */
  lastMessage: string | null;
  lastDirection: "inbound" | "outbound" | null;
  lastStatus: string | null;
  lastMessageAt: string | null;
  /** The number the contact last wrote to: replies go out from it (else the account's default). */
  replyFrom: string | null;
  /** The contact's consent: a reply to an opted-out contact is refused. */
  optedOut: boolean;
  /**
   * The contact's text the plain-words matcher was unsure of (shared/keywords/plain-opt-out.ts): the thread is listed
   * first until the owner opts them out or dismisses it; null otherwise (and once the contact is opted out).
   */
  possibleOptOut: { seq: number; content: string; at: string } | null;
  createdAt: string;
};

/** `filter`: all (open and closed), open, closed, unread, archived. */
export type ConversationFilter = "all" | "open" | "closed" | "unread" | "archived";

export type ConversationPage = {
  data: ConversationView[];
  total: number;
  page: number;
  pageSize: number;
  /** Unread messages over all the account's conversations that are not archived (the sidebar and title). */
  unreadTotal: number;
};

export type UnreadTotals = { unreadTotal: number; unreadConversations: number };

/** A message of a thread; `seq` orders the thread (server order, never the clock). */
export type ThreadMessage = {
  id: string;
  seq: number;
  conversationId: number;
  phone: string;
  content: string;
  direction: "inbound" | "outbound";
  status: string;
  kind: "campaign" | "single" | "compliance";
  fromNumber: string | null;
  segments: number;
  errorCode: string | null;
  errorMessage: string | null;
  campaignId: string | null;
  createdAt: string;
  timestamp: string;
  sentAt: string | null;
  deliveredAt: string | null;
  /**
   * A marketing message held for quiet hours or a state's rule: when it is due, that time on the recipient's clock
   * in the account's locale ("8:00 AM"), and the rule that holds it ("Held: Florida law allows texts 8 AM–8 PM
   * (Fla. Stat. § 501.616(6))"); null for any other message.
   */
  quietHold: { until: string; clock: string; reason: string } | null;
  /** The contact's text its thread is marked for as a possible opt-out (ConversationView.possibleOptOut). */
  possibleOptOut: boolean;
  /** Its pictures and files (an MMS), in order; none for a text. */
  media: MediaView[];
};

/** POST /api/messages: the queued message, with the plan's notice near the limit. */
export type SentChatMessage = ThreadMessage & { notice: string | null };

export type BulkResult = { message: string; count: number };
