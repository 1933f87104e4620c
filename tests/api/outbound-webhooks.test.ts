// Outbound webhooks: Standard Webhooks signatures checked with the reference verifier, Svix's retry schedule on a
// fake clock (in-process, and in a child process killed and restarted), the SSRF guard and the administrator's
// allow-list, rotation, 410, and each of the nine events produced end to end. The receivers listen on 127.0.0.1,
// which the appliance never calls: the test seam (tests/support/webhook-network.ts) has them judged as public hosts
// or as hosts on an allow-listed LAN.
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { loadConfig } from "../../src/config";
import type { AppContext } from "../../src/context";
import { appendEvent } from "../../src/events/events";
import { runDueJobs } from "../../src/jobs/jobs";
import { allowListOf, webhookAllowList } from "../../src/admin/networks";
import { type NetworkPolicy, pinnedRequest, refusedAddress, resolveTarget } from "../../src/outbound-webhooks/ssrf";
import { createEndpoint, feedDeliveries, redeliverRange, startOutboundWebhooks, updateEndpoint, WEBHOOK_EVENTS } from "../../src/outbound-webhooks/webhooks";
import { findByPhone } from "../../src/contacts/contacts";
import { flushClicks } from "../../src/links/clicks";
import { recordInbound } from "../../src/inbound/receive";
import { findProviderById } from "../../src/providers/accounts";
import { openAppContext } from "../../src/server";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { type Account, startTestServer, type TestServer } from "../support/test-server";
import { childApi } from "../support/child-server";
import { type ClockedServer, startClockedServer } from "../support/clocked-server";
import { databaseBefore } from "../support/old-database";
import { waitFor } from "../support/wait";
import { photoJpeg } from "../support/media-fixtures";
import { signedMediaUrl } from "../../src/media/media";
import { LAN_STAND_IN, PUBLIC_STAND_IN, receiversStandFor } from "../support/webhook-network";

type Received = { path: string; id: string; timestamp: string; signature: string; body: string; answered: number };

/** A local receiver: every request recorded; the answer per path chosen by the test. */
function startReceiver() {
  const received: Received[] = [];
  let answer: (path: string, req: Request) => Response = () => new Response("ok");
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const res = answer(path, req);
      received.push({
        path,
        id: req.headers.get("webhook-id")!,
        timestamp: req.headers.get("webhook-timestamp")!,
        signature: req.headers.get("webhook-signature")!,
        body: await req.text(),
        answered: res.status,
      });
      return res;
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    answerWith(fn: (path: string, req: Request) => Response) {
      answer = fn;
    },
    stop: () => server.stop(true),
  };
}

/** Webhook.verify checks the timestamp against the wall clock: verify each delivery at the time it was signed. */
function verify(secret: string, r: Received): unknown {
  setSystemTime(new Date(Number(r.timestamp) * 1000));
  try {
    return new Webhook(secret).verify(r.body, { "webhook-id": r.id, "webhook-timestamp": r.timestamp, "webhook-signature": r.signature });
  } finally {
    setSystemTime();
  }
}

const ALLOW_HINT = "An administrator can add its network or host name to the webhook allow-list in Admin Panel > Settings.";
const NEVER_HINT = "Webhooks never call loopback, link-local or cloud metadata addresses.";
const noList: NetworkPolicy = { allowList: allowListOf([]) };
const refusal = (url: string, policy: NetworkPolicy) =>
  resolveTarget(url, policy).then(
    (t) => t,
    (err: Error) => err.message,
  );

describe("the SSRF guard", () => {
  test("refuses loopback, private, link-local, metadata and unspecified addresses, and their IPv4-mapped forms", () => {
    expect(
      ["127.0.0.1", "::1", "10.0.0.5", "172.16.0.1", "192.168.1.1", "169.254.169.254", "169.254.1.1", "0.0.0.0", "::", "fc00::1", "fe80::1", "fd00:ec2::254", "100.100.100.200", "::ffff:10.0.0.5", "::ffff:127.0.0.1", "93.184.216.34", "2606:4700::1111"].map(
        (ip) => [ip, refusedAddress(ip)],
      ),
    ).toEqual([
      ["127.0.0.1", "a loopback address"],
      ["::1", "a loopback address"],
      ["10.0.0.5", "a private address"],
      ["172.16.0.1", "a private address"],
      ["192.168.1.1", "a private address"],
      ["169.254.169.254", "a cloud metadata address"],
      ["169.254.1.1", "a link-local address"],
      ["0.0.0.0", "an unspecified address"],
      ["::", "an unspecified address"],
      ["fc00::1", "a private address"],
      ["fe80::1", "a link-local address"],
      ["fd00:ec2::254", "a cloud metadata address"],
      ["100.100.100.200", "a cloud metadata address"],
      ["::ffff:10.0.0.5", "a private address"],
      ["::ffff:127.0.0.1", "a loopback address"],
      ["93.184.216.34", null],
      ["2606:4700::1111", null],
    ]);
  });

  test("judges by an allow-list of global unicast ranges: the special-purpose blocks a deny-list missed are refused", () => {
    expect(
      ["64:ff9b:1::a00:5", "fec0::1", "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.0.8", "100::1", "2001:db8::1", "3fff::1", "4000::1", "5f00::1", "192.88.99.1", "100.64.0.1", "240.0.0.1", "255.255.255.255", "224.0.0.1", "ff02::1", "198.51.100.7", "2001:4860:4860::8888", "1.1.1.1", "223.255.255.1"].map(
        (ip) => [ip, refusedAddress(ip)],
      ),
    ).toEqual([
      ["64:ff9b:1::a00:5", "a local-use NAT64 address"],
      ["fec0::1", "a site-local address"],
      ["2001::1", "an IETF protocol assignment"],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "an IETF protocol assignment"],
      ["192.0.0.8", "an IETF protocol assignment"],
      ["100::1", "a discard-only address"],
      ["2001:db8::1", "a documentation address"],
      ["3fff::1", "a documentation address"],
      ["4000::1", "not a global unicast address"],
      ["5f00::1", "not a global unicast address"],
      ["192.88.99.1", "a 6to4 relay address"],
      ["100.64.0.1", "a shared (carrier-grade NAT) address"],
      ["240.0.0.1", "a reserved address"],
      ["255.255.255.255", "the broadcast address"],
      ["224.0.0.1", "a multicast address"],
      ["ff02::1", "a multicast address"],
      ["198.51.100.7", "a documentation address"],
      ["2001:4860:4860::8888", null],
      ["1.1.1.1", null],
      ["223.255.255.1", null],
    ]);
  });

  test("refuses the benchmarking network 198.18.0.0/15, and NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses as the IPv4 address they carry", () => {
    expect(
      ["198.18.0.1", "198.19.255.254", "198.17.255.255", "198.20.0.0", "64:ff9b::7f00:1", "64:ff9b::10.0.0.5", "64:ff9b::a9fe:a9fe", "64:ff9b::c612:1", "64:ff9b::8.8.8.8", "2002:7f00:1::1", "2002:c0a8:101::", "2002:a9fe:a9fe:1::5", "2002:808:808::1", "2003:7f00:1::1"].map(
        (ip) => [ip, refusedAddress(ip)],
      ),
    ).toEqual([
      ["198.18.0.1", "a benchmarking address"],
      ["198.19.255.254", "a benchmarking address"],
      ["198.17.255.255", null],
      ["198.20.0.0", null],
      ["64:ff9b::7f00:1", "a loopback address"],
      ["64:ff9b::10.0.0.5", "a private address"],
      ["64:ff9b::a9fe:a9fe", "a cloud metadata address"],
      ["64:ff9b::c612:1", "a benchmarking address"],
      ["64:ff9b::8.8.8.8", null],
      ["2002:7f00:1::1", "a loopback address"],
      ["2002:c0a8:101::", "a private address"],
      ["2002:a9fe:a9fe:1::5", "a cloud metadata address"],
      ["2002:808:808::1", null],
      ["2003:7f00:1::1", null],
    ]);
  });

  test("a non-public address passes only when the allow-list names its network or the URL's host; loopback, link-local and metadata never", async () => {
    const lan: NetworkPolicy = { allowList: allowListOf(["10.0.0.0/8", "fd12:3456::/32", "198.18.0.0/15"]) };
    expect(await refusal("http://10.0.0.5/hook", noList)).toBe(`The webhook URL http://10.0.0.5 was refused: 10.0.0.5 is a private address. ${ALLOW_HINT}`);
    expect(await refusal("http://10.0.0.5/hook", lan)).toMatchObject({ address: "10.0.0.5", family: 4, public: false });
    // The IPv4 network covers the IPv6 forms that reach it.
    expect(await refusal("http://[::ffff:10.0.0.5]/hook", lan)).toMatchObject({ address: "::ffff:a00:5", public: false });
    expect(await refusal("http://[64:ff9b::c612:1]/hook", lan)).toMatchObject({ public: false });
    expect(await refusal("http://[fd12:3456::9]/hook", lan)).toMatchObject({ family: 6, public: false });
    expect(await refusal("http://[fd12:3457::9]/hook", lan)).toBe(`The webhook URL http://[fd12:3457::9] was refused: fd12:3457::9 is a private address. ${ALLOW_HINT}`);
    expect(await refusal("http://172.16.0.1/hook", lan)).toBe(`The webhook URL http://172.16.0.1 was refused: 172.16.0.1 is a private address. ${ALLOW_HINT}`);
    expect(await refusal("https://93.184.216.34/hook", lan)).toMatchObject({ public: true });
    // Whatever the list says (a list this wide is refused when saved; the guard does not rely on that).
    const everything: NetworkPolicy = { allowList: allowListOf(["0.0.0.0/0", "::/0", "localhost"]) };
    for (const [url, what] of [
      ["http://127.0.0.1:5678/hook", "127.0.0.1 is a loopback address"],
      ["http://[::1]:5678/hook", "::1 is a loopback address"],
      ["http://169.254.169.254/latest", "169.254.169.254 is a cloud metadata address"],
      ["http://[fe80::1]/x", "fe80::1 is a link-local address"],
      ["http://0.0.0.0:8080/x", "0.0.0.0 is an unspecified address"],
      ["http://[::ffff:127.0.0.1]/x", "::ffff:7f00:1 is a loopback address"],
    ]) {
      expect(await refusal(url!, everything)).toBe(`The webhook URL ${new URL(url!).origin} was refused: ${what}. ${NEVER_HINT}`);
    }
  });

  test("a refusal of a name does not echo the address it resolved to", async () => {
    expect(await refusal("http://localhost:5678/hook", noList)).toBe(`The webhook URL http://localhost:5678 was refused: localhost resolves to a loopback address. ${NEVER_HINT}`);
  });

  test("a host name on the list allows its non-public addresses (judged through the test seam), never its loopback ones", async () => {
    const byName: NetworkPolicy = { allowList: allowListOf(["localhost"]), judgeAs: { "127.0.0.1": LAN_STAND_IN, "::1": LAN_STAND_IN } };
    expect(await refusal("http://localhost:5678/hook", byName)).toMatchObject({ public: false });
    expect(await refusal("http://localhost:5678/hook", { ...byName, allowList: allowListOf(["*.lan"]) })).toBe(
      `The webhook URL http://localhost:5678 was refused: localhost resolves to a private address. ${ALLOW_HINT}`,
    );
    expect(await refusal("http://localhost:5678/hook", { ...byName, judgeAs: undefined })).toBe(
      `The webhook URL http://localhost:5678 was refused: localhost resolves to a loopback address. ${NEVER_HINT}`,
    );
  });
});

describe("the pinned request", () => {
  test("goes to the address that was checked, with the URL's Host header and TLS server name; never follows redirects", async () => {
    const signal = new AbortController().signal;
    const init = { method: "POST", headers: { "webhook-id": "msg_1" }, body: "{}", signal };
    const asPublic = { allowList: allowListOf([]), judgeAs: { "127.0.0.1": PUBLIC_STAND_IN, "::1": PUBLIC_STAND_IN } };
    const local = pinnedRequest(await resolveTarget("http://localhost:5678/hook?x=1", asPublic), init);
    expect(local.url).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):5678\/hook\?x=1$/);
    expect(local.init).toMatchObject({ headers: { "webhook-id": "msg_1", host: "localhost:5678" }, redirect: "manual" });
    expect("tls" in local.init).toBe(false);
    const tls = pinnedRequest({ url: new URL("https://hooks.example.com/in"), address: "93.184.216.34", family: 4, public: true }, init);
    expect([tls.url, tls.init.headers.host, (tls.init as { tls?: unknown }).tls]).toEqual(["https://93.184.216.34/in", "hooks.example.com", { serverName: "hooks.example.com" }]);
    const v6 = pinnedRequest({ url: new URL("http://hooks.example.com:8080/in"), address: "2606:4700::1111", family: 6, public: true }, init);
    expect(v6.url).toBe("http://[2606:4700::1111]:8080/in");
  });
});

describe("the webhooks API", () => {
  let t: TestServer;
  let a: Account;
  let admin: { token: string };
  let receiver: ReturnType<typeof startReceiver>;

  beforeAll(async () => {
    t = await startTestServer();
    a = await t.confirm(await t.signUpVerified());
    receiver = startReceiver();
    const email = t.newEmail("webhooks-admin");
    await createOrPromoteAdmin(t.ctx, email, "admin-secret-123");
    const login = await t.api("/api/admin/auth/login", { body: { email, password: "admin-secret-123" } });
    admin = await t.confirm({ token: login.body.token, password: "admin-secret-123" });
  });
  afterAll(async () => {
    receiver.stop();
    await t.stop();
  });

  const putAllowList = (entries: unknown) => t.api("/api/admin/settings/webhook-allow-list", { method: "PUT", token: admin.token, body: { entries } });

  /** Runs the due jobs and waits until the delivery has an answer. */
  async function deliveryOf(endpointId: string, deliveryId: string) {
    await (await runDueJobs(t.ctx)).settled;
    return waitFor(
      async () => (await t.api(`/api/webhooks/${endpointId}/deliveries`, { token: a.token })).body.deliveries.find((d: any) => d.id === deliveryId),
      (d) => d && d.status !== "pending",
    );
  }

  test("loopback, link-local, metadata and private URLs are refused; a name's refusal does not say what it resolved to", async () => {
    receiversStandFor(t.ctx, "themselves");
    expect((await putAllowList([])).body).toEqual({ entries: [] });
    const create = (url: string) => t.api("/api/webhooks", { token: a.token, body: { name: "n8n", url, events: ["message_delivered"] } });
    const refusals = [];
    for (const url of ["http://127.0.0.1:5678/hook", "http://[::1]:5678/hook", "http://169.254.169.254/latest", "http://10.0.0.5/hook", "http://[64:ff9b:1::a00:5]/x", "http://localhost:5678/hook"]) {
      const res = await create(url);
      refusals.push([res.status, res.body.message]);
    }
    expect(refusals).toEqual([
      [400, `The webhook URL http://127.0.0.1:5678 was refused: 127.0.0.1 is a loopback address. ${NEVER_HINT}`],
      [400, `The webhook URL http://[::1]:5678 was refused: ::1 is a loopback address. ${NEVER_HINT}`],
      [400, `The webhook URL http://169.254.169.254 was refused: 169.254.169.254 is a cloud metadata address. ${NEVER_HINT}`],
      [400, `The webhook URL http://10.0.0.5 was refused: 10.0.0.5 is a private address. ${ALLOW_HINT}`],
      [400, `The webhook URL http://[64:ff9b:1::a00:5] was refused: 64:ff9b:1::a00:5 is a local-use NAT64 address. ${ALLOW_HINT}`],
      [400, `The webhook URL http://localhost:5678 was refused: localhost resolves to a loopback address. ${NEVER_HINT}`],
    ]);
    expect((await t.api("/api/webhooks", { token: a.token })).body).toEqual({ data: [] });
  });

  test("the allow-list refuses loopback, link-local and metadata networks, and the appliance's own name, with a clear 400", async () => {
    const answers = [];
    for (const entry of ["127.0.0.0/8", "0.0.0.0/0", "169.254.0.0/16", "169.254.169.254", "100.64.0.0/10", "fd00::/8", "fe80::/64", "::/0", "::ffff:0:0/96", "localhost", "api.localhost", "10.0.0.1/8", "10.0.0.0/33", "not a host!", "300.1.1.1"]) {
      const res = await putAllowList([entry]);
      answers.push([res.status, res.body.message]);
    }
    const NEVER = "Webhooks never call loopback, link-local or cloud metadata addresses.";
    expect(answers).toEqual([
      [400, `"127.0.0.0/8" cannot be allowed: it includes 127.0.0.0/8 (a loopback address). ${NEVER}`],
      [400, `"0.0.0.0/0" cannot be allowed: it includes 0.0.0.0/8 (an unspecified address). ${NEVER}`],
      [400, `"169.254.0.0/16" cannot be allowed: it includes 169.254.0.0/16 (a link-local address). ${NEVER}`],
      [400, `"169.254.169.254" cannot be allowed: it includes 169.254.169.254/32 (a cloud metadata address). ${NEVER}`],
      [400, `"100.64.0.0/10" cannot be allowed: it includes 100.100.100.200/32 (a cloud metadata address). ${NEVER}`],
      [400, `"fd00::/8" cannot be allowed: it includes fd00:ec2::254/128 (a cloud metadata address). ${NEVER}`],
      [400, `"fe80::/64" cannot be allowed: it includes fe80::/10 (a link-local address). ${NEVER}`],
      [400, `"::/0" cannot be allowed: it includes ::/128 (an unspecified address). ${NEVER}`],
      [400, `"::ffff:0:0/96" cannot be allowed: it overlaps ::ffff:0:0/96, whose addresses reach IPv4 ones. List the IPv4 network instead.`],
      [400, `"localhost" cannot be allowed: it is this appliance itself. ${NEVER}`],
      [400, `"api.localhost" cannot be allowed: it is this appliance itself. ${NEVER}`],
      [400, `"10.0.0.1/8" is not a valid network: write it as an address or a CIDR such as 10.0.0.0/8 or fd12:3456::/48 (no host bits set)`],
      [400, `"10.0.0.0/33" is not a valid network: write it as an address or a CIDR such as 10.0.0.0/8 or fd12:3456::/48 (no host bits set)`],
      [400, `"not a host!" is neither a network (a CIDR such as 10.0.0.0/8) nor a host name (such as n8n.lan or *.corp.example)`],
      [400, `"300.1.1.1" is not a valid network: write it as an address or a CIDR such as 10.0.0.0/8 or fd12:3456::/48 (no host bits set)`],
    ]);
    expect((await t.api("/api/admin/settings/webhook-allow-list", { token: admin.token })).body).toEqual({ entries: [] });
    const saved = await putAllowList([" 192.168.0.0/16 ", "N8N.LAN", "*.corp.example", "FD12:3456:0::/48", "10.9.8.7", "n8n.lan"]);
    expect(saved.body).toEqual({ entries: ["192.168.0.0/16", "n8n.lan", "*.corp.example", "fd12:3456::/48", "10.9.8.7/32"] });
    expect((await t.api("/api/admin/settings/webhook-allow-list", { token: a.token })).status).toBe(403);
    expect((await putAllowList([])).body).toEqual({ entries: [] });
  });

  test("a receiver on an allow-listed LAN is called; its answer is kept but not shown to the tenant", async () => {
    receiversStandFor(t.ctx, "lan"); // the receiver is judged as 10.20.30.40
    const create = () => t.api("/api/webhooks", { token: a.token, body: { name: "LAN n8n", url: `${receiver.url}/lan`, events: ["contact_created"] } });
    expect((await create()).body.message).toBe(`The webhook URL ${receiver.url} was refused: 127.0.0.1 is a private address. ${ALLOW_HINT}`);
    await putAllowList(["10.20.30.0/24"]);
    const ep = await create();
    expect(ep.status).toBe(201);
    const test = (await t.api(`/api/webhooks/${ep.body.id}/test`, { method: "POST", token: a.token })).body;
    expect(await deliveryOf(ep.body.id, test.id)).toMatchObject({ status: "succeeded", responseStatus: 200, responseBody: null, responseHidden: true });
    expect(receiver.received.filter((r) => r.path === "/lan").length).toBe(1);
    const kept = t.ctx.db.$client.query(`SELECT response_body, response_hidden FROM webhook_deliveries WHERE id = ?`).get(test.id);
    expect(kept).toEqual({ response_body: "ok", response_hidden: 1 });

    // Taken off the list: the next attempt is refused, and the receiver is not called.
    await putAllowList([]);
    const again = (await t.api(`/api/webhooks/${ep.body.id}/test`, { method: "POST", token: a.token })).body;
    expect(await attempted(ep.body.id, again.id)).toMatchObject({ attempts: 1, responseStatus: null, error: `The webhook URL ${receiver.url} was refused: 127.0.0.1 is a private address. ${ALLOW_HINT}` });
    expect(receiver.received.filter((r) => r.path === "/lan").length).toBe(1);
    await t.api(`/api/webhooks/${ep.body.id}`, { method: "DELETE", token: a.token });
    receiversStandFor(t.ctx, "public");
  });

  test("a public receiver is accepted, signed with a generated whsec_ secret; the test event verifies and its answer shows", async () => {
    receiversStandFor(t.ctx, "public");
    const res = await t.api("/api/webhooks", { token: a.token, body: { name: "Local n8n", url: `${receiver.url}/hook`, events: ["message_delivered", "contact_created"] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "Local n8n", url: `${receiver.url}/hook`, events: ["message_delivered", "contact_created"], active: true });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const test = await t.api(`/api/webhooks/${res.body.id}/test`, { method: "POST", token: a.token });
    expect(test.status).toBe(200);
    const done = await deliveryOf(res.body.id, test.body.id);
    expect(done).toMatchObject({ status: "succeeded", attempts: 1, responseStatus: 200, responseBody: "ok", responseHidden: false, eventType: "webhook_test" });
    const got = receiver.received.filter((r) => r.id === test.body.id);
    expect(got.length).toBe(1);
    expect(verify(res.body.secret, got[0]!)).toMatchObject({ type: "webhook_test", data: { message: "A test event from smsdesk", endpointId: res.body.id } });
    // The list never shows the secret.
    expect((await t.api("/api/webhooks", { token: a.token })).body.data[0].secret).toBeUndefined();
  });

  /** Runs the due jobs and waits until the delivery's first attempt is recorded (the runner's own pass may make it). */
  async function attempted(endpointId: string, deliveryId: string) {
    return waitFor(
      async () => {
        await (await runDueJobs(t.ctx)).settled;
        return (await t.api(`/api/webhooks/${endpointId}/deliveries`, { token: a.token })).body.deliveries.find((d: any) => d.id === deliveryId);
      },
      (d) => d?.attempts >= 1,
    );
  }

  test("rotation: both signatures during the 24-hour overlap, each verifying with its secret; only the new one after", async () => {
    const ep = (await t.api("/api/webhooks", { token: a.token, body: { name: "rot", url: `${receiver.url}/rot`, events: ["contact_created"] } })).body;
    const rotated = await t.api(`/api/webhooks/${ep.id}/rotate-secret`, { method: "POST", token: a.token });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    const first = (await t.api(`/api/webhooks/${ep.id}/test`, { method: "POST", token: a.token })).body;
    await deliveryOf(ep.id, first.id);
    const during = receiver.received.find((r) => r.id === first.id)!;
    expect(during.signature.split(" ").length).toBe(2);
    expect(verify(ep.secret, during)).toBeTruthy();
    expect(verify(rotated.body.secret, during)).toBeTruthy();

    const realNow = t.ctx.now;
    const later = Date.now() + 24 * 3600_000 + 1000;
    t.ctx.now = () => later;
    try {
      const second = (await t.api(`/api/webhooks/${ep.id}/test`, { method: "POST", token: a.token })).body;
      await deliveryOf(ep.id, second.id);
      const after = receiver.received.find((r) => r.id === second.id)!;
      expect(after.signature.split(" ").length).toBe(1);
      expect(verify(rotated.body.secret, after)).toBeTruthy();
      expect(() => verify(ep.secret, after)).toThrow();
    } finally {
      t.ctx.now = realNow;
    }
  });

  test("a redirect is not followed (a failed attempt); 410 disables the endpoint and tells the owner", async () => {
    receiver.answerWith((path) =>
      path === "/moved" ? new Response(null, { status: 302, headers: { location: `${receiver.url}/elsewhere` } }) : path === "/gone" ? new Response("bye", { status: 410 }) : new Response("ok"),
    );
    const moved = (await t.api("/api/webhooks", { token: a.token, body: { name: "moved", url: `${receiver.url}/moved`, events: ["contact_created"] } })).body;
    const m = (await t.api(`/api/webhooks/${moved.id}/test`, { method: "POST", token: a.token })).body;
    const md = await attempted(moved.id, m.id);
    expect(md).toMatchObject({ id: m.id, status: "pending", attempts: 1, responseStatus: 302, error: "Redirect 302 not followed" });
    expect(receiver.received.some((r) => r.path === "/elsewhere")).toBe(false);
    await t.api(`/api/webhooks/${moved.id}`, { method: "DELETE", token: a.token });

    const gone = (await t.api("/api/webhooks", { token: a.token, body: { name: "gone", url: `${receiver.url}/gone`, events: ["contact_created"] } })).body;
    const g = (await t.api(`/api/webhooks/${gone.id}/test`, { method: "POST", token: a.token })).body;
    const gd = await deliveryOf(gone.id, g.id);
    expect(gd).toMatchObject({ status: "failed", attempts: 1, responseStatus: 410, responseBody: "bye" });
    const list = (await t.api("/api/webhooks", { token: a.token })).body.data;
    expect(list.find((e: any) => e.id === gone.id)).toMatchObject({ active: false, disabledReason: "the endpoint answered 410 Gone" });
    const mail = await t.waitForEmail(a.email, 5000, { match: /gone/ });
    expect(mail.subject).toBe(`Your webhook "gone" was disabled`);
    receiver.answerWith(() => new Response("ok"));

    // Nothing is lost: enabled again, the failed delivery is sent again with its webhook-id, one or by time range.
    const refused = await t.api(`/api/webhooks/${gone.id}/deliveries/${g.id}/redeliver`, { method: "POST", token: a.token });
    expect([refused.status, refused.body.message]).toEqual([400, "The webhook is disabled: enable it before sending deliveries again"]);
    expect((await t.api(`/api/webhooks/${gone.id}`, { method: "PUT", token: a.token, body: { active: true } })).body).toMatchObject({ active: true, disabledReason: null });
    await t.api(`/api/webhooks/${gone.id}/deliveries/${g.id}/redeliver`, { method: "POST", token: a.token });
    expect(await deliveryOf(gone.id, g.id)).toMatchObject({ status: "succeeded", attempts: 1, responseStatus: 200 });
    expect(receiver.received.filter((r) => r.id === g.id).map((r) => r.answered)).toEqual([410, 200]);
    const range = await t.api(`/api/webhooks/${gone.id}/redeliver`, { token: a.token, body: { from: 0, to: Date.now() + 60_000 } });
    expect(range.body).toEqual({ queued: 0 });
  });

  test("test sends: 5 a minute per webhook, then 429 with Retry-After; none while the account has 100 deliveries pending", async () => {
    receiver.answerWith(() => new Response("ok"));
    const ep = (await t.api("/api/webhooks", { token: a.token, body: { name: "limited", url: `${receiver.url}/limited`, events: ["contact_created"] } })).body;
    const other = (await t.api("/api/webhooks", { token: a.token, body: { name: "other", url: `${receiver.url}/other`, events: ["contact_created"] } })).body;
    const realNow = t.ctx.now;
    const start = Date.now() + 3 * 24 * 3600_000; // past the deliveries the other tests made
    let now = start;
    t.ctx.now = () => now;
    try {
      const send = (id: string) => t.api(`/api/webhooks/${id}/test`, { method: "POST", token: a.token });
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await send(ep.id)).status);
        now += 1000;
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      const sixth = await send(ep.id);
      expect([sixth.status, sixth.body.message, sixth.headers.get("retry-after")]).toEqual([429, "At most 5 test events a minute per webhook: try again in 55 s", "55"]);
      expect((await send(other.id)).status).toBe(200); // per webhook
      now = start + 60_001; // the first has aged out
      expect((await send(ep.id)).status).toBe(200);
      expect((await send(ep.id)).status).toBe(429);

      // 100 deliveries waiting (a receiver that does not keep up): the account's test sends wait.
      await (await runDueJobs(t.ctx)).settled;
      const insert = t.ctx.db.$client.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, user_id, event_type, payload, status, created_at) VALUES (?, ?, ?, 'contact_created', '{}', 'pending', ?)`,
      );
      for (let i = 0; i < 100; i++) insert.run(`msg_pending_${i}`, other.id, a.user.id, now);
      now += 120_000;
      const capped = await send(ep.id);
      expect([capped.status, capped.body.message, capped.headers.get("retry-after")]).toEqual([
        429,
        "100 deliveries are waiting to be sent for this account: send a test event once they have gone",
        "60",
      ]);
      t.ctx.db.$client.query(`DELETE FROM webhook_deliveries WHERE id LIKE 'msg_pending_%'`).run();
      expect((await send(ep.id)).status).toBe(200);
    } finally {
      t.ctx.now = realNow;
      await (await runDueJobs(t.ctx)).settled;
    }
  });

  test("PATCH /api/webhooks/:id edits a webhook's name, events and URL; bad changes answer 400, another account's 404", async () => {
    receiversStandFor(t.ctx, "public");
    const ep = (await t.api("/api/webhooks", { token: a.token, body: { name: "to edit", url: `${receiver.url}/before`, events: ["contact_created"] } })).body;
    const patch = (body: unknown, token = a.token, id = ep.id) => t.api(`/api/webhooks/${id}`, { method: "PATCH", token, body });
    const renamed = await patch({ name: "  Orders flow ", events: ["message_delivered", "contact_created", "message_delivered"] });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: ep.id, name: "Orders flow", url: `${receiver.url}/before`, events: ["message_delivered", "contact_created"], active: true });
    expect((await patch({ url: `${receiver.url}/after` })).body).toMatchObject({ name: "Orders flow", url: `${receiver.url}/after` });
    const refusals = [];
    for (const body of [{ events: [] }, { name: " " }, { url: "http://169.254.169.254/latest" }, { events: ["nope"] }]) {
      const res = await patch(body);
      refusals.push([res.status, res.body.message]);
    }
    expect(refusals).toEqual([
      [400, "Choose at least one event"],
      [400, "Give the webhook a name"],
      [400, `The webhook URL http://169.254.169.254 was refused: 169.254.169.254 is a cloud metadata address. ${NEVER_HINT}`],
      [400, `Invalid events.0: expected one of ${WEBHOOK_EVENTS.join(", ")}`],
    ]);
    const stranger = await t.signUpVerified();
    expect((await patch({ name: "mine" }, stranger.token)).status).toBe(404);
    expect((await t.api("/api/webhooks", { token: a.token })).body.data.find((w: any) => w.id === ep.id)).toMatchObject({ name: "Orders flow", url: `${receiver.url}/after` });
    await t.api(`/api/webhooks/${ep.id}`, { method: "DELETE", token: a.token });
  });

  test("the user's webhook API is CSRF-protected, unlike the provider webhooks under the same prefix", async () => {
    const res = await t.api("/api/webhooks", { cookie: "x", origin: false, headers: { origin: "https://evil.example" }, body: { name: "x", url: "http://example.com", events: ["contact_created"] } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("csrf");
  });

  test("the user's webhook API has the JSON body limit (1 MB), not the providers' 256 KB", async () => {
    const ep = (await t.api("/api/webhooks", { token: a.token, body: { name: "limits", url: `${receiver.url}/limits`, events: ["contact_created"] } })).body;
    const big = await t.api(`/api/webhooks/${ep.id}/rotate-secret`, { token: a.token, body: { secret: `whsec_${"A".repeat(300_000)}` } });
    expect([big.status, big.body.message]).toEqual([400, "The secret is whsec_ followed by base64, at most 100 characters"]);
    const tooBig = await t.api(`/api/webhooks/${ep.id}/rotate-secret`, { token: a.token, body: { secret: `whsec_${"A".repeat(1_100_000)}` } });
    expect(tooBig.status).toBe(413);
  });
});

describe("delivery through failures and a restart", () => {
  test("Retry-After is honoured; an endpoint failing for 5 days is disabled and its owner told, its payloads kept", async () => {
    const receiver = startReceiver();
    receiver.answerWith(() => new Response("busy", { status: 503, headers: { "retry-after": "3600" } }));
    const T0 = Date.parse("2026-07-01T12:00:00Z");
    let now = T0;
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-webhooks-"));
    const ctx = await openAppContext(loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, []), () => {});
    const mails: { to: string; subject: string; text: string }[] = [];
    ctx.mailer.close();
    ctx.mailer = { send: async (m) => void mails.push(m), close: () => {} };
    ctx.now = () => now;
    await startOutboundWebhooks(ctx);
    const user = await createOrPromoteAdmin(ctx, "shop@example.com", "owner-secret-123");
    receiversStandFor(ctx, "public");
    const ep = await createEndpoint(ctx, user.id, { name: "crm", url: `${receiver.url}/crm`, events: ["contact_created"] });
    // Its owner is told it was made (src/auth/session-credentials.ts); what follows is about the disabling.
    expect(mails.map((m) => [m.to, m.subject])).toEqual([["shop@example.com", "New webhook on your smsdesk account"]]);
    mails.length = 0;
    const run = async () => {
      await (await runDueJobs(ctx)).settled;
      await (await runDueJobs(ctx)).settled;
    };
    const nextAttempt = () => (ctx.db.$client.query(`SELECT next_attempt_at FROM jobs WHERE kind = 'webhooks.deliver'`).get() as { next_attempt_at: number }).next_attempt_at;

    await appendEvent(ctx, { userId: user.id, type: "contact.created", subject: { kind: "contact", id: "c1" } });
    await run();
    // The schedule says 5 s; the receiver asked for an hour.
    expect(nextAttempt() - now).toBe(3600_000);
    // Jump through every attempt: the delivery ends failed, its payload kept.
    for (let i = 0; i < 8; i++) {
      now = Math.max(now, nextAttempt());
      await run();
    }
    const row = () => ctx.db.$client.query(`SELECT status, attempts, payload FROM webhook_deliveries`).all() as { status: string; attempts: number; payload: string }[];
    expect(row().map((r) => [r.status, r.attempts, JSON.parse(r.payload).data])).toEqual([["failed", 8, { contactId: "c1" }]]);
    expect(mails).toEqual([]);

    // Five days after the first failure, the next failure disables the endpoint and emails the owner.
    now = T0 + 5 * 24 * 3600_000;
    await appendEvent(ctx, { userId: user.id, type: "contact.created", subject: { kind: "contact", id: "c2" } });
    await run();
    const endpoint = ctx.db.$client.query(`SELECT active, disabled_reason FROM webhook_endpoints WHERE id = ?`).get(ep.id);
    expect(endpoint).toEqual({ active: 0, disabled_reason: "every delivery failed for 5 days" });
    expect(mails.map((m) => [m.to, m.subject])).toEqual([["shop@example.com", 'Your webhook "crm" was disabled']]);

    // Enabled again, the pending retry goes out and the exhausted delivery is sent again by time range.
    receiver.answerWith(() => new Response("ok"));
    await updateEndpoint(ctx, user.id, ep.id, { active: true });
    now += 24 * 3600_000;
    await run();
    expect(await redeliverRange(ctx, user.id, ep.id, T0, now)).toEqual({ queued: 1 });
    await run();
    expect(row().map((r) => [r.status, JSON.parse(r.payload).data.contactId]).sort()).toEqual([["succeeded", "c1"], ["succeeded", "c2"]]);
    ctx.db.$client.close();
    receiver.stop();
  });

  test("a receiver failing for ten minutes then answering: each attempt on Svix's schedule, the data folder reopened in-process midway", async () => {
    const receiver = startReceiver();
    const T0 = Date.parse("2026-06-01T12:00:00Z");
    let now = T0;
    receiver.answerWith(() => (now < T0 + 10 * 60_000 ? new Response("down", { status: 500 }) : new Response("ok")));
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-webhooks-"));
    const config = loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, []);
    const open = async () => {
      const ctx = await openAppContext(config, () => {});
      ctx.now = () => now;
      receiversStandFor(ctx, "public");
      await startOutboundWebhooks(ctx);
      return ctx;
    };
    const close = (ctx: AppContext) => {
      ctx.mailer.close();
      ctx.db.$client.close();
    };
    const run = async (ctx: AppContext) => {
      // The feed (transactional) makes deliveries; the next pass sends them.
      await (await runDueJobs(ctx)).settled;
      await (await runDueJobs(ctx)).settled;
    };

    let ctx = await open();
    const user = await createOrPromoteAdmin(ctx, "owner@example.com", "owner-secret-123");
    const other = await createOrPromoteAdmin(ctx, "other@example.com", "other-secret-123");
    const ep = await createEndpoint(ctx, user.id, { name: "n8n", url: `${receiver.url}/hook`, events: ["contact_created", "message_delivered", "contact_opted_out"] });
    const event = (type: Parameters<typeof appendEvent>[1]["type"], subject: Parameters<typeof appendEvent>[1]["subject"], payload = {}, userId = user.id) =>
      appendEvent(ctx, { userId, type, subject, payload });

    await event("contact.created", { kind: "contact", id: "c1" }, { source: "manual" });
    await event("message.delivered", { kind: "campaign", id: "k1" }, { messageIds: ["m1", "m2", "m3"] });
    await event("message.sent", { kind: "message", id: "m9" }); // not subscribed
    await event("contact.created", { kind: "contact", id: "c-other" }, {}, other.id); // another account
    await run(ctx); // attempt 1 at T0: 500
    now += 5_000;
    await run(ctx); // attempt 2 at +5 s: 500
    await event("contact.opted_out", { kind: "contact", id: "c1" }, { source: "reply" });
    // The appliance stops before the feed sees the last event, and comes back.
    close(ctx);
    ctx = await open();
    now += 5 * 60_000;
    await run(ctx); // attempt 3 of the first four at +5 min 5 s: 500; attempt 1 of the opt-out: 500
    now += 5_000;
    await run(ctx); // the opt-out's attempt 2: 500
    now += 30 * 60_000;
    await run(ctx); // every attempt now succeeds
    now += 5 * 60_000;
    await run(ctx);

    const ok = receiver.received.filter((r) => r.answered === 200);
    const bodies = new Map(ok.map((r) => [r.id, verify(ep.secret, r) as { type: string; data: Record<string, unknown> }]));
    expect(bodies.size).toBe(ok.length);
    expect([...bodies.values()].map((b) => [b.type, b.data]).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([
      ["contact_created", { contactId: "c1", source: "manual" }],
      ["contact_opted_out", { contactId: "c1", source: "reply" }],
      ["message_delivered", { messageId: "m1", campaignId: "k1", media: [] }],
      ["message_delivered", { messageId: "m2", campaignId: "k1", media: [] }],
      ["message_delivered", { messageId: "m3", campaignId: "k1", media: [] }],
    ]);
    // Every attempt verified, failed or not, and each delivery kept the same webhook-id across its attempts.
    for (const r of receiver.received) verify(ep.secret, r);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(5);
    const rows = ctx.db.$client.query(`SELECT event_type, status, attempts FROM webhook_deliveries ORDER BY event_type, attempts`).all();
    expect(rows).toEqual([
      { event_type: "contact_created", status: "succeeded", attempts: 4 },
      { event_type: "contact_opted_out", status: "succeeded", attempts: 3 },
      { event_type: "message_delivered", status: "succeeded", attempts: 4 },
      { event_type: "message_delivered", status: "succeeded", attempts: 4 },
      { event_type: "message_delivered", status: "succeeded", attempts: 4 },
    ]);
    close(ctx);
    receiver.stop();
  });
});

describe("every event type, end to end", () => {
  // One account does what each event reports (a contact added, a keyword texted, STOP, a reply, messages sent,
  // delivered and failed through the simulator, a campaign finished); one webhook subscribed to all of them
  // receives each, and every payload verifies with the reference verifier.
  let t: TestServer;
  let receiver: ReturnType<typeof startReceiver>;
  let secret = "";
  const got = new Map<string, { type: string; data: Record<string, any> }[]>();
  const ids = {} as Record<
    "contact" | "keyword" | "joinMessage" | "joiner" | "reply" | "delivered" | "failed" | "campaign" | "code" | "clicked" | "mms" | "photo" | "inboundMms" | "inboundItem",
    string
  >;
  const photo = photoJpeg(160, 120, 80);
  let feedAtInbound = 0;

  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    receiver = startReceiver();
    receiversStandFor(t.ctx, "public");
    const acc = await t.confirm(await t.signUpVerified());
    const post = (path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });
    await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
    const ep = await post("/api/webhooks", { name: "all", url: `${receiver.url}/all`, events: [...WEBHOOK_EVENTS] });
    expect(ep.status).toBe(201);
    secret = ep.body.secret;

    const provider = (await post("/api/sms-providers", { provider: "simulator", displayName: "Simulator" })).body;
    await t.api(`/api/sms-providers/${provider.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 20 } } });
    const number = (await post("/api/phone-numbers", { providerId: provider.id, phoneNumber: "+14155550110", messagesPerSecond: 0 })).body;
    expect(number.phoneNumber).toBe("+14155550110");
    ids.contact = (await post("/api/contacts", { firstName: "Pat", phone: "+14155552671" })).body.id;
    ids.keyword = (await post("/api/keywords", { keyword: "JOIN", autoReply: "Thanks for joining!" })).body.id;
    const account = (await findProviderById(t.ctx, provider.id))!;
    let seq = 0;
    const text = async (from: string, body: string) =>
      (await recordInbound(t.ctx, account, { type: "inbound", providerMessageId: `all-${++seq}`, from, to: "+14155550110", body })).message!.id;
    ids.joinMessage = await text("+14155552672", "join");
    ids.joiner = (await findByPhone(t.ctx, acc.user.id, "+14155552672"))!.id;
    ids.reply = await text("+14155552671", "Sounds good");
    await text("+14155552671", "STOP");
    // A picture sent alone (the simulator sends MMS) and one received: its item written pending with the message.
    const up = await fetch(`${t.url}/api/media?filename=bouquet.jpg`, { method: "POST", headers: { authorization: `Bearer ${acc.token}` }, body: photo as Uint8Array<ArrayBuffer> });
    expect(up.status).toBe(201);
    ids.photo = ((await up.json()) as { id: string }).id;
    ids.inboundMms = (await recordInbound(t.ctx, account, {
      type: "inbound",
      providerMessageId: `all-${++seq}`,
      from: "+14155552671",
      to: "+14155550110",
      body: "Look",
      media: [signedMediaUrl(t.ctx, ids.photo)],
    })).message!.id;
    // The feed runs as the event commits, before the copy job has fetched the item (as in production, synchronously here).
    feedAtInbound = t.ctx.now();
    await feedDeliveries(t.ctx);
    ids.inboundItem = (t.ctx.db.$client.query(`SELECT id FROM media WHERE message_id = ?`).get(ids.inboundMms) as { id: string }).id;

    const settled = (id: string) =>
      waitFor(() => t.api(`/api/messages/${id}`, { token: acc.token }).then((r) => r.body), (m) => ["delivered", "failed"].includes(m.status), 10_000);
    ids.delivered = (await post("/api/messages/send", { phone: "+14155552673", content: "Hello" })).body.id;
    ids.failed = (await post("/api/messages/send", { phone: "+14155550155", content: "Hello" })).body.id;
    expect([(await settled(ids.delivered)).status, (await settled(ids.failed)).status]).toEqual(["delivered", "failed"]);
    ids.mms = (await post("/api/messages/send", { phone: "+14155552676", content: "Today's bouquet", mediaIds: [ids.photo] })).body.id;
    expect((await settled(ids.mms)).status).toBe("delivered");
    const campaign = (await post("/api/campaigns", { type: "sms", name: "Sale", content: "Sale today https://shop.example.com/sale", recipients: ["+14155552674", "+14155552675"] })).body;
    ids.campaign = campaign.id;
    expect((await post(`/api/campaigns/${campaign.id}/send`)).status).toBe(202);
    await waitFor(() => t.api(`/api/campaigns/${campaign.id}`, { token: acc.token }).then((r) => r.body.status), (s) => s === "completed", 15_000);
    // A person opens the sale's short link a minute after delivery (src/links/): link_clicked.
    const sent = t.ctx.db.$client.query(`SELECT id, content FROM messages WHERE campaign_id = ? AND phone = ?`).get(campaign.id, "+14155552674") as { id: string; content: string };
    const link = { code: /\/l\/([0-9A-Za-z]{7})/.exec(sent.content)![1]!, id: sent.id };
    [ids.code, ids.clicked] = [link.code, link.id];
    // "Completed" means sent, not delivered: the simulator's reports come 20 ms later. Both are waited for before the
    // clock moves, or a report landing while it is moved is stamped a minute ahead too, next to the click, which the
    // flush then rightly classifies as a scanner's (within 5 s of the delivery report) and no link_clicked is made.
    for (const m of t.ctx.db.$client.query(`SELECT id FROM messages WHERE campaign_id = ?`).all(campaign.id) as { id: string }[]) {
      expect((await settled(m.id)).status).toBe("delivered");
    }
    // The clock stays moved until every delivery is in: the click's event, its delivery and the delivery's job are
    // stamped at the moved time (the feed runs as the event commits), and a clock moved back would leave that job
    // due a minute from now, pending past the wait.
    const realNow = t.ctx.now;
    t.ctx.now = () => realNow() + 60_000;
    try {
      expect((await fetch(`${t.url}/l/${link.code}`, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (Android 14; Mobile)" } })).status).toBe(302);
      // Its report is in, so the hit is written by this flush (or the timer's before it), a person's click.
      await flushClicks(t.ctx);
      expect(t.ctx.db.$client.query(`SELECT verdict FROM link_clicks WHERE code = ?`).all(link.code)).toEqual([{ verdict: "human" }]);

      await waitFor(
        async () => {
          await feedDeliveries(t.ctx);
          await (await runDueJobs(t.ctx)).settled;
          return receiver.received.filter((r) => r.path === "/all");
        },
        (rs) =>
          new Set(rs.map((r) => (JSON.parse(r.body) as { type: string }).type)).size === WEBHOOK_EVENTS.length &&
          !t.ctx.db.$client.query(`SELECT 1 FROM webhook_deliveries WHERE status = 'pending'`).get(),
        15_000,
      );
    } finally {
      t.ctx.now = realNow;
    }
    // Attempts to one endpoint run concurrently (up to 8), so they may arrive out of order: read them in the order
    // of the events they report.
    const order = new Map(
      (t.ctx.db.$client.query(`SELECT id FROM webhook_deliveries ORDER BY event_id, rowid`).all() as { id: string }[]).map((d, i) => [d.id, i]),
    );
    const inEventOrder = receiver.received.filter((r) => r.path === "/all").sort((x, y) => order.get(x.id)! - order.get(y.id)!);
    for (const r of inEventOrder) {
      const body = verify(secret, r) as { type: string; data: Record<string, any> };
      got.set(body.type, [...(got.get(body.type) ?? []), body]);
    }
  });
  afterAll(async () => {
    receiver.stop();
    await t.stop();
  });

  const dataOf = (type: string) => (got.get(type) ?? []).map((b) => b.data);

  test("contact_created: added by hand and by texting a keyword", () => {
    expect(dataOf("contact_created")).toEqual([
      { contactId: ids.contact, source: "manual" },
      { contactId: ids.joiner, source: "keyword" },
    ]);
  });
  test("keyword_received: the keyword, its id, the sender, the number texted, the contact and what it did", () => {
    expect(dataOf("keyword_received")).toEqual([
      { messageId: ids.joinMessage, keywordId: ids.keyword, keyword: "JOIN", phone: "+14155552672", number: "+14155550110", contactId: ids.joiner, outcome: "subscribed" },
    ]);
  });
  test("link_clicked: a person's click of a campaign's short link, with its link, campaign and message", () => {
    expect(dataOf("link_clicked")).toEqual([
      { clickId: 1, code: ids.code, url: "https://shop.example.com/sale", campaignId: ids.campaign, contactId: null, messageId: ids.clicked, clickedAt: expect.any(String) },
    ]);
  });
  test("contact_opted_in: through the keyword", () => {
    expect(dataOf("contact_opted_in")).toEqual([{ contactId: ids.joiner, source: "keyword", keyword: "JOIN" }]);
  });
  test("contact_opted_out: by texting STOP", () => {
    expect(dataOf("contact_opted_out")).toEqual([{ contactId: ids.contact, source: "keyword" }]);
  });
  test("message_replied: every inbound message, with its sender", () => {
    expect(dataOf("message_replied").map((d) => d.phone)).toEqual(["+14155552672", "+14155552671", "+14155552671", "+14155552671"]);
    expect(dataOf("message_replied")[1]).toEqual({ messageId: ids.reply, phone: "+14155552671", contactId: ids.contact, media: [] });
  });
  test("message_replied of an MMS: its item as it was when the event was fed, pending, by a URL good for 7 days", async () => {
    const [d] = dataOf("message_replied").filter((x) => x.messageId === ids.inboundMms);
    const expires = Number(new URL(d!.media[0].url).searchParams.get("expires"));
    expect(d).toEqual({
      messageId: ids.inboundMms,
      phone: "+14155552671",
      contactId: ids.contact,
      media: [{ id: ids.inboundItem, contentType: null, filename: null, size: null, status: "pending", url: expect.any(String), urlExpiresAt: new Date(expires).toISOString() }],
    });
    expect(expires - feedAtInbound).toBeGreaterThanOrEqual(7 * 86_400_000);
    expect(expires - feedAtInbound).toBeLessThan(7 * 86_400_000 + 5_000);
    // Once the copy job ran, the same URL serves the copy, byte for byte, without a session.
    await waitFor(() => t.ctx.db.$client.query(`SELECT status FROM media WHERE id = ?`).get(ids.inboundItem) as { status: string }, (r) => r.status === "stored", 10_000);
    const res = await fetch(d!.media[0].url.replace(t.ctx.config.publicUrl, t.url));
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(photo));
  });
  test("message_sent: messages sent alone and a campaign's, one delivery per message", () => {
    const sent = dataOf("message_sent");
    expect(sent.filter((d) => d.messageId === ids.delivered || d.messageId === ids.failed)).toEqual([
      { messageId: ids.delivered, media: [] },
      { messageId: ids.failed, media: [] },
    ]);
    expect(sent.filter((d) => d.campaignId === ids.campaign).map((d) => d.media)).toEqual([[], []]);
  });
  test("message_sent and message_delivered of an MMS: the picture, by a signed URL that serves it byte for byte", async () => {
    const [sent] = dataOf("message_sent").filter((d) => d.messageId === ids.mms);
    const [delivered] = dataOf("message_delivered").filter((d) => d.messageId === ids.mms);
    for (const d of [sent!, delivered!]) {
      const url = new URL(d.media[0].url);
      expect(url.origin + url.pathname).toBe(`${t.ctx.config.publicUrl}/api/media/${ids.photo}/signed`);
      expect(d).toEqual({
        messageId: ids.mms,
        media: [{ id: ids.photo, contentType: "image/jpeg", filename: "bouquet.jpg", size: photo.length, status: "stored", url: d.media[0].url, urlExpiresAt: new Date(Number(url.searchParams.get("expires"))).toISOString() }],
      });
      const res = await fetch(`${t.url}${url.pathname}${url.search}`);
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(photo));
    }
  });
  test("message_delivered and message_failed: the simulator's delivery reports", () => {
    expect(dataOf("message_delivered")).toContainEqual({ messageId: ids.delivered, media: [] });
    expect(dataOf("message_failed")).toEqual([{ messageId: ids.failed, media: [] }]);
  });
  test("campaign_sent: once, when the campaign completed", () => {
    expect(dataOf("campaign_sent")).toEqual([{ campaignId: ids.campaign, status: "completed" }]);
  });
});

describe("across restarts of the appliance process", () => {
  test(
    "a receiver answering 500 for ten minutes then 200: every event arrives, each webhook-id once, none lost, through a SIGKILL and a SIGTERM",
    async () => {
      const receiver = startReceiver();
      // The child's clock starts at the wall clock and only moves forward; the receiver judges by the signed time.
      const downUntil = Date.now() + 10 * 60_000;
      receiver.answerWith((_path, req) => (Number(req.headers.get("webhook-timestamp")) * 1000 < downUntil ? new Response("down", { status: 500 }) : new Response("ok")));
      const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-webhooks-restart-"));
      const env = { DATA_DIR: dataDir, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "restart-test-pass", SMSDESK_TEST_RECEIVERS_PUBLIC: "1" };
      let server: ClockedServer = await startClockedServer(env, 0);
      try {
        const admin = await childApi(server.url, "/api/admin/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } });
        const signIn = async () => (await childApi(server.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } })).body.token as string;
        let token = await signIn();
        await childApi(server.url, "/api/auth/confirm", { token, body: { password: env.ADMIN_PASSWORD } });
        const ep = await childApi(server.url, "/api/webhooks", { token, body: { name: "n8n", url: `${receiver.url}/hook`, events: ["contact_created"] } });
        expect(ep.status).toBe(201);
        const contacts: string[] = [];
        const addContact = async (i: number) => {
          const res = await childApi(server.url, "/api/contacts", { token, body: { firstName: `C${i}`, phone: `+1415555${String(2600 + i)}` } });
          expect(res.status).toBe(201);
          contacts.push(res.body.id);
        };

        for (let i = 0; i < 3; i++) await addContact(i);
        let offset = await server.advance(5_000); // fed; attempt 1: 500
        offset = await server.advance(5_000); // attempt 2: 500
        for (let i = 3; i < 5; i++) await addContact(i); // in the log, not yet fed
        await server.kill("SIGKILL");

        server = await startClockedServer(env, offset);
        offset = await server.advance(5 * 60_000); // the first three's attempt 3: 500; the last two fed, attempt 1: 500
        offset = await server.advance(5_000); // the last two's attempt 2: 500
        await server.kill("SIGTERM");

        server = await startClockedServer(env, offset);
        token = await signIn();
        await server.advance(30 * 60_000); // past ten minutes: every pending delivery succeeds
        // The runner's own tick may have claimed some of them: wait until every delivery has its answer.
        const log = await waitFor(
          async () => {
            await server.advance(1_000);
            return (await childApi(server.url, `/api/webhooks/${ep.body.id}/deliveries`, { token })).body.deliveries as { status: string; attempts: number }[];
          },
          (l) => l.length === 5 && l.every((d) => d.status !== "pending"),
        );

        const failed = receiver.received.filter((r) => r.answered === 500);
        const ok = receiver.received.filter((r) => r.answered === 200);
        expect(failed.length).toBeGreaterThanOrEqual(3 * 3 + 2 * 2);
        // De-duplicated by webhook-id: five deliveries, each answered 200 once, one per contact created.
        expect(ok.length).toBe(5);
        expect(new Set(ok.map((r) => r.id)).size).toBe(5);
        const bodies = ok.map((r) => verify(ep.body.secret, r) as { type: string; data: { contactId: string; source: string } });
        expect(bodies.map((b) => [b.type, b.data.source])).toEqual(Array(5).fill(["contact_created", "manual"]));
        expect(bodies.map((b) => b.data.contactId).sort()).toEqual([...contacts].sort());
        // Every attempt, failed or not, verifies and carries its delivery's one webhook-id.
        for (const r of receiver.received) verify(ep.body.secret, r);
        expect(new Set(receiver.received.map((r) => r.id)).size).toBe(5);
        expect(log.map((d) => d.status)).toEqual(Array(5).fill("succeeded"));
        expect(log.every((d) => d.attempts >= 3)).toBe(true);
      } finally {
        await server.kill("SIGKILL");
        receiver.stop();
      }
      const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
      expect(db.query(`SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status`).all()).toEqual([{ status: "succeeded", n: 5 }]);
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    120_000,
  );
});

describe("https to the pinned address", () => {
  // Self-signed certificates, trusted the way an operator trusts a private CA (NODE_EXTRA_CA_CERTS, read by Bun at
  // start, so the calls run in child processes). The receiver answers with one certificate per TLS server name
  // (SNI) and a default one for any other: a call verifies only if it sent the right name and checked the
  // certificate against it, while its TCP connection went to the address it was given.
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-tls-"));
  const certFor = (name: string) => {
    const r = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", `/CN=${name}`, "-addext", `subjectAltName=DNS:${name}`, "-keyout", join(dir, `${name}.key`), "-out", join(dir, `${name}.pem`)]);
    expect(r.exitCode, r.stderr.toString()).toBe(0);
    return { cert: Bun.file(join(dir, `${name}.pem`)).text(), key: Bun.file(join(dir, `${name}.key`)).text() };
  };
  let ca = "";
  const hosts: string[] = [];
  let server: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    const names = ["hooks.example.com", "localhost", "default.invalid"];
    const pems = Object.fromEntries(await Promise.all(names.map(async (n) => { const c = certFor(n); return [n, { cert: await c.cert, key: await c.key }] as const; })));
    ca = join(dir, "ca.pem");
    await Bun.write(ca, names.map((n) => pems[n]!.cert).join(""));
    const local = await resolveTarget("https://localhost/", { allowList: allowListOf([]), judgeAs: { "127.0.0.1": PUBLIC_STAND_IN, "::1": PUBLIC_STAND_IN } });
    server = Bun.serve({
      port: 0,
      hostname: local.address,
      tls: [pems["default.invalid"]!, { serverName: "hooks.example.com", ...pems["hooks.example.com"]! }, { serverName: "localhost", ...pems["localhost"]! }],
      async fetch(req) {
        hosts.push(req.headers.get("host")!);
        return new Response("ok");
      },
    });
  });
  afterAll(() => {
    server.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a name that never resolves here, pinned to the local address: TLS name and Host are the name, the connection the address", async () => {
    // hooks.example.com resolves to the public internet, never to this receiver: only the pinned address reaches it.
    const script = `
      const { pinnedRequest } = await import(${JSON.stringify(join(import.meta.dir, "../../src/outbound-webhooks/ssrf.ts"))});
      const call = async (target) => {
        const { url, init } = pinnedRequest(target, { method: "POST", headers: { "webhook-id": "msg_tls" }, body: "{}", signal: AbortSignal.timeout(5000) });
        try { const r = await fetch(url, init); return r.status + " " + await r.text(); } catch (e) { return e.code; }
      };
      const port = ${server.port};
      console.log(JSON.stringify([
        await call({ url: new URL("https://hooks.example.com:" + port + "/in"), address: ${JSON.stringify(server.hostname)}, family: ${server.hostname!.includes(":") ? 6 : 4} }),
        await fetch("https://" + ${JSON.stringify(server.hostname!.includes(":") ? `[${server.hostname}]` : server.hostname)} + ":" + port + "/in").then((r) => String(r.status), (e) => e.code),
      ]));`;
    // Not spawnSync: the receiver answers from this process's event loop.
    const run = Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: ca }, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    expect(code, stderr).toBe(0);
    // The pinned call verified hooks.example.com's certificate, which the receiver sends only for that SNI; the same
    // address without the name gets the default certificate, which names neither.
    expect(JSON.parse(stdout)).toEqual(["200 ok", "ERR_TLS_CERT_ALTNAME_INVALID"]);
    expect(hosts.shift()).toBe(`hooks.example.com:${server.port}`);
    hosts.length = 0;
  });

  test("the appliance delivers to an https URL (localhost, judged as a public host): the certificate checked against the name, Host localhost", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-webhooks-tls-"));
    const env = { DATA_DIR: dataDir, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "tls-test-pass", NODE_EXTRA_CA_CERTS: ca, SMSDESK_TEST_RECEIVERS_PUBLIC: "1" };
    const child = await startClockedServer(env, 0);
    try {
      const admin = await childApi(child.url, "/api/admin/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } });
      const token = (await childApi(child.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } })).body.token;
      await childApi(child.url, "/api/auth/confirm", { token, body: { password: env.ADMIN_PASSWORD } });
      const ep = await childApi(child.url, "/api/webhooks", { token, body: { name: "tls", url: `https://localhost:${server.port}/hook`, events: ["contact_created"] } });
      expect(ep.status).toBe(201);
      const test = await childApi(child.url, `/api/webhooks/${ep.body.id}/test`, { method: "POST", token });
      // The runner's own tick may be the one that sends it: wait for the answer either way.
      const log = await waitFor(
        async () => {
          await child.advance(0);
          return (await childApi(child.url, `/api/webhooks/${ep.body.id}/deliveries`, { token })).body.deliveries;
        },
        (l) => l[0]?.status !== "pending",
      );
      expect(log).toMatchObject([{ id: test.body.id, status: "succeeded", attempts: 1, responseStatus: 200, error: null }]);
      expect(hosts).toEqual([`localhost:${server.port}`]);
    } finally {
      await child.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("upgrading from the 'Allow private networks' switch", () => {
  test("an installation with the switch on gets the private IPv4 networks listed; one with it off an empty list", async () => {
    const lists = [];
    for (const on of [true, false]) {
      const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-allow-list-upgrade-"));
      const old = databaseBefore(dataDir, "0049_webhook_allow_list");
      old.query(`INSERT INTO system_settings (key, value, updated_at) VALUES ('allowPrivateNetworks', ?, 1)`).run(JSON.stringify(on));
      old.close();
      const ctx = await openAppContext(loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, []), () => {});
      lists.push([await webhookAllowList(ctx), ctx.db.$client.query(`SELECT key FROM system_settings WHERE key = 'allowPrivateNetworks'`).get()]);
      ctx.mailer.close();
      ctx.db.$client.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(lists).toEqual([
      [["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"], null],
      [[], null],
    ]);
  });
});

describe("signing secrets at rest", () => {
  test("are sealed like provider credentials; an older version's clear secrets are sealed at start and still sign", async () => {
    const receiver = startReceiver();
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-webhook-secrets-"));
    const config = loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, []);
    const logs: string[] = [];
    const open = async () => {
      const ctx = await openAppContext(config, (line) => logs.push(line));
      receiversStandFor(ctx, "public");
      await startOutboundWebhooks(ctx);
      return ctx;
    };
    let ctx = await open();
    const user = await createOrPromoteAdmin(ctx, "sealed@example.com", "owner-secret-123");
    const made = await createEndpoint(ctx, user.id, { name: "new", url: `${receiver.url}/new`, events: ["contact_created"] });
    const stored = () =>
      ctx.db.$client.query(`SELECT name, secret, previous_secret FROM webhook_endpoints ORDER BY name`).all() as { name: string; secret: string; previous_secret: string | null }[];
    expect(stored()[0]!.secret).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored()[0]!.secret).not.toContain(made.secret.slice(6));

    // As an older version left them: a secret and a rotated one within the overlap, in clear.
    const [current, previous] = ["whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_" + "C2FVsBQIhrscChlQIMV+b5sSYspob7oD"];
    ctx.db.$client
      .query(`INSERT INTO webhook_endpoints (id, user_id, name, url, events, secret, previous_secret, previous_secret_until, active, created_at) VALUES ('old', ?, 'old', ?, '["contact_created"]', ?, ?, ?, 1, 0)`)
      .run(user.id, `${receiver.url}/old`, current, previous, Date.now() + 3600_000);
    ctx.mailer.close();
    ctx.db.$client.close();
    ctx = await open();
    expect(logs).toContain("webhooks: 1 signing secret(s) stored in clear were sealed");
    const rows = stored();
    expect(rows.map((r) => r.name)).toEqual(["new", "old"]);
    for (const r of rows) expect([r.secret, r.previous_secret ?? "v1.x.y.z"].every((v) => /^v1\./.test(v))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain("whsec_");

    await appendEvent(ctx, { userId: user.id, type: "contact.created", subject: { kind: "contact", id: "c1" } });
    await (await runDueJobs(ctx)).settled;
    await (await runDueJobs(ctx)).settled;
    const old = receiver.received.find((r) => r.path === "/old")!;
    expect(old.signature.split(" ").length).toBe(2);
    expect(verify(current, old)).toMatchObject({ type: "contact_created", data: { contactId: "c1" } });
    expect(verify(previous, old)).toMatchObject({ type: "contact_created" });
    expect(verify(made.secret, receiver.received.find((r) => r.path === "/new")!)).toMatchObject({ type: "contact_created" });
    // Opened again: nothing left to seal.
    ctx.mailer.close();
    ctx.db.$client.close();
    logs.length = 0;
    ctx = await open();
    expect(logs.filter((l) => l.includes("sealed"))).toEqual([]);
    ctx.mailer.close();
    ctx.db.$client.close();
    receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
});
