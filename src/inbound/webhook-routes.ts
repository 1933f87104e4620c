import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { readTextWithin, WEBHOOK_BODY_LIMIT } from "../http/body-limit";
import { forbidden, HttpError, notFound } from "../http/errors";
import { nulField, stripNul } from "../http/nul";
import { applyStatusEventsInBatches } from "../messages/messages";
import { recordInbound } from "./receive";
import { providersOfKind, URL_SECRET_PROVIDERS, type ProviderAccount } from "../providers/accounts";
import { webhookSecretMatches } from "../providers/credentials";
import { adapterFor } from "../providers/registry";
import { MAX_WEBHOOK_EVENTS, PROVIDER_KINDS, type ProviderKind, WebhookRejected, type WebhookEvent, type WebhookParseResult, type WebhookRequest } from "../providers/types";

const REJECTED = "Webhook verification failed";

/**
 * The accounts a webhook URL can belong to, known from the URL alone: the user's accounts of that provider,
 * and for providers that sign nothing, only the one whose secret the URL carries.
 */
async function candidatesFor(ctx: AppContext, kind: ProviderKind, userId: string, key: string | null): Promise<ProviderAccount[]> {
  const accounts = await providersOfKind(ctx, userId, kind);
  return URL_SECRET_PROVIDERS.includes(kind) ? accounts.filter((a) => webhookSecretMatches(ctx, a.id, key)) : accounts;
}

/** Finds the account the request really comes from; 403 (and nothing changed) when none verifies it. */
async function verify(ctx: AppContext, candidates: ProviderAccount[], request: WebhookRequest) {
  for (const account of candidates) {
    const adapter = await adapterFor(ctx, account);
    try {
      return { account, parsed: await adapter.parseWebhook(request) };
    } catch (err) {
      if (!(err instanceof WebhookRejected)) throw err;
    }
  }
  return null;
}

/** Inbound messages recorded between two turns of the event loop. */
const INBOUND_BATCH = 100;

/**
 * An event with the NUL characters of its text dropped: a provider's message is taken as it comes (refusing it
 * would only make the provider retry it), and NUL is stored nowhere (src/http/nul.ts).
 */
function withoutNul(e: WebhookEvent): WebhookEvent {
  if (nulField(e) === null) return e;
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e)) {
    clean[key] = typeof value === "string" ? stripNul(value) : Array.isArray(value) ? value.map((v) => (typeof v === "string" ? stripNul(v) : v)) : value;
  }
  return clean as WebhookEvent;
}

async function apply(ctx: AppContext, account: ProviderAccount, parsed: WebhookParseResult) {
  const events = parsed.events.map(withoutNul);
  const statuses = events.filter((e): e is Extract<WebhookEvent, { type: "status" }> => e.type === "status");
  if (statuses.length) await applyStatusEventsInBatches(ctx, account, statuses);
  const inbound = events.filter((e): e is Extract<WebhookEvent, { type: "inbound" }> => e.type === "inbound");
  for (let i = 0; i < inbound.length; i++) {
    if (i && i % INBOUND_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    await recordInbound(ctx, account, inbound[i]!);
  }
}

/**
 * Inbound messages and delivery reports from every provider: POST /api/webhooks/{provider}/sms/{userId}.
 * Twilio and Telnyx requests are verified by their signatures; providers that sign nothing carry the account's
 * secret in the URL (`?key=`). A request that fails verification answers 403 and changes nothing; a report
 * received twice changes nothing the second time. The account is checked before a byte of the body is read,
 * the body is capped at WEBHOOK_BODY_LIMIT and its events at MAX_WEBHOOK_EVENTS (413, nothing applied).
 */
export function providerWebhookRoutes(ctx: AppContext) {
  // POST /api/webhooks/:provider/sms/:userId
  return new Elysia().post(
    "/api/webhooks/:provider/sms/:userId",
    async ({ params, request, set }) => {
      const kind = params.provider.toLowerCase() as ProviderKind;
      if (!PROVIDER_KINDS.includes(kind)) throw notFound("Unknown provider");
      const incoming = new URL(request.url);
      const candidates = await candidatesFor(ctx, kind, params.userId, incoming.searchParams.get("key"));
      if (!candidates.length) throw forbidden(REJECTED);
      const webhook: WebhookRequest = {
        url: `${ctx.config.publicUrl}${incoming.pathname}${incoming.search}`,
        headers: request.headers,
        rawBody: await readTextWithin(request, WEBHOOK_BODY_LIMIT),
        contentType: request.headers.get("content-type") ?? "",
        now: ctx.now(),
      };
      const verified = await verify(ctx, candidates, webhook);
      if (!verified) throw forbidden(REJECTED);
      const events = verified.parsed.events.length;
      if (events > MAX_WEBHOOK_EVENTS) {
        throw new HttpError(413, `A webhook request can carry at most ${MAX_WEBHOOK_EVENTS.toLocaleString("en-US")} events; this one has ${events.toLocaleString("en-US")}. Nothing was applied: send them in smaller batches.`);
      }
      await apply(ctx, verified.account, verified.parsed);
      if (verified.parsed.reply) {
        set.headers["content-type"] = verified.parsed.reply.contentType;
        return verified.parsed.reply.body;
      }
      return { ok: true, events: verified.parsed.events.length };
    },
    { parse: "none", params: t.Object({ provider: t.String({ maxLength: 20 }), userId: t.String({ maxLength: 64 }) }) },
  );
}
