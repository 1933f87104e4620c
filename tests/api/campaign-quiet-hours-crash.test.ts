// "Send held messages now" cut off by SIGKILL (issue 28 item 7): the campaign outbox stays exactly-once. The
// appliance runs in a child process (`bun src/main.ts`, its own clock: a crash's reconciliation waits out the
// provider's request timeout on it) with quiet hours set around the present hour in New York, from an hour before to
// two hours after, so every message to a New York number is held until the user lets them go; it is killed while
// they are on the wire and started again on the same data.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MANAGER_OPTIONS } from "../../src/sending/manager";
import { childApi, startChildServer, type ChildServer } from "../support/child-server";
import { startTwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

const RECIPIENTS = 2000;
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-held-crash-"));
const twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }], delayMs: 3 });
let server: ChildServer | null = null;

afterAll(async () => {
  await server?.kill("SIGKILL");
  await twilio.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { DATA_DIR: dataDir, TWILIO_API_BASE: twilio.url, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "held-crash-pass" };
const start = () => startChildServer(env);
const signIn = async (s: ChildServer) =>
  (await childApi(s.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } })).body.token as string;

test(
  "killed while the held messages it let go are on the wire and restarted: each recipient got one message or is marked unknown",
  async () => {
    server = await start();
    let token = await signIn(server);
    const hour = Number(new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hourCycle: "h23", hour: "2-digit" }).format(Date.now()));
    const clock = (h: number) => `${String((h + 24) % 24).padStart(2, "0")}:00`;
    const quiet = { quietHoursEnabled: true, quietHoursStart: clock(hour - 1), quietHoursEnd: clock(hour + 2) };
    expect((await childApi(server.url, "/api/user/settings", { method: "PATCH", token, body: quiet })).status).toBe(200);
    const provider = await childApi(server.url, "/api/sms-providers", {
      token,
      body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
    });
    await childApi(server.url, "/api/phone-numbers", { token, body: { providerId: provider.body.id, phoneNumber: "+14155550100", messagesPerSecond: 1000 } });
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `+1212${String(5550000 + i)}`);
    const campaign = await childApi(server.url, "/api/campaigns", { token, body: { name: "Held", content: "Doors open at 9", recipients } });
    expect((await childApi(server.url, `/api/campaigns/${campaign.body.id}/send`, { method: "POST", token })).status).toBe(202);
    const held = await waitFor(
      () => childApi(server!.url, `/api/campaigns/${campaign.body.id}`, { token }).then((r) => r.body),
      (c) => c.quietWait?.count === RECIPIENTS,
      30_000,
      50,
    );
    expect(held.quietWait.resumesAt).toBe(new Intl.DateTimeFormat("en-US", { timeStyle: "short", timeZone: "UTC" }).format(Date.UTC(2000, 0, 1, (hour + 2) % 24)));
    expect(twilio.messages.length).toBe(0);

    const released = await childApi(server.url, `/api/campaigns/${campaign.body.id}/send-held`, { method: "POST", token });
    expect(released.body.released).toBe(RECIPIENTS);
    // Kill it hard while the messages let go are on the wire.
    await waitFor(() => twilio.messages.length, (n) => n >= RECIPIENTS / 3, 30_000, 1);
    await server.kill("SIGKILL");
    expect(twilio.messages.length).toBeLessThan(RECIPIENTS);

    // Still inside quiet hours after the restart: the campaign's choice holds, the rest go now.
    server = await start();
    token = await signIn(server);
    const done = await waitFor(
      () => childApi(server!.url, `/api/campaigns/${campaign.body.id}`, { token }).then(({ body }) => ({ status: body.status, counts: body.counts, quietWait: body.quietWait })),
      (c) => c.status === "completed",
      60_000,
      100,
    );
    await server.kill("SIGTERM");
    server = null;

    const received = new Map<string, number>();
    for (const m of twilio.messages) received.set(m.to, (received.get(m.to) ?? 0) + 1);
    const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
    const rows = db.query("SELECT phone, status FROM messages WHERE campaign_id = ?").all(campaign.body.id) as { phone: string; status: string }[];
    db.close();

    expect(rows.length).toBe(RECIPIENTS);
    // Nobody got two copies.
    expect([...received].filter(([, n]) => n > 1)).toEqual([]);
    const unknown = rows.filter((r) => r.status === "unknown");
    for (const r of rows) {
      if (r.status === "sent") expect(received.get(r.phone)).toBe(1);
      else expect(r.status).toBe("unknown");
    }
    // Only messages in flight at the kill can be unknown: at most one claim's worth of calls per number.
    expect(unknown.length).toBeLessThanOrEqual(DEFAULT_MANAGER_OPTIONS.maxInFlight);
    expect(done.counts).toMatchObject({ recipients: RECIPIENTS, pending: 0, sending: 0, unknown: unknown.length });
    expect(done.quietWait).toBeNull();
    expect(received.size).toBeGreaterThanOrEqual(RECIPIENTS - unknown.length);
  },
  150_000,
);
