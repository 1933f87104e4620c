import { Elysia, t } from "elysia";
import { PROVIDER_KINDS, type ProviderKind } from "../../db/schema";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { pageOf, pagingQuery } from "../http/paging";
import { patchBody } from "../http/patch-body";
import { recipientPhone } from "../users/default-country";
import {
  createProvider, deleteProvider, getProvider, listProviders, providersOfKind, providerView, updateProvider, URL_SECRET_PROVIDERS, webhookUrl,
} from "./accounts";
import { cleanCredentials, CREDENTIAL_FIELDS, PROVIDER_LABELS } from "./credentials";
import { adapterFor, forgetAdapter } from "./registry";
import { createSimulatorAdapter } from "./simulator";
import { ProviderError } from "./types";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const paging = t.Object(pagingQuery(100));
const rate = t.Nullable(t.Number({ minimum: 0, maximum: 10_000, error: "Messages per second must be a number from 0 to 10,000" }));
const fraction = (label: string) => t.Number({ minimum: 0, maximum: 1, error: `${label} must be between 0 and 1` });

/** A provider failure in words a user can act on. */
export function describeProviderError(err: unknown): string {
  if (!(err instanceof ProviderError)) return (err as Error)?.message || "Unexpected error";
  if (err.code === "network" || err.code === "timeout") return "Failed to connect to provider API";
  const code = err.code && !err.message.includes(err.code) ? ` (${err.code})` : "";
  if (err.kind === "auth") return `Authentication failed: ${err.message}${code}`;
  if (err.kind === "rate_limited") return `The provider is rate limiting requests; try again shortly${code}`;
  return `${err.message}${code}`;
}

/**
 * `mediaUrls`: signed URLs of the account's stored uploads (src/media, above this folder; handed in by app.ts), for
 * a simulated MMS reply.
 */
export function providerRoutes(ctx: AppContext, mediaUrls: (userId: string, ids: string[]) => Promise<string[]> = async () => []) {
  return new Elysia()
    .use(authGuard(ctx))
    // GET /api/sms-providers
    .get("/api/sms-providers", async ({ user, query }) => {
      const { page, pageSize } = pageOf(query, 50);
      return await listProviders(ctx, user.id, page, pageSize);
    }, { auth: true, query: paging })
    // GET /api/sms-providers/fields
    .get(
      "/api/sms-providers/fields",
      () => ({ ...CREDENTIAL_FIELDS, labels: PROVIDER_LABELS }),
      { auth: true },
    )
    // GET /api/sms-providers/webhook-urls
    .get(
      "/api/sms-providers/webhook-urls",
      async ({ user }) => {
        type WebhookUrl = { provider: ProviderKind; label: string; url: string | null; needsAccount: boolean; providerId?: string };
        const kinds = PROVIDER_KINDS.filter((k) => k !== "simulator") as ProviderKind[];
        const perKind = await Promise.all(
          kinds.map(async (kind): Promise<WebhookUrl[]> => {
            const label = PROVIDER_LABELS[kind];
            if (!URL_SECRET_PROVIDERS.includes(kind)) {
              return [{ provider: kind, label, url: `${ctx.config.publicUrl}/api/webhooks/${kind}/sms/${user.id}`, needsAccount: false }];
            }
            const accounts = await providersOfKind(ctx, user.id, kind);
            if (!accounts.length) return [{ provider: kind, label, url: null, needsAccount: true }];
            return accounts.map((a) => ({ provider: kind, label: `${label}: ${a.displayName}`, url: webhookUrl(ctx, a), needsAccount: false, providerId: a.id }));
          }),
        );
        return { userId: user.id, urls: perKind.flat() };
      },
      { auth: true },
    )
    // POST /api/sms-providers
    .post(
      "/api/sms-providers",
      async ({ user, body, set }) => {
        const kind = body.provider?.trim().toLowerCase() as ProviderKind | undefined;
        if (!kind || !PROVIDER_KINDS.includes(kind)) throw badRequest("Please choose a provider");
        const displayName = body.displayName?.trim();
        if (!displayName) throw badRequest("Display name is required");
        const credentials = cleanCredentials(kind, body as Record<string, unknown>);
        const account = await createProvider(ctx, user.id, {
          provider: kind,
          displayName,
          credentials,
          isDefault: !!body.isDefault,
          messagesPerSecond: body.messagesPerSecond ?? null,
        });
        set.status = 201;
        return providerView(ctx, account);
      },
      {
        auth: true,
        body: t.Object({
          provider: t.Optional(t.String({ maxLength: 20 })),
          displayName: t.Optional(t.String({ maxLength: 100 })),
          isDefault: t.Optional(t.Boolean()),
          messagesPerSecond: t.Optional(rate),
          accountSid: t.Optional(t.String({ maxLength: 500 })),
          authToken: t.Optional(t.String({ maxLength: 500 })),
          apiKey: t.Optional(t.String({ maxLength: 500 })),
          apiSecret: t.Optional(t.String({ maxLength: 500 })),
          publicKey: t.Optional(t.String({ maxLength: 500 })),
        }),
      },
    )
    // PATCH /api/sms-providers/:id
    .patch(
      "/api/sms-providers/:id",
      async ({ user, params, body }) => {
        if (body.displayName !== undefined && !body.displayName.trim()) throw badRequest("Display name is required");
        const account = await updateProvider(ctx, user.id, params.id, { ...body, displayName: body.displayName?.trim() });
        forgetAdapter(ctx, account.id);
        return providerView(ctx, account);
      },
      {
        auth: true,
        params: idParams,
        ...patchBody(
          t.Object({
            displayName: t.Optional(t.String({ maxLength: 100, error: "Display name must be text of at most 100 characters" })),
            isDefault: t.Optional(t.Boolean({ error: "isDefault must be true or false" })),
            isActive: t.Optional(t.Boolean({ error: "isActive must be true or false" })),
            messagesPerSecond: t.Optional(rate),
            settings: t.Optional(
              t.Object({
                deliveryDelayMs: t.Optional(t.Integer({ minimum: 0, maximum: 600_000, error: "Delivery delay must be 0 to 600,000 ms" })),
                failRate: t.Optional(fraction("Fail rate")),
                throttleRate: t.Optional(fraction("Throttle rate")),
                errorRate: t.Optional(fraction("Error rate")),
              }),
            ),
          }),
        ),
      },
    )
    // DELETE /api/sms-providers/:id
    .delete(
      "/api/sms-providers/:id",
      async ({ user, params }) => {
        await deleteProvider(ctx, user.id, params.id);
        forgetAdapter(ctx, params.id);
        return { message: "Provider deleted" };
      },
      { auth: true, params: idParams },
    )
    // POST /api/sms-providers/:id/test
    .post(
      "/api/sms-providers/:id/test",
      async ({ user, params }) => {
        const account = await getProvider(ctx, user.id, params.id);
        try {
          const adapter = await adapterFor(ctx, account);
          return { success: true, message: await adapter.testConnection() };
        } catch (err) {
          return { success: false, error: describeProviderError(err) };
        }
      },
      { auth: true, params: idParams },
    )
    // GET /api/providers/:id/available-numbers
    .get(
      "/api/providers/:id/available-numbers",
      async ({ user, params }) => {
        const account = await getProvider(ctx, user.id, params.id);
        try {
          const adapter = await adapterFor(ctx, account);
          return { success: true, numbers: await adapter.listNumbers() };
        } catch (err) {
          return { success: false, numbers: [], error: describeProviderError(err) };
        }
      },
      { auth: true, params: idParams },
    )
    // GET /api/:provider/numbers
    .get(
      "/api/:provider/numbers",
      async ({ user, params }) => {
        const kind = params.provider.toLowerCase() as ProviderKind;
        if (!PROVIDER_KINDS.includes(kind)) throw notFound("Not found");
        const accounts = (await providersOfKind(ctx, user.id, kind)).filter((a) => a.isActive);
        const account = accounts.find((a) => a.isDefault) ?? accounts[0];
        if (!account) return { success: false, numbers: [], error: `No ${PROVIDER_LABELS[kind]} account is set up. Add one in Phone Settings.` };
        try {
          return { success: true, numbers: await (await adapterFor(ctx, account)).listNumbers() };
        } catch (err) {
          return { success: false, numbers: [], error: describeProviderError(err) };
        }
      },
      { auth: true, params: t.Object({ provider: t.String({ maxLength: 20 }) }) },
    )
    // POST /api/sms-providers/:id/simulate-inbound
    .post(
      "/api/sms-providers/:id/simulate-inbound",
      async ({ user, params, body, set }) => {
        const account = await getProvider(ctx, user.id, params.id);
        if (account.provider !== "simulator") throw badRequest("Only the simulator can simulate a reply");
        const text = body.body.trim();
        const media = body.mediaIds?.length ? await mediaUrls(user.id, body.mediaIds) : [];
        if (!text && !media.length) throw badRequest("Message content is required");
        const from = await recipientPhone(ctx, user.id, body.from);
        const adapter = (await adapterFor(ctx, account)) as ReturnType<typeof createSimulatorAdapter>;
        const to = body.to?.trim() || (await adapter.listNumbers())[0]!.phoneNumber;
        adapter.simulateInbound(from, to, text, media);
        set.status = 202;
        return { message: "Reply simulated" };
      },
      {
        auth: true,
        params: idParams,
        body: t.Object({
          from: t.String({ maxLength: 40 }),
          to: t.Optional(t.String({ maxLength: 40 })),
          body: t.String({ maxLength: 1600 }),
          mediaIds: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 5, error: "mediaIds lists at most 5 uploads (POST /api/media)" })),
        }),
      },
    );
}
