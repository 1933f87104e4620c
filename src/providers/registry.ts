import type { AppContext } from "../context";
import { providerCredentials, simulatorSettings, webhookUrl, type ProviderAccount } from "./accounts";
import { createSimulatorAdapter } from "./simulator";
import type { AdapterOptions, Credentials, ProviderAdapter } from "./types";

type Factory = (credentials: Credentials, options: AdapterOptions) => ProviderAdapter;

/** Real adapters load on first use: the twilio SDK alone costs about 200 ms of start-up. */
const FACTORIES: Record<Exclude<ProviderAccount["provider"], "simulator">, () => Promise<Factory>> = {
  twilio: async () => (await import("./twilio")).createTwilioAdapter as Factory,
  telnyx: async () => (await import("./telnyx")).createTelnyxAdapter as Factory,
  brevo: async () => (await import("./brevo")).createBrevoAdapter as Factory,
  textmagic: async () => (await import("./textmagic")).createTextMagicAdapter as Factory,
  clicksend: async () => (await import("./clicksend")).createClickSendAdapter as Factory,
};

type Cached = { version: string; adapter: ProviderAdapter };
const caches = new WeakMap<AppContext, Map<string, Cached>>();

const versionOf = (account: ProviderAccount) => `${account.credentialsEncrypted}|${JSON.stringify(account.settings)}`;

/** The adapter when it is already built (the engine calls providers without waiting on a module load). */
export function readyAdapter(ctx: AppContext, account: ProviderAccount): ProviderAdapter | null {
  const hit = caches.get(ctx)?.get(account.id);
  return hit?.version === versionOf(account) ? hit.adapter : null;
}

/** The adapter of an account, built once per version of its credentials and settings. */
export async function adapterFor(ctx: AppContext, account: ProviderAccount): Promise<ProviderAdapter> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  const version = versionOf(account);
  const hit = cache.get(account.id);
  if (hit?.version === version) return hit.adapter;
  const adapter =
    account.provider === "simulator"
      ? createSimulatorAdapter(ctx, { id: account.id, webhookUrl: webhookUrl(ctx, account), settings: simulatorSettings(account) })
      : (await FACTORIES[account.provider]())(providerCredentials(ctx, account), { baseUrl: ctx.config.providerApiBase[account.provider] });
  await adapter.prepare?.();
  cache.set(account.id, { version, adapter });
  return adapter;
}

export function forgetAdapter(ctx: AppContext, accountId: string) {
  caches.get(ctx)?.delete(accountId);
}
