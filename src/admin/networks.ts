import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { type Cidr, cidrsOverlap, formatCidr, neverAllowedRanges, parseCidr, V4_CARRIERS } from "../http/ip-ranges";

/**
 * The administrator's webhook allow-list: the networks (CIDRs) and host names that users' webhooks may call although
 * they are not public (an n8n on the LAN, a CRM behind a VPN). Kept in system_settings. It can never open the
 * appliance itself, the local link or a cloud metadata service: entries that include them are refused, and the
 * guard refuses such addresses whatever the list says (src/outbound-webhooks/ssrf.ts).
 */

const KEY = "webhookAllowList";
export const MAX_ALLOW_LIST = 100;

/** The list as a guard reads it: networks, exact host names and `*.suffix` patterns (kept as ".suffix"). */
export type AllowList = { networks: Cidr[]; hosts: string[]; suffixes: string[] };

const HOST_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const NEVER_HINT = "Webhooks never call loopback, link-local or cloud metadata addresses.";

/** One entry checked and written the one way it is kept (a CIDR in its short form, a name in lower case). */
function normalise(raw: string): string {
  const entry = raw.trim();
  if (!entry) throw badRequest("An allow-list entry is empty");
  const cidr = parseCidr(entry);
  if (cidr) {
    const overlapping = neverAllowedRanges().filter((r) => cidrsOverlap(cidr, r.cidr));
    // Named: the narrowest range that holds the whole entry (169.254.169.254 is the metadata address, not just
    // link-local), else the lowest range inside it.
    const holding = overlapping.filter((r) => r.cidr.prefix <= cidr.prefix).sort((a, b) => b.cidr.prefix - a.cidr.prefix);
    const named = holding[0] ?? overlapping[0];
    if (named) throw badRequest(`"${entry}" cannot be allowed: it includes ${formatCidr(named.cidr)} (${named.kind.label}). ${NEVER_HINT}`);
    for (const carrier of V4_CARRIERS) {
      if (cidrsOverlap(cidr, carrier)) {
        throw badRequest(`"${entry}" cannot be allowed: it overlaps ${formatCidr(carrier)}, whose addresses reach IPv4 ones. List the IPv4 network instead.`);
      }
    }
    return formatCidr(cidr);
  }
  if (entry.includes("/") || /^[\d.]+$/.test(entry) || entry.includes(":")) {
    throw badRequest(`"${entry}" is not a valid network: write it as an address or a CIDR such as 10.0.0.0/8 or fd12:3456::/48 (no host bits set)`);
  }
  const name = entry.toLowerCase().replace(/\.$/, "");
  if (name.length > 253 || !HOST_NAME.test(name)) {
    throw badRequest(`"${entry}" is neither a network (a CIDR such as 10.0.0.0/8) nor a host name (such as n8n.lan or *.corp.example)`);
  }
  if (name === "localhost" || name.endsWith(".localhost")) throw badRequest(`"${entry}" cannot be allowed: it is this appliance itself. ${NEVER_HINT}`);
  return name;
}

export async function webhookAllowList(ctx: AppContext): Promise<string[]> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ value: string }>(`SELECT value FROM system_settings WHERE key = ?`, [KEY]);
  return row ? (JSON.parse(row.value) as string[]) : [];
}

/**
 * Checks every entry (400 naming the first refused), drops repeats, and saves the list. `beforeWidening` runs (and
 * may refuse) when the entries would allow anything the saved list does not: the route's check that the
 * administrator confirmed (sudo mode), made against the list read in the transaction that writes, so a list saved
 * meanwhile is what it is compared with.
 */
export async function setWebhookAllowList(ctx: AppContext, entries: string[], beforeWidening?: () => Promise<void>): Promise<string[]> {
  return ctx.withTransaction(async () => {
    if (widens(await webhookAllowList(ctx), entries)) await beforeWidening?.();
    const list = [...new Set(entries.map(normalise))];
    if (list.length > MAX_ALLOW_LIST) throw badRequest(`The allow-list holds at most ${MAX_ALLOW_LIST} entries`);
    await ctx.records.$run(
      `INSERT INTO system_settings (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [KEY, JSON.stringify(list), ctx.now()],
    );
    return list;
  });
}

/** Whether saving `entries` would allow anything the `saved` list does not (asked for in sudo mode). */
function widens(savedList: string[], entries: string[]): boolean {
  const saved = new Set(savedList);
  return entries.some((e) => {
    try {
      return !saved.has(normalise(e));
    } catch {
      return false;
    }
  });
}

export function allowListOf(entries: string[]): AllowList {
  const networks: Cidr[] = [];
  const hosts: string[] = [];
  const suffixes: string[] = [];
  for (const entry of entries) {
    const cidr = parseCidr(entry);
    if (cidr) networks.push(cidr);
    else if (entry.startsWith("*.")) suffixes.push(entry.slice(1));
    else hosts.push(entry);
  }
  return { networks, hosts, suffixes };
}
