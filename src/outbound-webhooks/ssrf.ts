import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { AllowList } from "../admin/networks";
import { badRequest } from "../http/errors";
import { type AddressKind, addressKind, cidrContains, parseIp, reachedAddress } from "../http/ip-ranges";

/**
 * Server-side request forgery guard for user webhook URLs. Bun's fetch resolves names itself and ignores Node's
 * agents, so a filter that checks a name and then lets fetch resolve it again loses to DNS rebinding. Instead the
 * name is resolved once here, every address checked, and the request made to the checked address (see pinnedRequest).
 */

/**
 * Who may be called: public (global unicast) addresses, and the non-public ones the administrator's allow-list
 * names (by network, or by the URL's host name); never loopback, link-local or metadata addresses. `judgeAs` is a
 * test seam (AppContext.webhookTestNetwork): an address judged as another, so a test's receiver on 127.0.0.1 can
 * stand in for a public or a LAN host.
 */
export type NetworkPolicy = { allowList: AllowList; judgeAs?: Readonly<Record<string, string>> };

const ALLOW_HINT = "An administrator can add its network or host name to the webhook allow-list in Admin Panel > Settings.";
const NEVER_HINT = "Webhooks never call loopback, link-local or cloud metadata addresses.";

/** What an address is, judged as the test seam says; null when public. */
function kindOf(address: string, policy: NetworkPolicy): AddressKind | null {
  const judged = policy.judgeAs?.[address] ?? address;
  return addressKind(parseIp(judged)!);
}

function allowListed(address: string, host: string, policy: NetworkPolicy): boolean {
  const { networks, hosts, suffixes } = policy.allowList;
  if (hosts.includes(host) || suffixes.some((s) => host.endsWith(s))) return true;
  const ip = reachedAddress(parseIp(policy.judgeAs?.[address] ?? address)!);
  return networks.some((n) => cidrContains(n, ip));
}

/** Why an address may not be called, or null: the message for a refusal (see resolveTarget). */
export function refusedAddress(address: string): string | null {
  return addressKind(parseIp(address)!)?.label ?? null;
}

/** `public`: the address is global unicast; answers from the others are kept from tenants (they may be internal). */
export type Target = { url: URL; address: string; family: 4 | 6; public: boolean };

/**
 * Resolves a webhook URL's host (every address it has) and answers the first address to call; 400 when any address
 * is refused (a name with one private address among public ones could be steered to it). A refusal names the
 * literal address a URL gives, but never the address a name resolved to: that would map the appliance's network
 * for whoever types names.
 */
export async function resolveTarget(rawUrl: string, policy: NetworkPolicy): Promise<Target> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw badRequest("The webhook URL is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badRequest("The webhook URL must start with http:// or https://");
  if (url.username || url.password) throw badRequest("The webhook URL must not contain a user name or password");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const literal = isIP(host) !== 0;
  let addresses: { address: string; family: number }[];
  if (literal) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw badRequest(`The webhook URL's host ${host} could not be resolved`);
    }
  }
  if (!addresses.length) throw badRequest(`The webhook URL's host ${host} could not be resolved`);
  let allPublic = true;
  for (const { address } of addresses) {
    const kind = kindOf(address, policy);
    if (!kind) continue;
    allPublic = false;
    if (!kind.never && allowListed(address, host, policy)) continue;
    const what = literal ? `${host} is ${kind.label}` : `${host} resolves to ${kind.label}`;
    throw badRequest(`The webhook URL ${url.origin} was refused: ${what}. ${kind.never ? NEVER_HINT : ALLOW_HINT}`);
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4, public: allPublic };
}

/**
 * The fetch arguments that call the checked address itself: the URL's host replaced by the address, the Host
 * header set to the original host, and for https the TLS server name (SNI and certificate check) set to it, so a
 * second resolution never happens. Redirects are never followed.
 */
export function pinnedRequest(target: Target, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) {
  const { url, address, family } = target;
  const pinned = new URL(url);
  pinned.hostname = family === 6 ? `[${address}]` : address;
  return {
    url: pinned.toString(),
    init: {
      ...init,
      headers: { ...init.headers, host: url.host },
      redirect: "manual" as const,
      ...(url.protocol === "https:" ? { tls: { serverName: url.hostname } } : {}),
    },
  };
}
