// A real server process killed with SIGKILL while messages are on the wire to Twilio, then started again: each
// message cut off is reconciled with the provider (src/messages/reconcile.ts). One Twilio accepted before the kill
// is recorded sent with Twilio's id and never sent again; one that never got through is sent exactly once; one
// whose body Twilio holds only as an earlier message to the same person (already recorded) is not mistaken for it.
// The appliance runs on its test clock (RATE times the wall clock), and so does the fake's date_created, so the
// wait for the calls' timeout (25 s on the appliance's clock) takes about a second.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childApi, startChildServer, type ChildServer } from "../support/child-server";
import { startTwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

const RATE = 20;
const epoch = Date.now();
const applianceNow = () => Math.floor(epoch + (Date.now() - epoch) * RATE);
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-reconcile-"));
const twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }], now: applianceNow });
let server: ChildServer | null = null;

afterAll(async () => {
  await server?.kill("SIGKILL");
  twilio.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = {
  DATA_DIR: dataDir,
  TWILIO_API_BASE: twilio.url,
  ADMIN_EMAIL: "owner@example.com",
  ADMIN_PASSWORD: "crash-test-pass",
  SMSDESK_TEST_CLOCK: `${epoch}x${RATE}`,
};

async function start() {
  server = await startChildServer(env);
  const login = await childApi(server.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } });
  return login.body.token as string;
}

type Row = { id: string; phone: string; content: string; status: string; provider_message_id: string | null; error_code: string | null; segment_price_micros: number | null };
const rows = () => {
  const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
  try {
    return db.query(`SELECT id, phone, content, status, provider_message_id, error_code, segment_price_micros FROM messages WHERE direction = 'outbound' ORDER BY seq`).all() as Row[];
  } finally {
    db.close();
  }
};
const posted = (to: string) => twilio.requests.filter((r) => r.method === "POST" && r.params.To === to).length;
const atFake = (to: string) => twilio.messages.filter((m) => m.to === to);

test(
  "killed while messages are on the wire: accepted ones are recorded, not resent; the others go out exactly once",
  async () => {
    let token = await start();
    await childApi(server!.url, "/api/user/settings", { method: "PATCH", token, body: { quietHoursEnabled: false } });
    const provider = await childApi(server!.url, "/api/sms-providers", {
      token,
      body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
    });
    await childApi(server!.url, "/api/phone-numbers", { token, body: { providerId: provider.body.id, phoneNumber: "+14155550100", messagesPerSecond: 0 } });
    const send = (phone: string, content: string) => childApi(server!.url, "/api/messages/send", { token, body: { phone, content } });

    // An earlier "Weekly news" to C goes out normally and is recorded.
    expect((await send("+14155557003", "Weekly news")).status).toBe(202);
    await waitFor(() => rows().find((r) => r.phone === "+14155557003")?.status, (s) => s === "sent", 10_000, 20);
    // A: Twilio accepts it, the answer is lost. B and the second "Weekly news" to C: the request never got through.
    twilio.stallSends("accept");
    await send("+14155557001", "Your code is 1");
    await waitFor(() => posted("+14155557001"), (n) => n === 1, 10_000, 5);
    twilio.stallSends("drop");
    await send("+14155557002", "Your code is 2");
    await send("+14155557003", "Weekly news");
    await waitFor(() => posted("+14155557002") + posted("+14155557003"), (n) => n === 3, 10_000, 5);
    expect(rows().map((r) => r.status)).toEqual(["sent", "sending", "sending", "sending"]);
    await server!.kill("SIGKILL");
    twilio.stallSends(null);
    const lookupsBefore = twilio.requests.filter((r) => r.method === "GET").length;

    token = await start();
    await waitFor(rows, (rs) => rs.every((r) => r.status === "sent"), 20_000, 50);
    await server!.kill("SIGTERM");
    server = null;

    const a = atFake("+14155557001");
    const b = atFake("+14155557002");
    const c = atFake("+14155557003");
    expect([a.length, b.length, c.length]).toEqual([1, 1, 2]);
    const byPhone = (phone: string) => rows().filter((r) => r.phone === phone);
    // A is Twilio's message, found by the lookup: no second send.
    expect(byPhone("+14155557001")).toMatchObject([{ status: "sent", provider_message_id: a[0]!.sid, error_code: null }]);
    expect(posted("+14155557001")).toBe(1);
    // Found or sent again, each keeps the account's price per segment (Twilio's default) for the dashboards' spend.
    expect(rows().map((r) => r.segment_price_micros)).toEqual(rows().map(() => 8_300));
    // B was sent again once, after the lookup said Twilio had none.
    expect(byPhone("+14155557002")).toMatchObject([{ status: "sent", provider_message_id: b[0]!.sid }]);
    expect(posted("+14155557002")).toBe(2);
    // C: the earlier "Weekly news" is the first row's; the second was sent again, and each row holds its own id.
    expect(byPhone("+14155557003").map((r) => r.provider_message_id)).toEqual(c.map((m) => m.sid));
    // One lookup per message cut off: GET Messages.json?To=&From=.
    const lookups = twilio.requests.filter((r) => r.method === "GET").slice(lookupsBefore);
    expect(lookups.map((r) => r.query.To).sort()).toEqual(["+14155557001", "+14155557002", "+14155557003"]);
    expect(new Set(lookups.map((r) => r.query.From))).toEqual(new Set(["+14155550100"]));
  },
  60_000,
);
