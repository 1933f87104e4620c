import { progressView } from "../campaigns/campaigns";
import type { AppContext } from "../context";
import { threadOf } from "../conversations/conversations";
import type { ThreadMessage } from "../conversations/types";
import type { AppEvent } from "../events/events";
import { getMessage, messageView } from "../messages/messages";

/**
 * What the socket sends: the spec's `new_message` and `message_status`, `conversation_updated` and
 * `campaign_progress`, each with the id of the event it comes from (`eventId`), which the client sends back to
 * resume after it. `ready` and `reset` are the session's own frames (src/live/hub.ts).
 */
export type LiveFrame =
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
  | { type: "campaign_progress"; eventId: number; campaign: NonNullable<Awaited<ReturnType<typeof progressView>>> };

const STATUS_OF: Partial<Record<AppEvent["type"], "sent" | "delivered" | "failed" | "unknown">> = {
  "message.sent": "sent",
  "message.delivered": "delivered",
  "message.failed": "failed",
  "message.unknown": "unknown",
};

/** The campaign an event moves forward, if any: its own, or the campaign a batch of its messages belongs to. */
export function campaignOf(e: AppEvent): string | null {
  if (e.subject.kind !== "campaign") return null;
  return e.type.startsWith("campaign.") || e.type.startsWith("message.") ? e.subject.id : null;
}

/** A thread's event: a message that joined it, or a change of the thread itself. */
async function conversationFrame(ctx: AppContext, userId: string, e: AppEvent): Promise<LiveFrame | null> {
  if (e.subject.kind === "campaign") return { type: "conversation_updated", eventId: e.id, conversationId: null, campaignId: e.subject.id, changes: e.payload };
  const conversationId = Number(e.subject.id);
  const { messageId, seq } = e.payload as { messageId?: string; seq?: number };
  if (!messageId || typeof seq !== "number") return { type: "conversation_updated", eventId: e.id, conversationId, changes: e.payload };
  // The message as it is now; a thread deleted since, or the message gone, sends nothing.
  let message: ThreadMessage | undefined;
  try {
    message = (await threadOf(ctx, userId, conversationId, { after: seq - 1, limit: 1 }))[0];
  } catch {
    return null;
  }
  if (message?.id !== messageId) return null;
  return {
    type: "new_message",
    eventId: e.id,
    conversationId,
    phone: message.phone,
    content: message.content,
    timestamp: message.timestamp,
    direction: message.direction,
    message,
    state: String(e.payload.state),
    unreadCount: Number(e.payload.unreadCount),
  };
}

/** The frame an event becomes, or null for events the socket does not carry. */
export async function frameOf(ctx: AppContext, userId: string, e: AppEvent): Promise<LiveFrame | null> {
  if (e.type === "conversation.updated") return conversationFrame(ctx, userId, e);
  // A new message reaches the socket through its thread's event (above), which knows the thread.
  const status = STATUS_OF[e.type];
  if (!status) return null;
  if (e.subject.kind === "campaign") {
    return { type: "message_status", eventId: e.id, status, campaignId: e.subject.id, messageIds: (e.payload.messageIds as string[]) ?? [] };
  }
  if (e.subject.kind !== "message") return null;
  // A single message (chat, one-off, compliance reply), with its error as it is now; a deleted one sends nothing.
  let m: ReturnType<typeof messageView>;
  try {
    m = messageView(await getMessage(ctx, userId, e.subject.id));
  } catch {
    return null;
  }
  return { type: "message_status", eventId: e.id, status, messageId: m.id, errorCode: m.errorCode, errorMessage: m.errorMessage };
}

/** A campaign as it is now, for its progress frame; null when it was deleted since. */
export async function progressFrame(ctx: AppContext, userId: string, campaignId: string, eventId: number): Promise<LiveFrame | null> {
  try {
    const campaign = await progressView(ctx, userId, campaignId);
    return campaign && { type: "campaign_progress", eventId, campaign };
  } catch {
    return null;
  }
}
