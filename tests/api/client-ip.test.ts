import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { clientKey, parseCidr, resolveClientIp } from "../../src/http/client-ip";
import { startTestServer, type TestServer } from "../support/test-server";

// Every wrong password costs a real argon2 check.
setDefaultTimeout(60_000);

const req = (xff?: string) => new Request("http://localhost/api/x", { headers: xff === undefined ? {} : { "x-forwarded-for": xff } });

describe("resolveClientIp(request, peer, trustedProxies)", () => {
  const proxies = ["127.0.0.1", "10.0.0.0/8", "fd00::/8"];

  test.each([
    ["no trusted proxies: the header is ignored", "127.0.0.1", [], "203.0.113.7", "127.0.0.1"],
    ["an untrusted peer: the header is ignored", "192.0.2.1", proxies, "203.0.113.7", "192.0.2.1"],
    ["a trusted peer: the forwarded client", "127.0.0.1", proxies, "203.0.113.7", "203.0.113.7"],
    ["the rightmost entry that is not a proxy; what the client wrote to its left is ignored", "10.0.0.5", proxies, "6.6.6.6, 203.0.113.7, 10.0.0.2", "203.0.113.7"],
    ["every entry a proxy: the leftmost", "127.0.0.1", proxies, "10.0.0.1, 10.0.0.2", "10.0.0.1"],
    ["a trusted peer without the header: the peer", "127.0.0.1", proxies, undefined, "127.0.0.1"],
    ["garbage right of the client: nothing beyond it is believed", "127.0.0.1", proxies, "203.0.113.7, not-an-ip", "127.0.0.1"],
    ["garbage left of the client is the client's own claim", "127.0.0.1", proxies, "not-an-ip, 203.0.113.7", "203.0.113.7"],
    ["an IPv4-mapped peer matches an IPv4 proxy", "::ffff:127.0.0.1", proxies, "203.0.113.7", "203.0.113.7"],
    ["an IPv4-mapped client is spelled as IPv4", "127.0.0.1", proxies, "::ffff:203.0.113.9", "203.0.113.9"],
    ["an untrusted IPv4-mapped peer is spelled as IPv4", "::ffff:192.0.2.1", proxies, "203.0.113.7", "192.0.2.1"],
    ["IPv6 proxies and clients, brackets and case", "fd12::1", proxies, "[2001:DB8::1]", "2001:db8::1"],
    ["an IPv6 client behind an IPv4 proxy", "10.1.2.3", proxies, "2001:db8::42", "2001:db8::42"],
  ] as const)("%s", (_what, peer, trusted, xff, expected) => {
    expect(resolveClientIp(req(xff), peer, trusted)).toBe(expected);
  });

  test("parseCidr accepts addresses and CIDRs of both families, IPv4 as IPv4-mapped IPv6", () => {
    expect(parseCidr("10.0.0.0/8")?.prefix).toBe(104);
    expect(parseCidr("192.0.2.1")?.prefix).toBe(128);
    expect(parseCidr("::ffff:192.0.2.1")?.bytes).toEqual(parseCidr("192.0.2.1")!.bytes);
    expect(parseCidr("fd00::/8")?.prefix).toBe(8);
    expect(parseCidr("::/0")?.prefix).toBe(0);
    for (const bad of ["", "x", "10.0.0.0/33", "::/129", "1.2.3.4.5", "1::2::3", "12345::", "10.0.0.0/", "/8"]) expect(parseCidr(bad)).toBeNull();
  });
});

describe("clientKey(address): what limits and blocks count a client under", () => {
  test.each([
    ["IPv4 is one address", "203.0.113.7", "203.0.113.7"],
    ["an IPv6 address is its /64", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
    ["another address in the same /64 is the same client", "2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["the next /64 is another client", "2001:db8:1:3::1", "2001:db8:1:3::/64"],
    ["zeros and compression in the prefix", "2001:db8::5", "2001:db8:0:0::/64"],
    ["loopback", "::1", "0:0:0:0::/64"],
    ["IPv4-mapped IPv6 stays the IPv4 address", "::ffff:203.0.113.7", "::ffff:203.0.113.7"],
    ["not an address: unchanged", "unknown", "unknown"],
  ] as const)("%s", (_what, address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});

describe("through the server", () => {
  let plain: TestServer;
  let proxied: TestServer;
  beforeAll(async () => {
    plain = await startTestServer({ smtp: false, rateLimits: true });
    proxied = await startTestServer({ smtp: false, rateLimits: true, env: { TRUSTED_PROXIES: "127.0.0.1,::1" } });
  });
  afterAll(async () => {
    await plain.stop();
    await proxied.stop();
  });

  const wrongSignIn = (s: TestServer, email: string, from: string) =>
    s.api("/api/auth/login", { body: { email, password: "wrong-password" }, headers: { "x-forwarded-for": from } });

  test("from an untrusted peer X-Forwarded-For is ignored: a new header does not escape a block", async () => {
    const a = await plain.signUpVerified();
    for (let i = 0; i < 4; i++) expect((await wrongSignIn(plain, a.email, `203.0.113.${i}`)).status).toBe(401);
    expect((await wrongSignIn(plain, a.email, "203.0.113.99")).status).toBe(423);
    const res = await plain.api("/api/auth/login", { body: { email: a.email, password: a.password }, headers: { "x-forwarded-for": "198.51.100.1" } });
    expect(res.status).toBe(423);
  });

  test("from a trusted proxy it is honoured: the block applies to the real client, not to everyone behind the proxy", async () => {
    const a = await proxied.signUpVerified();
    for (let i = 0; i < 4; i++) expect((await wrongSignIn(proxied, a.email, "203.0.113.10")).status).toBe(401);
    expect((await wrongSignIn(proxied, a.email, "203.0.113.10")).status).toBe(423);
    const res = await proxied.api("/api/auth/login", { body: { email: a.email, password: a.password }, headers: { "x-forwarded-for": "198.51.100.1" } });
    expect(res.status).toBe(200);
  });

  test("rate limits count per real client behind a trusted proxy, and per socket otherwise", async () => {
    // A new email each time, so no sign-in block (423) stands in for the rate limit.
    const ghost = () => `nobody-${Math.random().toString(36).slice(2)}@example.com`;
    for (let i = 0; i < 10; i++) expect((await wrongSignIn(proxied, ghost(), "203.0.113.20")).status).toBe(401);
    expect((await wrongSignIn(proxied, ghost(), "203.0.113.20")).status).toBe(429);
    expect((await wrongSignIn(proxied, ghost(), "203.0.113.21")).status).toBe(401);

    plain.ctx.now = () => Date.now() + 3_600_000;
    for (let i = 0; i < 10; i++) expect((await wrongSignIn(plain, ghost(), `203.0.113.${30 + i}`)).status).toBe(401);
    expect((await wrongSignIn(plain, ghost(), "203.0.113.50")).status).toBe(429);
  });

  test("an IPv6 client is counted by its /64: new addresses inside it share one sign-in block and one rate limit", async () => {
    const a = await proxied.signUpVerified();
    // Five wrong passwords, each from a new address of 2001:db8:7:1::/64: the fifth is the block.
    for (let i = 1; i < 5; i++) expect((await wrongSignIn(proxied, a.email, `2001:db8:7:1::${i}`)).status).toBe(401);
    const blocked = await wrongSignIn(proxied, a.email, "2001:db8:7:1:ffff::5");
    expect(blocked.status).toBe(423);
    expect(proxied.logs).toContain(`sign-in blocked for ${a.email} from 2001:db8:7:1::/64 after 5 failed attempts (1 min)`);
    // The owner from another /64 signs in.
    const owner = await proxied.api("/api/auth/login", { body: { email: a.email, password: a.password }, headers: { "x-forwarded-for": "2001:db8:7:2::1" } });
    expect(owner.status).toBe(200);

    // Rate limit: 10 sign-ins per minute per /64, whatever address inside it asks.
    const ghost = () => `nobody-${Math.random().toString(36).slice(2)}@example.com`;
    proxied.ctx.now = () => Date.now() + 7_200_000;
    for (let i = 0; i < 10; i++) expect((await wrongSignIn(proxied, ghost(), `2001:db8:9:9::${i + 1}`)).status).toBe(401);
    expect((await wrongSignIn(proxied, ghost(), "2001:db8:9:9:1:2:3:4")).status).toBe(429);
    expect((await wrongSignIn(proxied, ghost(), "2001:db8:9:a::1")).status).toBe(401);
  });
});
