import { Elysia, t } from "elysia";
import { PROVIDER_KINDS, type ProviderKind } from "../../db/schema";
import { settleCampaign } from "../campaigns/lifecycle";
import type { AppContext } from "../context";
import { forbidden, notFound } from "../http/errors";
import { applyStatusEvents, recordInbound } from "../messages/messages";
import { sendingManager } from "../sending/manager";
import { providersOfKind, URL_SECRET_PROVIDERS, type ProviderAccount } from "./accounts";
import { webhookSecretMatches } from "./credentials";
import { adapterFor } from "./registry";
import { WebhookRejected, type WebhookEvent, type WebhookParseResult, type WebhookRequest } from "./types";

const REJECTED = "Webhook verification failed";

/** Finds the account the request really comes from; 403 (and nothing changed) when none verifies it. */
async function verify(ctx: AppContext, kind: ProviderKind, userId: string, request: WebhookRequest) {
  const accounts = providersOfKind(ctx, userId, kind);
  const key = new URL(request.url).searchParams.get("key");
  const candidates: ProviderAccount[] = URL_SECRET_PROVIDERS.includes(kind) ? accounts.filter((a) => webhookSecretMatches(ctx, a.id, key)) : accounts;
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

function apply(ctx: AppContext, account: ProviderAccount, parsed: WebhookParseResult) {
  const statuses = parsed.events.filter((e): e is Extract<WebhookEvent, { type: "status" }> => e.type === "status");
  const changed = statuses.length ? applyStatusEvents(ctx, account, statuses) : [];
  let replies = 0;
  for (const e of parsed.events) if (e.type === "inbound" && recordInbound(ctx, account, e).reply) replies++;
  if (replies) sendingManager(ctx).wake();
  for (const campaignId of new Set(changed.map((c) => c.campaignId).filter((c): c is string => !!c))) settleCampaign(ctx, campaignId);
}

/**
 * Inbound messages and delivery reports from every provider: POST /api/webhooks/{provider}/sms/{userId}.
 * Twilio and Telnyx requests are verified by their signatures; providers that sign nothing carry the account's
 * secret in the URL (`?key=`). A request that fails verification answers 403 and changes nothing; a report
 * received twice changes nothing the second time.
 */
export function providerWebhookRoutes(ctx: AppContext) {
  return new Elysia().post(
    "/api/webhooks/:provider/sms/:userId",
    async ({ params, request, set }) => {
      const kind = params.provider.toLowerCase() as ProviderKind;
      if (!PROVIDER_KINDS.includes(kind)) throw notFound("Unknown provider");
      const incoming = new URL(request.url);
      const webhook: WebhookRequest = {
        url: `${ctx.config.publicUrl}${incoming.pathname}${incoming.search}`,
        headers: request.headers,
        rawBody: await request.text(),
        contentType: request.headers.get("content-type") ?? "",
        now: ctx.now(),
      };
      const verified = await verify(ctx, kind, params.userId, webhook);
      if (!verified) throw forbidden(REJECTED);
      apply(ctx, verified.account, verified.parsed);
      if (verified.parsed.reply) {
        set.headers["content-type"] = verified.parsed.reply.contentType;
        return verified.parsed.reply.body;
      }
      return { ok: true, events: verified.parsed.events.length };
    },
    { parse: "none", params: t.Object({ provider: t.String({ maxLength: 20 }), userId: t.String({ maxLength: 64 }) }) },
  );
}
