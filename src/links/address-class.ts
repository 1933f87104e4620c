import { addressKind, parseCidr, parseIp, reachedAddress, type Cidr, type Ip } from "../http/ip-ranges";

/**
 * The class of a clicking address (issue 32 item 2): 'data-centre' inside one of the ranges below, 'private' for
 * loopback, private and other non-public addresses, 'public' otherwise. Only the class is kept with a hit, not the
 * address. The ranges are the largest published blocks of the big clouds and hosts, where link scanners run;
 * they are not complete, and a scanner elsewhere is still caught by the delivery-report window (classify.ts).
 */
export const DATA_CENTRE_RANGES = [
  // Amazon Web Services
  "3.0.0.0/9", "13.32.0.0/12", "18.128.0.0/9", "34.192.0.0/10", "35.152.0.0/13", "44.192.0.0/10", "52.0.0.0/10", "54.64.0.0/11", "54.144.0.0/12",
  // Google Cloud
  "34.64.0.0/10", "35.184.0.0/13", "35.192.0.0/12", "35.208.0.0/12", "104.154.0.0/15", "130.211.0.0/16",
  // Microsoft Azure
  "13.64.0.0/11", "20.0.0.0/8", "40.64.0.0/10", "52.96.0.0/12", "104.40.0.0/13",
  // DigitalOcean, Linode, OVH, Hetzner
  "104.131.0.0/16", "138.68.0.0/16", "159.65.0.0/16", "167.99.0.0/16", "45.33.0.0/17", "139.162.0.0/16",
  "51.68.0.0/16", "145.239.0.0/16", "78.46.0.0/15", "88.198.0.0/16", "95.216.0.0/15", "116.202.0.0/15",
  // IPv6: AWS, Google Cloud, Azure, Hetzner
  "2600:1f00::/24", "2600:1900::/28", "2603:1000::/24", "2a01:4f8::/32",
];

/** A run of addresses, first to last. */
type Span = { first: bigint; last: bigint };

/**
 * A family's ranges as spans in address order, those that overlap or touch joined (35.184.0.0/13 and the two /12s
 * after it are one), so at most one holds an address and a binary search finds it.
 */
export function dataCentreSpans(ranges: Cidr[], family: 4 | 6): Span[] {
  const bits = family === 4 ? 32 : 128;
  const spans = ranges
    .filter((c) => c.family === family)
    .map((c) => ({ first: c.base, last: c.base + (1n << BigInt(bits - c.prefix)) - 1n }))
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const joined: Span[] = [];
  for (const s of spans) {
    const prev = joined.at(-1);
    if (prev && s.first <= prev.last + 1n) {
      if (s.last > prev.last) prev.last = s.last;
    } else joined.push({ ...s });
  }
  return joined;
}

const RANGES: Cidr[] = DATA_CENTRE_RANGES.map((c) => parseCidr(c)!);
const SPANS = { 4: dataCentreSpans(RANGES, 4), 6: dataCentreSpans(RANGES, 6) };

/**
 * Whether an address is in a data-centre range: a binary search of its family's spans (log2 of 30-odd steps on
 * every hit of a short link, where a scan tried each range, masking the address for each).
 */
export function inDataCentre(ip: Ip): boolean {
  const spans = SPANS[ip.family];
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = spans[mid]!;
    if (ip.value < s.first) hi = mid - 1;
    else if (ip.value > s.last) lo = mid + 1;
    else return true;
  }
  return false;
}

export type AddressClass = "data-centre" | "public" | "private" | "unknown";

export function addressClass(address: string): AddressClass {
  const ip = parseIp(address);
  if (!ip) return "unknown";
  const reached = reachedAddress(ip);
  if (addressKind(reached)) return "private";
  return inDataCentre(reached) ? "data-centre" : "public";
}
