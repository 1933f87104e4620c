import { getCampaign, viewOf } from "../campaigns/campaigns";
import type { AppContext } from "../context";
import type { AppEvent } from "../events/events";
import { getMessage, messageView } from "../messages/messages";

/**
 * What the socket sends: the spec's `new_message` and `message_status`, and `campaign_progress`, each with the id
 * of the event it comes from (`eventId`), which the client sends back to resume after it. `ready` and `reset` are
 * the session's own frames (src/live/hub.ts).
 */
export type LiveFrame =
  | {
      type: "new_message";
      eventId: number;
      messageId: string;
      conversationId: string | null;
      contactId: string | null;
      phone: string;
      content: string;
      /** ISO time the message was recorded. */
      timestamp: string;
      direction: "inbound" | "outbound";
      status: string;
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
  | { type: "campaign_progress"; eventId: number; campaign: ReturnType<typeof viewOf> };

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

/** The frame a message's own event becomes, or null for events the socket does not carry. */
export function messageFrame(ctx: AppContext, userId: string, e: AppEvent): LiveFrame | null {
  if (e.subject.kind !== "message") {
    const status = STATUS_OF[e.type];
    if (!status || e.subject.kind !== "campaign") return null;
    return { type: "message_status", eventId: e.id, status, campaignId: e.subject.id, messageIds: (e.payload.messageIds as string[]) ?? [] };
  }
  // A single message (chat, one-off, compliance reply) is read as it is now: a deleted one sends nothing.
  let m: ReturnType<typeof messageView>;
  try {
    m = messageView(getMessage(ctx, userId, e.subject.id));
  } catch {
    return null;
  }
  const status = STATUS_OF[e.type];
  if (status) return { type: "message_status", eventId: e.id, status, messageId: m.id, errorCode: m.errorCode, errorMessage: m.errorMessage };
  if (e.type !== "message.received" && e.type !== "message.queued") return null;
  return {
    type: "new_message",
    eventId: e.id,
    messageId: m.id,
    conversationId: (m as { conversationId?: string | null }).conversationId ?? null,
    contactId: m.contactId,
    phone: m.phone,
    content: m.content,
    timestamp: m.createdAt,
    direction: m.direction,
    status: m.status,
  };
}

/** A campaign as it is now, for its progress frame; null when it was deleted since. */
export function progressFrame(ctx: AppContext, userId: string, campaignId: string, eventId: number): LiveFrame | null {
  try {
    return { type: "campaign_progress", eventId, campaign: viewOf(ctx, getCampaign(ctx, userId, campaignId)) };
  } catch {
    return null;
  }
}
