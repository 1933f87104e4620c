import { addressKind, cidrContains, parseCidr, parseIp, reachedAddress, type Cidr } from "../http/ip-ranges";

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

const RANGES: Cidr[] = DATA_CENTRE_RANGES.map((c) => parseCidr(c)!);

export type AddressClass = "data-centre" | "public" | "private" | "unknown";

export function addressClass(address: string): AddressClass {
  const ip = parseIp(address);
  if (!ip) return "unknown";
  const reached = reachedAddress(ip);
  if (addressKind(reached)) return "private";
  return RANGES.some((c) => cidrContains(c, reached)) ? "data-centre" : "public";
}
