import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MANAGER_OPTIONS } from "../../src/sending/manager";
import { childApi, startChildServer, type ChildServer } from "../support/child-server";
import { startTwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

const RECIPIENTS = 3000;
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-crash-"));
const twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }], delayMs: 3 });
let server: ChildServer | null = null;

afterAll(async () => {
  await server?.kill("SIGKILL");
  await twilio.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { DATA_DIR: dataDir, TWILIO_API_BASE: twilio.url, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "crash-test-pass" };

test(
  "killed in the middle of a send and restarted, every recipient gets one message or is marked unknown, none forgotten",
  async () => {
    server = await startChildServer(env);
    const login = await childApi(server.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } });
    const token = login.body.token as string;
    await childApi(server.url, "/api/user/settings", { method: "PATCH", token, body: { quietHoursEnabled: false } });
    const provider = await childApi(server.url, "/api/sms-providers", {
      token,
      body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
    });
    await childApi(server.url, "/api/phone-numbers", { token, body: { providerId: provider.body.id, phoneNumber: "+14155550100", messagesPerSecond: 1000 } });
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `+1415${String(2000000 + i)}`);
    const campaign = await childApi(server.url, "/api/campaigns", { token, body: { name: "Crash", content: "Sale today", recipients } });
    expect(campaign.status).toBe(201);
    const sent = await childApi(server.url, `/api/campaigns/${campaign.body.id}/send`, { method: "POST", token });
    expect(sent.status).toBe(202);

    // Kill it hard while messages are on the wire.
    await waitFor(() => twilio.messages.length, (n) => n >= RECIPIENTS / 3, 30_000, 1);
    await server.kill("SIGKILL");
    const atKill = twilio.messages.length;
    expect(atKill).toBeLessThan(RECIPIENTS);

    server = await startChildServer(env);
    const relogin = await childApi(server.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } });
    const done = await waitFor(
      () => childApi(server!.url, `/api/campaigns/${campaign.body.id}`, { token: relogin.body.token }).then((r) => r.body),
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
    expect(new Set(rows.map((r) => r.phone)).size).toBe(RECIPIENTS);
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
    expect(received.size).toBeLessThanOrEqual(RECIPIENTS);
    expect(received.size).toBeGreaterThanOrEqual(RECIPIENTS - unknown.length);
  },
  120_000,
);
