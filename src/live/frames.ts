import { progressView } from "../campaigns/campaigns";
import type { AppContext } from "../context";
import { threadOf } from "../conversations/conversations";
import type { ThreadMessage } from "../../shared/conversations/types";
import type { AppEvent } from "../events/events";
import type { LiveFrame as Frame } from "../../shared/live/frames";
import { getMessage, messageView } from "../messages/messages";

/** The socket's frames (shared/live/frames.ts), a campaign's progress as the server's view of it. */
export type LiveFrame = Frame<NonNullable<Awaited<ReturnType<typeof progressView>>>>;

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
