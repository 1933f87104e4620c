import { PUBLIC_API_PATHS } from "../../../api/webhooks";

export type Category = "all" | "ecommerce" | "automation" | "social" | "productivity" | "developer";

export const CATEGORIES: readonly { value: Category; label: string }[] = [
  { value: "all", label: "All Integrations" },
  { value: "ecommerce", label: "E-commerce" },
  { value: "automation", label: "Automation" },
  { value: "social", label: "Social Media" },
  { value: "productivity", label: "Productivity" },
  { value: "developer", label: "Developer" },
];

/**
 * An integration card: how to connect that tool through the API or webhooks, step by step, with an example to copy.
 * No card claims a connection: nothing here talks to the tool itself.
 */
export type IntegrationCard = { name: string; category: Exclude<Category, "all">; summary: string; steps: string[]; example: (origin: string) => string };

const upsertContact = (origin: string, fields: string) =>
  `curl -X POST ${origin}${PUBLIC_API_PATHS.contactsUpsert} \\
  -H "Authorization: Bearer sk_live_YOUR_KEY" \\
  -H "Content-Type: application/json" \\
  -d '${fields}'`;

const sendMessage = (origin: string) =>
  `curl -X POST ${origin}${PUBLIC_API_PATHS.messages} \\
  -H "Authorization: Bearer sk_live_YOUR_KEY" \\
  -H "Idempotency-Key: order-1001-shipped" \\
  -H "Content-Type: application/json" \\
  -d '{"phone": "+14155550123", "content": "Your order has shipped!"}'`;

const webhookPayload = () => `{
  "type": "message_replied",
  "timestamp": "2026-06-01T12:00:00.000Z",
  "data": { "messageId": "…", "phone": "+14155550123", "contactId": "…", "media": [] }
}`;

export const CARDS: readonly IntegrationCard[] = [
  {
    name: "Shopify",
    category: "ecommerce",
    summary: "Add customers who accept SMS marketing to your contacts, and text order updates.",
    steps: [
      "Create an API key below with the contacts:write and messages:send permissions.",
      "In Shopify Flow (or Zapier/Make), on 'Customer created' or 'Order fulfilled', add an HTTP request step.",
      "Call the contacts upsert or messages endpoint as in the example; send an Idempotency-Key so a retry never texts twice.",
      'Upsert adds the tags you send to the contact\'s own (a "vip" tag stays); send "replaceTags": true to replace them.',
    ],
    example: (origin) => upsertContact(origin, `{"phone": "+14155550123", "firstName": "Ana", "tags": ["shopify"]}`),
  },
  {
    name: "WooCommerce",
    category: "ecommerce",
    summary: "Text order updates and grow your list from WooCommerce orders.",
    steps: [
      "Create an API key below with messages:send.",
      "In WooCommerce > Settings > Advanced > Webhooks, or with a plugin such as Uncanny Automator, call the endpoint on 'Order updated'.",
      "Use the order number in the Idempotency-Key.",
    ],
    example: sendMessage,
  },
  {
    name: "Zapier",
    category: "automation",
    summary: "Start Zaps on replies, deliveries and opt-outs; send texts from any Zap.",
    steps: [
      "Trigger: add a 'Webhooks by Zapier – Catch Hook' trigger and paste its URL as a webhook below (choose the events).",
      "Action: add 'Webhooks by Zapier – POST' with your API key in the Authorization header, as in the example.",
    ],
    example: sendMessage,
  },
  {
    name: "Make",
    category: "automation",
    summary: "Run scenarios on SMS events and send texts from them.",
    steps: [
      "Trigger: a 'Webhooks – Custom webhook' module; paste its address as a webhook below.",
      "Action: an 'HTTP – Make a request' module calling the API with your key.",
    ],
    example: webhookPayload,
  },
  {
    name: "n8n",
    category: "automation",
    summary: "Self-hosted automation, often on the same network as this appliance.",
    steps: [
      "Add a Webhook node (POST) and paste its production URL as a webhook below.",
      "If n8n runs on a private address (10.x, 192.168.x), an administrator adds its network or host name to the webhook allow-list in Admin Panel > Settings (never localhost: webhooks do not call the appliance itself).",
      "Verify the webhook-signature header with the standardwebhooks library and your whsec_ secret.",
    ],
    example: webhookPayload,
  },
  {
    name: "Facebook Lead Ads",
    category: "social",
    summary: "Add leads from Facebook and Instagram forms as contacts.",
    steps: ["Connect Lead Ads to Zapier or Make.", "Add an HTTP step calling the contacts upsert endpoint with your API key."],
    example: (origin) => upsertContact(origin, `{"phone": "+14155550123", "firstName": "Lead", "tags": ["facebook-lead"]}`),
  },
  {
    name: "Google Sheets",
    category: "productivity",
    summary: "Log replies and opt-outs to a sheet, or text the rows you add.",
    steps: [
      "Logging: a webhook below to a Zapier/Make scenario whose action is 'Add row' in Google Sheets.",
      "Texting new rows: 'New row' trigger, then an HTTP step calling the messages endpoint.",
    ],
    example: sendMessage,
  },
  {
    name: "HubSpot",
    category: "productivity",
    summary: "Keep contacts in step with your CRM.",
    steps: [
      "In a HubSpot workflow, add a 'Send a webhook' action (Operations Hub) or use Zapier/Make.",
      "Call the contacts upsert endpoint with your API key; subscribe a webhook below to contact_opted_out to update HubSpot.",
      'Upsert adds the tags you send to the contact\'s own; send "replaceTags": true to make them its whole list.',
    ],
    example: (origin) => upsertContact(origin, `{"phone": "+14155550123", "email": "ana@example.com", "tags": ["hubspot"]}`),
  },
  {
    name: "REST API",
    category: "developer",
    summary: "Contacts, messages, campaigns, opt-outs and custom events with your API key; the reference is served by this appliance.",
    steps: [
      "Create an API key below; it is shown once.",
      "Read the OpenAPI reference at /api/docs on this server.",
      "Webhooks are signed per Standard Webhooks: verify with the standardwebhooks library (Node, Python, Go, PHP...).",
    ],
    example: sendMessage,
  },
];
