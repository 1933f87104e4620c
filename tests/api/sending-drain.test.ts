// SIGTERM drains (issue 18): the real server in a child process, sending a campaign through a Twilio fake that takes
// 6 s to answer each call. At SIGTERM the engine claims nothing more, the calls in flight finish and are recorded
// `sent` (none left `sending` to become `unknown`), the process exits on its own, and a restart sends the rest.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childApi, startChildServer, type ChildServer } from "../support/child-server";
import { startTwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

const RECIPIENTS = 40;
const SLOW_MS = 6000;
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-drain-"));
const twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }], delayMs: SLOW_MS });
let server: ChildServer | null = null;

afterAll(async () => {
  await server?.kill("SIGKILL");
  await twilio.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { DATA_DIR: dataDir, TWILIO_API_BASE: twilio.url, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "drain-test-pass" };
const sends = () => twilio.requests.filter((r) => r.method === "POST" && r.path.endsWith("/Messages.json"));
const statuses = (campaignId: string) => {
  const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
  try {
    return Object.fromEntries(
      (db.query(`SELECT status, count(*) AS n FROM messages WHERE campaign_id = ? GROUP BY status`).all(campaignId) as { status: string; n: number }[]).map((r) => [r.status, r.n]),
    );
  } finally {
    db.close();
  }
};

test(
  "SIGTERM with provider calls in flight: no new claims, every call in flight ends sent, the process exits, a restart sends the rest",
  async () => {
    server = await startChildServer(env);
    const login = async () => (await childApi(server!.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } })).body.token as string;
    let token = await login();
    await childApi(server.url, "/api/user/settings", { method: "PATCH", token, body: { quietHoursEnabled: false } });
    const provider = await childApi(server.url, "/api/sms-providers", {
      token,
      body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
    });
    await childApi(server.url, "/api/phone-numbers", { token, body: { providerId: provider.body.id, phoneNumber: "+14155550100", messagesPerSecond: 4 } });
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `+1415${String(3000000 + i)}`);
    const campaign = (await childApi(server.url, "/api/campaigns", { token, body: { name: "Drain", content: "Sale today", recipients } })).body;
    expect((await childApi(server.url, `/api/campaigns/${campaign.id}/send`, { method: "POST", token })).status).toBe(202);

    // Calls on the wire, none answered yet.
    await waitFor(() => sends().length, (n) => n >= 6, 10_000, 5);
    expect(twilio.messages.length).toBe(0);
    const termAt = Date.now();
    await server.kill("SIGTERM");
    const stoppedIn = Date.now() - termAt;
    const output = server.output();

    expect(server.process.exitCode).toBe(0);
    // It waited for the slow calls (longer than the old 5 s bound), and not for the 20 s limit.
    expect(stoppedIn).toBeGreaterThan(SLOW_MS - 1000);
    expect(stoppedIn).toBeLessThan(20_000);
    const inFlight = sends().length;
    // Nothing claimed after the signal: every call reached the provider before it (a pass already under way aside).
    expect(sends().filter((r) => r.at > termAt + 100)).toEqual([]);
    expect(inFlight).toBeLessThan(RECIPIENTS);
    expect(twilio.messages.length).toBe(inFlight);
    expect(statuses(campaign.id)).toEqual({ sent: inFlight, queued: RECIPIENTS - inFlight });
    expect(output).toContain("smsdesk: SIGTERM received; finishing the messages in flight, then stopping");
    expect(output).toContain("smsdesk: stopped");

    server = await startChildServer(env);
    token = await login();
    const done = await waitFor(
      () => childApi(server!.url, `/api/campaigns/${campaign.id}`, { token }).then((r) => r.body),
      (c) => c.status === "completed",
      60_000,
      200,
    );
    expect(server.output()).not.toContain("marked unknown");
    expect(done.counts).toMatchObject({ recipients: RECIPIENTS, unknown: 0 });
    const received = new Map<string, number>();
    for (const m of twilio.messages) received.set(m.to, (received.get(m.to) ?? 0) + 1);
    expect([...received.values()]).toEqual(Array(RECIPIENTS).fill(1));
    await server.kill("SIGTERM");
    server = null;
  },
  120_000,
);
