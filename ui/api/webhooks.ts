/** Outbound webhooks, their test event and delivery log: /api/webhooks/* (not the providers' inbound webhooks). */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import { qs, type Ok, type Routes } from "./types";

type Webhooks = Routes["api"]["webhooks"];

export type WebhookList = Ok<Webhooks["get"]>;
export type Webhook = WebhookList["data"][number];
export type WebhookEvent = Webhook["events"][number];
export type DeliveryPage = Ok<Webhooks[":id"]["deliveries"]["get"]>;
export type Delivery = DeliveryPage["deliveries"][number];

/** The events a webhook can subscribe to, in the order the dialog lists them (src/outbound-webhooks/webhooks.ts). */
export const WEBHOOK_EVENTS: readonly { value: WebhookEvent; label: string }[] = [
  { value: "message_sent", label: "Message sent" },
  { value: "message_delivered", label: "Message delivered" },
  { value: "message_failed", label: "Message failed" },
  { value: "message_replied", label: "Reply received" },
  { value: "keyword_received", label: "Keyword received" },
  { value: "campaign_sent", label: "Campaign finished sending" },
  { value: "contact_created", label: "Contact created" },
  { value: "contact_opted_in", label: "Contact opted in" },
  { value: "contact_opted_out", label: "Contact opted out" },
  { value: "link_clicked", label: "Link clicked (people only)" },
];

export type WebhookInput = { name: string; url: string; events: WebhookEvent[]; secret?: string; active?: boolean };

export const useWebhooks = () => useApi<WebhookList>("/api/webhooks");

/** The answer carries the secret: the only time it is shown besides a rotation. */
export const createWebhook = (body: WebhookInput) => api<Webhook & { secret: string }>("/api/webhooks", { body });

export const updateWebhook = (id: string, body: Partial<WebhookInput> & { active?: boolean }) => api<Webhook>(`/api/webhooks/${id}`, { method: "PATCH", body });

export const deleteWebhook = (id: string) => api<void>(`/api/webhooks/${id}`, { method: "DELETE" });

export const rotateWebhookSecret = (id: string) => api<{ secret: string; previousSecretUntil: number }>(`/api/webhooks/${id}/rotate-secret`, { body: {} });

export const sendTestEvent = (id: string) => api<Delivery>(`/api/webhooks/${id}/test`, { method: "POST" });

export const useDeliveries = (id: string | null, page: number) =>
  useApi<DeliveryPage>(id ? `/api/webhooks/${id}/deliveries${qs({ page, pageSize: 20 })}` : null, { refreshMs: 3000 });

export const redeliver = (id: string, deliveryId: string) => api<Delivery>(`/api/webhooks/${id}/deliveries/${deliveryId}/redeliver`, { method: "POST" });

/** The public API's paths the integration cards' copyable examples call (src/public-api/routes.ts). */
export const PUBLIC_API_PATHS = { contactsUpsert: "/api/v1/contacts/upsert", messages: "/api/v1/messages", docs: "/api/docs" } as const;
