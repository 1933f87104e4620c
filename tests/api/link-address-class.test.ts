import { describe, expect, test } from "bun:test";
import { addressClass, DATA_CENTRE_RANGES, dataCentreSpans, inDataCentre } from "../../src/links/address-class";
import { cidrContains, formatIp, parseCidr, parseIp } from "../../src/http/ip-ranges";

/** The definition the binary search must agree with: the address is inside one of the ranges. */
const RANGES = DATA_CENTRE_RANGES.map((c) => parseCidr(c)!);
const scanned = (address: string) => RANGES.some((c) => cidrContains(c, parseIp(address)!));

describe("a clicking address's class (src/links/address-class.ts)", () => {
  test("the ranges become spans in address order, those that touch joined", () => {
    const v4 = dataCentreSpans(RANGES, 4).map((s) => `${formatIp({ family: 4, value: s.first })}-${formatIp({ family: 4, value: s.last })}`);
    expect(v4).toEqual([
      "3.0.0.0-3.127.255.255",
      "13.32.0.0-13.47.255.255",
      "13.64.0.0-13.95.255.255",
      "18.128.0.0-18.255.255.255",
      "20.0.0.0-20.255.255.255",
      "34.64.0.0-34.127.255.255",
      "34.192.0.0-34.255.255.255",
      "35.152.0.0-35.159.255.255",
      // 35.184.0.0/13, 35.192.0.0/12 and 35.208.0.0/12 follow one another: one span.
      "35.184.0.0-35.223.255.255",
      "40.64.0.0-40.127.255.255",
      "44.192.0.0-44.255.255.255",
      "45.33.0.0-45.33.127.255",
      "51.68.0.0-51.68.255.255",
      "52.0.0.0-52.63.255.255",
      "52.96.0.0-52.111.255.255",
      "54.64.0.0-54.95.255.255",
      "54.144.0.0-54.159.255.255",
      "78.46.0.0-78.47.255.255",
      "88.198.0.0-88.198.255.255",
      "95.216.0.0-95.217.255.255",
      "104.40.0.0-104.47.255.255",
      "104.131.0.0-104.131.255.255",
      "104.154.0.0-104.155.255.255",
      "116.202.0.0-116.203.255.255",
      "130.211.0.0-130.211.255.255",
      "138.68.0.0-138.68.255.255",
      "139.162.0.0-139.162.255.255",
      "145.239.0.0-145.239.255.255",
      "159.65.0.0-159.65.255.255",
      "167.99.0.0-167.99.255.255",
    ]);
    expect(dataCentreSpans(RANGES, 6).map((s) => `${formatIp({ family: 6, value: s.first })}-${formatIp({ family: 6, value: s.last })}`)).toEqual([
      "2600:1900::-2600:190f:ffff:ffff:ffff:ffff:ffff:ffff",
      "2600:1f00::-2600:1fff:ffff:ffff:ffff:ffff:ffff:ffff",
      "2603:1000::-2603:10ff:ffff:ffff:ffff:ffff:ffff:ffff",
      "2a01:4f8::-2a01:4f8:ffff:ffff:ffff:ffff:ffff:ffff",
    ]);
    // Overlapping and nested ranges join too; a gap of one address keeps two spans.
    const joined = dataCentreSpans(["10.0.0.0/8", "10.1.0.0/16", "11.0.0.0/9", "11.128.0.1/32"].map((c) => parseCidr(c)!), 4);
    expect(joined.map((s) => `${formatIp({ family: 4, value: s.first })}-${formatIp({ family: 4, value: s.last })}`)).toEqual(["10.0.0.0-11.127.255.255", "11.128.0.1-11.128.0.1"]);
  });

  test("each range's first and last address are a data centre's, the addresses either side as the ranges say", () => {
    // Each address with the class it must get: the answers are compared whole, so a wrong one shows by its address.
    const cases = [
      ["2.255.255.255", "public"], ["3.0.0.0", "data-centre"], ["3.127.255.255", "data-centre"], ["3.128.0.0", "public"],
      ["35.183.255.255", "public"], ["35.184.0.0", "data-centre"], ["35.200.1.2", "data-centre"], ["35.223.255.255", "data-centre"], ["35.224.0.0", "public"],
      ["19.255.255.255", "public"], ["20.0.0.0", "data-centre"], ["20.255.255.255", "data-centre"], ["21.0.0.0", "public"],
      ["167.98.255.255", "public"], ["167.99.0.0", "data-centre"], ["167.99.255.255", "data-centre"], ["167.100.0.0", "public"],
      ["2600:1eff:ffff:ffff:ffff:ffff:ffff:ffff", "public"], ["2600:1f00::", "data-centre"], ["2600:1fff:ffff:ffff:ffff:ffff:ffff:ffff", "data-centre"], ["2600:2000::", "public"],
      ["2a01:4f7:ffff:ffff:ffff:ffff:ffff:ffff", "public"], ["2a01:4f8::1", "data-centre"], ["2a01:4f9::", "public"],
      // IPv6 carrying IPv4 is judged as the IPv4 it reaches (mapped, 6to4).
      ["::ffff:3.0.0.1", "data-centre"], ["2002:300:1::", "data-centre"], ["::ffff:2.255.255.255", "public"],
      ["10.0.0.1", "private"], ["::1", "private"], ["not an address", "unknown"],
    ];
    expect(cases.map(([address]) => [address, addressClass(address!)])).toEqual(cases);
    // Every range's edges and their neighbours: the search answers as a scan of the ranges does (144 addresses).
    const edges = RANGES.flatMap((c) => {
      const last = c.base + (1n << BigInt((c.family === 4 ? 32 : 128) - c.prefix)) - 1n;
      return [c.base - 1n, c.base, last, last + 1n].map((value) => formatIp({ family: c.family, value }));
    });
    expect(edges).toHaveLength(4 * DATA_CENTRE_RANGES.length);
    expect(edges.map((a) => inDataCentre(parseIp(a)!))).toEqual(edges.map(scanned));
    expect(edges.filter((a) => inDataCentre(parseIp(a)!))).toHaveLength(2 * DATA_CENTRE_RANGES.length + 4);
  });
});
