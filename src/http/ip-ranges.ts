import { isIP } from "node:net";

/**
 * IP addresses as numbers, CIDR ranges, and what kind of address one is, judged by an allow-list: an address is
 * public only inside a range listed here as global unicast (IANA's special-purpose registries), and every address
 * outside them is refused. A deny-list of known private ranges lets through whatever it forgot (NAT64 local-use,
 * site-local, Teredo, the IETF /24 did).
 */

export type Ip = { family: 4 | 6; value: bigint };
export type Cidr = { family: 4 | 6; base: bigint; prefix: number };

const BITS = { 4: 32, 6: 128 } as const;

function v4Value(text: string): bigint {
  return text.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6Value(text: string): bigint {
  let t = text.toLowerCase().replace(/%.*$/, "");
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(t);
  if (tail) {
    const v = v4Value(tail[1]!);
    t = t.slice(0, -tail[1]!.length) + `${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, rest] = t.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const groups = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g || "0", 16)), 0n);
}

/** An address in any valid spelling (brackets and an IPv6 zone allowed), or null. */
export function parseIp(text: string): Ip | null {
  const bare = text.replace(/^\[|\]$/g, "");
  const family = isIP(bare.replace(/%.*$/, ""));
  if (family === 4) return { family: 4, value: v4Value(bare) };
  if (family === 6) return { family: 6, value: v6Value(bare) };
  return null;
}

export function formatIp(ip: Ip): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => ((ip.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  // The longest run of zero groups (two or more) becomes "::".
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(":");
  return `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.len).join(":")}`;
}

const maskOf = (family: 4 | 6, prefix: number) => ((1n << BigInt(BITS[family])) - 1n) ^ ((1n << BigInt(BITS[family] - prefix)) - 1n);
/** Each prefix's mask, made once: ranges are matched on every request of some paths (a short link's click). */
const MASKS = { 4: Array.from({ length: 33 }, (_, p) => maskOf(4, p)), 6: Array.from({ length: 129 }, (_, p) => maskOf(6, p)) };
const mask = (family: 4 | 6, prefix: number) => MASKS[family][prefix]!;

/** "10.0.0.0/8", "fd12:3456::/32", or a bare address (a range of one); host bits must be zero. Null when invalid. */
export function parseCidr(text: string): Cidr | null {
  const [addr, bits, extra] = text.trim().split("/");
  if (extra !== undefined || !addr || addr.includes("%")) return null;
  const ip = parseIp(addr);
  if (!ip) return null;
  const prefix = bits === undefined ? BITS[ip.family] : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= BITS[ip.family])) return null;
  if ((ip.value & mask(ip.family, prefix)) !== ip.value) return null;
  return { family: ip.family, base: ip.value, prefix };
}

export const formatCidr = (c: Cidr) => `${formatIp({ family: c.family, value: c.base })}/${c.prefix}`;

export const cidrContains = (c: Cidr, ip: Ip) => c.family === ip.family && (ip.value & mask(c.family, c.prefix)) === c.base;

/** Two ranges overlap when the wider one holds the other's first address. */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  const [wide, narrow] = a.prefix <= b.prefix ? [a, b] : [b, a];
  return cidrContains(wide, { family: narrow.family, value: narrow.base });
}

// ---------------------------------------------------------------------------------------------------------------
// What kind of address

/**
 * What an address is when it is not public. `never`: no administrator can allow it (the appliance itself, the
 * local link, the cloud metadata service, "this host", multicast); the others an administrator may allow-list
 * (a LAN, a VPN).
 */
export type AddressKind = { label: string; never: boolean };

type Entry = [cidr: string, kind: AddressKind | "global"];

const never = (label: string): AddressKind => ({ label, never: true });
const local = (label: string): AddressKind => ({ label, never: false });

const LOOPBACK = never("a loopback address");
const LINK_LOCAL = never("a link-local address");
const METADATA = never("a cloud metadata address");
const UNSPECIFIED = never("an unspecified address");
const MULTICAST = never("a multicast address");
const PRIVATE = local("a private address");
const DOCUMENTATION = local("a documentation address");
const RESERVED = local("a reserved address");

/** IPv4: global unicast is 0.0.0.0-223.255.255.255 less IANA's special-purpose blocks; the most specific entry wins. */
const V4: Entry[] = [
  ["0.0.0.0/1", "global"],
  ["128.0.0.0/2", "global"],
  ["192.0.0.0/3", "global"],
  ["0.0.0.0/8", UNSPECIFIED],
  ["10.0.0.0/8", PRIVATE],
  ["100.64.0.0/10", local("a shared (carrier-grade NAT) address")],
  ["100.100.100.200/32", METADATA],
  ["127.0.0.0/8", LOOPBACK],
  ["169.254.0.0/16", LINK_LOCAL],
  ["169.254.169.254/32", METADATA],
  ["172.16.0.0/12", PRIVATE],
  ["192.0.0.0/24", local("an IETF protocol assignment")],
  ["192.0.2.0/24", DOCUMENTATION],
  ["192.88.99.0/24", local("a 6to4 relay address")],
  ["192.168.0.0/16", PRIVATE],
  ["198.18.0.0/15", local("a benchmarking address")],
  ["198.51.100.0/24", DOCUMENTATION],
  ["203.0.113.0/24", DOCUMENTATION],
  ["224.0.0.0/4", MULTICAST],
  ["240.0.0.0/4", RESERVED],
  ["255.255.255.255/32", never("the broadcast address")],
];

/** IPv6: global unicast is 2000::/3 less IANA's special-purpose blocks; everything else is refused. */
const V6: Entry[] = [
  ["2000::/3", "global"],
  ["::/128", UNSPECIFIED],
  ["::1/128", LOOPBACK],
  ["100::/64", local("a discard-only address")],
  ["64:ff9b:1::/48", local("a local-use NAT64 address")],
  ["2001::/23", local("an IETF protocol assignment")],
  ["2001:db8::/32", DOCUMENTATION],
  ["3fff::/20", DOCUMENTATION],
  ["fc00::/7", PRIVATE],
  ["fd00:ec2::254/128", METADATA],
  ["fe80::/10", LINK_LOCAL],
  ["fec0::/10", local("a site-local address")],
  ["ff00::/8", MULTICAST],
];

const table = (entries: Entry[]) =>
  entries.map(([cidr, kind]) => ({ cidr: parseCidr(cidr)!, kind })).sort((a, b) => b.cidr.prefix - a.cidr.prefix);
const TABLES = { 4: table(V4), 6: table(V6) };

/**
 * IPv6 forms that reach an IPv4 address, judged as that address: IPv4-mapped (::ffff:0:0/96) and -compatible
 * (::/96), NAT64's well-known prefix (64:ff9b::/96, a translator forwards to the last 32 bits) and 6to4
 * (2002::/16, a relay forwards to bits 16-47).
 */
export const V4_CARRIERS = ["::ffff:0:0/96", "::/96", "64:ff9b::/96", "2002::/16"].map((c) => parseCidr(c)!);

/** The IPv4 address an IPv6 one reaches, or the address itself. */
export function reachedAddress(ip: Ip): Ip {
  if (ip.family === 4 || ip.value <= 1n) return ip;
  const [mapped, compatible, nat64, sixToFour] = V4_CARRIERS as [Cidr, Cidr, Cidr, Cidr];
  if (cidrContains(mapped, ip) || cidrContains(compatible, ip) || cidrContains(nat64, ip)) return { family: 4, value: ip.value & 0xffffffffn };
  if (cidrContains(sixToFour, ip)) return { family: 4, value: (ip.value >> 80n) & 0xffffffffn };
  return ip;
}

const NOT_GLOBAL: AddressKind = local("not a global unicast address");

/** Null when the address is public (global unicast), else what it is. IPv6 carrying IPv4 is judged as the IPv4. */
export function addressKind(ip: Ip): AddressKind | null {
  const reached = reachedAddress(ip);
  const hit = TABLES[reached.family].find((e) => cidrContains(e.cidr, reached));
  if (!hit) return NOT_GLOBAL;
  return hit.kind === "global" ? null : hit.kind;
}

/** The ranges no administrator may allow (loopback, link-local, metadata...), with what each is, lowest first. */
export function neverAllowedRanges(): { cidr: Cidr; kind: AddressKind }[] {
  return [...V4, ...V6].flatMap(([cidr, kind]) => (kind !== "global" && kind.never ? [{ cidr: parseCidr(cidr)!, kind }] : []));
}
