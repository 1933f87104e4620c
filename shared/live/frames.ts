import type { ThreadMessage } from "../conversations/types";

/**
 * What the socket sends: the spec's `new_message` and `message_status`, `conversation_updated` and
 * `campaign_progress`, each with the id of the event it comes from (`eventId`), which the client sends back to
 * resume after it. `ready` and `reset` are the session's own frames (src/live/hub.ts). `Campaign`: a campaign as
 * GET /api/campaigns lists it (the server's view, the UI's route types).
 */
export type LiveFrame<Campaign> =
  | {
      /** A message joined its thread: inbound, a chat reply, a one-off or a compliance reply (not campaigns'). */
      type: "new_message";
      eventId: number;
      conversationId: number;
      phone: string;
      content: string;
      /** ISO time the message was recorded. */
      timestamp: string;
      direction: "inbound" | "outbound";
      /** The message as the thread lists it (GET /api/messages/:conversationId), its `seq` the thread's order. */
      message: ThreadMessage;
      /** The thread after it: its state and unread count. */
      state: string;
      unreadCount: number;
    }
  | {
      /**
       * A thread changed without a new message of its own (read, closed, archived, deleted: `changes` says what),
       * or, with `campaignId`, a campaign's messages joined `changes.conversations` threads.
       */
      type: "conversation_updated";
      eventId: number;
      conversationId: number | null;
      campaignId?: string;
      changes: Record<string, unknown>;
    }
  | {
      type: "message_status";
      eventId: number;
      status: "sent" | "delivered" | "failed" | "unknown";
      /** A message of no campaign: its id, and its error when it failed. */
      messageId?: string;
      errorCode?: string | null;
      errorMessage?: string | null;
      /** A campaign's batch: its messages' ids, many to one. */
      campaignId?: string;
      messageIds?: string[];
    }
  | { type: "campaign_progress"; eventId: number; campaign: Campaign };
