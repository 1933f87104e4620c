// An A/B test's winner sent to the rest of the audience, cut off by SIGKILL (issue 32 item 3): the appliance runs in
// a child process on a clock the test moves (tests/support/clocked-server.ts); the rule picks the winner an hour
// after the start and the rest's messages go out through the outbox; the process is killed while they are on the
// wire and started again on the same data. Nobody gets two texts, the winner is picked once, and the test group is
// never sent the winner.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MANAGER_OPTIONS } from "../../src/sending/manager";
import { childApi } from "../support/child-server";
import { startClockedServer, type ClockedServer } from "../support/clocked-server";
import { startTwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

const RECIPIENTS = 1000;
const TEST = 100;
const dataDir = mkdtempSync(join(tmpdir(), "abtest-crash-"));
const twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }], delayMs: 3 });
let server: ClockedServer | null = null;

afterAll(async () => {
  await server?.kill("SIGKILL");
  await twilio.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { DATA_DIR: dataDir, TWILIO_API_BASE: twilio.url, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "ab-crash-pass-1" };
const signIn = async (s: ClockedServer) =>
  (await childApi(s.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } })).body.token as string;

test(
  "killed while the winner goes to the rest and restarted: each recipient got one text or is marked unknown, the winner picked once",
  async () => {
    server = await startClockedServer(env, 0);
    let token = await signIn(server);
    const call = (method: string, path: string, body?: unknown) => childApi(server!.url, path, { method, token, body });
    expect((await call("PATCH", "/api/user/settings", { quietHoursEnabled: false })).status).toBe(200);
    const provider = await call("POST", "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
    await call("POST", "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: "+14155550100", messagesPerSecond: 1000 });
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `+1415${String(5560000 + i)}`);
    const variants = ["Doors open at 9", "Doors open at 9, first 50 get a gift"];
    const campaign = await call("POST", "/api/campaigns", {
      name: "Crash A/B",
      recipients,
      appendOptOut: false,
      abTest: { variants, testPercent: 10, measure: "replies", decideAfterHours: 1 },
    });
    const id = campaign.body.id as string;
    // 1,000 recipients are more than an A/B test writes at once (AB_AT_ONCE): split and written in chunks after the answer.
    expect((await call("POST", `/api/campaigns/${id}/send`, {})).body.queued).toBe(0);
    // Every test message sent (a message still on the wire would hold the rule's decision back 15 minutes).
    await waitFor(() => call("GET", `/api/campaigns/${id}`), (r) => r.body.counts.sent === TEST, 30_000, 10);
    expect(twilio.messages.length).toBe(TEST);

    // An hour on: the rule picks (no replies: a tie, so A) and the rest go out; killed while they are on the wire.
    let offset = await server.advance(3600_000 + 1_000);
    await waitFor(() => twilio.messages.length, (n) => n >= TEST + 300, 30_000, 1);
    await server.kill("SIGKILL");
    expect(twilio.messages.length).toBeLessThan(RECIPIENTS);

    server = await startClockedServer(env, offset);
    token = await signIn(server);
    // Past the provider's request timeout, so a message in flight at the kill is reconciled.
    offset = await server.advance(5 * 60_000);
    const done = await waitFor(
      () => call("GET", `/api/campaigns/${id}`).then(({ body }) => body),
      (c) => c.status === "completed",
      60_000,
      100,
    );
    await server.kill("SIGTERM");
    server = null;

    const received = new Map<string, string[]>();
    for (const m of twilio.messages) received.set(m.to, [...(received.get(m.to) ?? []), m.body]);
    const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
    const rows = db.query("SELECT phone, status, ab_variant AS variant, content FROM messages WHERE campaign_id = ?").all(id) as {
      phone: string;
      status: string;
      variant: number | null;
      content: string;
    }[];
    const jobs = db.query("SELECT state FROM jobs WHERE key = ?").all(`campaign_ab_decide:${id}`);
    db.close();

    expect(rows.length).toBe(RECIPIENTS);
    expect(rows.filter((r) => r.variant !== null).length).toBe(TEST);
    // Nobody got two texts, and the test group got no winner.
    expect([...received].filter(([, bodies]) => bodies.length > 1)).toEqual([]);
    const unknown = rows.filter((r) => r.status === "unknown");
    for (const r of rows) {
      if (r.status === "sent") expect(received.get(r.phone)).toEqual([r.content]);
      else expect(r.status).toBe("unknown");
      if (r.variant === null) expect(r.content).toBe(variants[0]!);
    }
    expect(unknown.length).toBeLessThanOrEqual(DEFAULT_MANAGER_OPTIONS.maxInFlight);
    expect(jobs).toEqual([{ state: "done" }]);
    expect(done.abTest).toMatchObject({ winner: "A", decidedBy: "rule" });
    expect(done.counts).toMatchObject({ recipients: RECIPIENTS, pending: 0, sending: 0, unknown: unknown.length });
  },
  180_000,
);
