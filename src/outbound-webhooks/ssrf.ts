import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { badRequest } from "../http/errors";

/**
 * Server-side request forgery guard for user webhook URLs. Bun's fetch resolves names itself and ignores Node's
 * agents, so a filter that checks a name and then lets fetch resolve it again loses to DNS rebinding. Instead the
 * name is resolved once here, every address checked, and the request made to the checked address (see pinnedRequest).
 */

const SETTING_HINT = "An administrator can allow private networks in Admin > Settings.";

const v4 = (ip: string) => ip.split(".").map(Number) as [number, number, number, number];

/** Why an IPv4 address is refused, or null. */
function refuseV4(ip: string): string | null {
  const [a, b] = v4(ip);
  if (ip === "169.254.169.254") return "the cloud metadata address";
  if (a === 127) return "a loopback address";
  if (a === 0) return "an unspecified address";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return "a private address";
  if (a === 169 && b === 254) return "a link-local address";
  if (a === 198 && (b === 18 || b === 19)) return "a benchmarking address";
  if (a >= 224) return "a multicast or reserved address";
  return null;
}

/** The 16 bytes of an IPv6 address (any valid spelling, with an embedded IPv4 tail or not). */
function v6Bytes(ip: string): number[] {
  let text = ip.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = v4(tail[1]!);
    text = text.slice(0, -tail[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const groups = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.flatMap((g) => {
    const n = parseInt(g || "0", 16);
    return [n >> 8, n & 0xff];
  });
}

const METADATA_V6 = v6Bytes("fd00:ec2::254").join();

/**
 * Why an IPv6 address is refused, or null. The forms that reach an IPv4 address are judged as that address:
 * IPv4-mapped and -compatible, NAT64 (64:ff9b::/96, a translator on the network forwards to the last 32 bits) and
 * 6to4 (2002::/16, a relay forwards to bits 16-47).
 */
function refuseV6(ip: string): string | null {
  const b = v6Bytes(ip);
  const zeros = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeros(10) && ((b[10] === 0xff && b[11] === 0xff) || (b[10] === 0 && b[11] === 0 && (b[12]! | b[13]!) !== 0))) {
    return refuseV4(b.slice(12).join("."));
  }
  if (b.slice(0, 4).join() === "0,100,255,155" && b.slice(4, 12).every((x) => x === 0)) return refuseV4(b.slice(12).join("."));
  if (b[0] === 0x20 && b[1] === 0x02) return refuseV4(b.slice(2, 6).join("."));
  if (zeros(15) && b[15] === 1) return "a loopback address";
  if (zeros(16)) return "an unspecified address";
  if (b.join() === METADATA_V6) return "the cloud metadata address";
  if ((b[0]! & 0xfe) === 0xfc) return "a private address";
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return "a link-local address";
  if (b[0] === 0xff) return "a multicast address";
  return null;
}

/** Why an address may not be called (loopback, private, link-local, metadata...), or null when it is public. */
export function refusedAddress(ip: string): string | null {
  return isIP(ip) === 4 ? refuseV4(ip) : refuseV6(ip);
}

export type Target = { url: URL; address: string; family: 4 | 6 };

/**
 * Resolves a webhook URL's host (every address it has) and answers the first address to call; 400 with a message
 * naming the address and the administrator setting when any address is refused (a name with one private address
 * among public ones could be steered to it).
 */
export async function resolveTarget(rawUrl: string, allowPrivate: boolean): Promise<Target> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw badRequest("The webhook URL is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badRequest("The webhook URL must start with http:// or https://");
  if (url.username || url.password) throw badRequest("The webhook URL must not contain a user name or password");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw badRequest(`The webhook URL's host ${host} could not be resolved`);
    }
  }
  if (!addresses.length) throw badRequest(`The webhook URL's host ${host} could not be resolved`);
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const why = refusedAddress(address);
      if (why) throw badRequest(`The webhook URL ${url.origin} was refused: ${address} is ${why}. ${SETTING_HINT}`, { address });
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
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
