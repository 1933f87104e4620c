// The client address. server.ts hands requests to `app.handle()`, where Elysia has no `server` to ask,
// so it records the address here first. X-Forwarded-For is believed only when the socket peer is one of
// the operator's TRUSTED_PROXIES: anyone else can write whatever they like in it.
const addresses = new WeakMap<Request, string>();

/** An address as 16 bytes: IPv4 as its IPv4-mapped IPv6 form, so `1.2.3.4` and `::ffff:1.2.3.4` are one client. */
type Bytes = Uint8Array;
export type Cidr = { bytes: Bytes; prefix: number };

function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    out.push(Number(p));
  }
  return out;
}

function parseIpv6(text: string): Bytes | null {
  let tail: number[] = [];
  let head = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    // An embedded IPv4 tail (::ffff:1.2.3.4) fills the last 32 bits.
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    head = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...right];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(all[i]!)) return null;
    const v = parseInt(all[i]!, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  }
  if (tail.length) bytes.set(tail, 12);
  return bytes;
}

/** An IPv4 or IPv6 address (brackets and a zone index allowed), or null. */
export function parseIp(text: string): Bytes | null {
  let s = text.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s || s.length > 45) return null;
  const v4 = parseIpv4(s);
  if (v4) return new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);
  return s.includes(":") ? parseIpv6(s) : null;
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  const addr = slash < 0 ? text : text.slice(0, slash);
  const bytes = parseIp(addr);
  if (!bytes) return null;
  const isV4 = !!parseIpv4(addr.trim());
  const max = isV4 ? 32 : 128;
  if (slash < 0) return { bytes, prefix: 128 };
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  return { bytes, prefix: Number(bits) + (isV4 ? 96 : 0) };
}

function inCidr(ip: Bytes, cidr: Cidr): boolean {
  for (let bit = 0; bit < cidr.prefix; bit += 8) {
    const take = Math.min(8, cidr.prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((ip[bit / 8]! & mask) !== (cidr.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

/** One spelling per client: IPv4-mapped IPv6 as dotted IPv4, IPv6 in lower case without brackets or zone. */
function canonical(text: string, bytes: Bytes): string {
  if (bytes.slice(0, 12).every((b, i) => b === (i < 10 ? 0 : 0xff))) return bytes.slice(12).join(".");
  return text.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "").toLowerCase();
}

/**
 * The key limits and sign-in blocks count a client under. An IPv6 host is given a whole /64 (RFC 6177; SLAAC
 * and privacy addresses rotate inside it), so one subscriber could take a fresh address for every guess:
 * keyed by the /64, `2001:db8:1:2::/64`. IPv4 (and IPv4-mapped IPv6) stays one address.
 */
export function clientKey(address: string): string {
  const bytes = parseIp(address);
  if (!bytes || bytes.slice(0, 12).every((b, i) => b === (i < 10 ? 0 : 0xff))) return address;
  const groups = Array.from({ length: 4 }, (_, i) => ((bytes[i * 2]! << 8) | bytes[i * 2 + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}

const matchers = new WeakMap<readonly string[], Cidr[]>();

/**
 * The client's address for a request that reached the socket from `peer`. Behind trusted proxies it is the
 * rightmost X-Forwarded-For entry that is not itself a trusted proxy (each proxy appends the address it saw,
 * so everything left of that entry is the client's own claim and is ignored).
 */
export function resolveClientIp(request: Request, peer: string, trusted: readonly string[]): string {
  const peerBytes = parseIp(peer);
  if (!peerBytes) return peer;
  let cidrs = matchers.get(trusted);
  if (!cidrs) matchers.set(trusted, (cidrs = trusted.map((t) => parseCidr(t)).filter((c): c is Cidr => !!c)));
  const isTrusted = (ip: Bytes) => cidrs.some((c) => inCidr(ip, c));
  let client = canonical(peer, peerBytes);
  if (!cidrs.length || !isTrusted(peerBytes)) return client;
  const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").reverse();
  for (const hop of hops) {
    const bytes = parseIp(hop);
    // Not an address: nothing trustworthy lies beyond it.
    if (!bytes) break;
    client = canonical(hop, bytes);
    if (!isTrusted(bytes)) break;
  }
  return client;
}

export function rememberClientIp(request: Request, peer: string | null | undefined, trustedProxies: readonly string[] = []) {
  if (peer) addresses.set(request, resolveClientIp(request, peer, trustedProxies));
}

export function clientIp(request: Request, server?: { requestIP(r: Request): { address: string } | null } | null): string {
  return addresses.get(request) ?? server?.requestIP(request)?.address ?? "unknown";
}
