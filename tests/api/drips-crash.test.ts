// A real server process killed with SIGKILL at random moments while 200 contacts run a four-step drip, then
// started again on the same data folder until every enrolment has completed. Each step becomes exactly one outbox
// row per contact (the row, the step's log and the next step's job commit with the job), in step order; at the
// provider fake nobody gets a step twice or out of order, and a step is missing only where its message was on the
// wire at a kill (the engine marks it unknown and never sends it again).
// The steps have no delay, so the drip runs at the job runner's pace (one batch per tick) and spans several kills.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childApi, startChildServer, type ChildServer } from "../support/child-server";
import { startTwilioFake } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

const CONTACTS = 200;
const STEPS = 4;
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-drip-crash-"));
const twilio = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }], delayMs: 2 });
let server: ChildServer | null = null;

afterAll(async () => {
  await server?.kill("SIGKILL");
  await twilio.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { DATA_DIR: dataDir, TWILIO_API_BASE: twilio.url, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "crash-test-pass" };

async function start() {
  server = await startChildServer(env);
  const login = await childApi(server.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } });
  return login.body.token as string;
}

const readDb = <T>(sql: string, ...args: string[]) => {
  const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
  try {
    return db.query(sql).all(...args) as T[];
  } finally {
    db.close();
  }
};

test(
  "killed at random moments during a four-step drip for 200 contacts: each step once per contact, in order",
  async () => {
    let token = await start();
    await childApi(server!.url, "/api/user/settings", { method: "PATCH", token, body: { quietHoursEnabled: false } });
    const provider = await childApi(server!.url, "/api/sms-providers", {
      token,
      body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
    });
    await childApi(server!.url, "/api/phone-numbers", { token, body: { providerId: provider.body.id, phoneNumber: "+14155550100", messagesPerSecond: 1000 } });
    const phones = Array.from({ length: CONTACTS }, (_, i) => `+1415${String(3000000 + i)}`);
    const ids: string[] = [];
    for (let i = 0; i < CONTACTS; i += 20) {
      const made = await Promise.all(phones.slice(i, i + 20).map((phone, j) => childApi(server!.url, "/api/contacts", { token, body: { firstName: `C${i + j}`, phone } })));
      for (const m of made) {
        expect(m.status).toBe(201);
        ids.push(m.body.id);
      }
    }
    const drip = await childApi(server!.url, "/api/drip-campaigns", {
      token,
      body: { name: "Crash", steps: Array.from({ length: STEPS }, (_, s) => ({ delay: 0, unit: "minutes", content: `Step ${s + 1} for {firstName}` })) },
    });
    expect(drip.status).toBe(201);
    const enrolled = await childApi(server!.url, `/api/drip-campaigns/${drip.body.id}/enrol`, { token, body: { contactIds: ids } });
    expect(enrolled.body).toEqual({ enrolled: CONTACTS, skipped: [] });

    const completed = () => readDb<{ n: number }>(`SELECT count(*) AS n FROM drip_enrolments WHERE state = 'completed'`)[0]!.n;
    let kills = 0;
    while (completed() < CONTACTS && kills < 4) {
      await Bun.sleep(1000 + Math.floor(Math.random() * 5000));
      await server!.kill("SIGKILL");
      kills++;
      token = await start();
    }
    await waitFor(completed, (n) => n === CONTACTS, 120_000, 250);
    // Let the engine hand the last rows to the provider.
    await waitFor(
      () => readDb<{ n: number }>(`SELECT count(*) AS n FROM messages WHERE status IN ('queued','sending')`)[0]!.n,
      (n) => n === 0,
      30_000,
      100,
    );
    await server!.kill("SIGTERM");
    server = null;
    expect(kills).toBeGreaterThan(0);

    const rows = readDb<{ phone: string; content: string; status: string }>(`SELECT phone, content, status FROM messages WHERE direction = 'outbound' ORDER BY seq`);
    const steps = new Map<string, string[]>();
    for (const r of rows) steps.set(r.phone, [...(steps.get(r.phone) ?? []), r.content.split(" for ")[0]!]);
    const expected = Array.from({ length: STEPS }, (_, s) => `Step ${s + 1}`);
    // One outbox row per contact and step, in step order: no step repeated or skipped through the kills.
    expect(steps.size).toBe(CONTACTS);
    expect([...steps.values()].filter((s) => JSON.stringify(s) !== JSON.stringify(expected))).toEqual([]);
    const log = readDb<{ outcome: string; n: number }>(`SELECT outcome, count(*) AS n FROM drip_step_log GROUP BY outcome`);
    expect(log).toEqual([{ outcome: "sent", n: CONTACTS * STEPS }]);

    // At the provider: nobody got a step twice or out of order; a step is missing only where its row is unknown.
    const received = new Map<string, string[]>();
    for (const m of twilio.messages) received.set(m.to, [...(received.get(m.to) ?? []), m.body.split(" for ")[0]!]);
    const unknown = new Set(rows.filter((r) => r.status === "unknown").map((r) => `${r.phone} ${r.content.split(" for ")[0]}`));
    for (const phone of phones) {
      const got = received.get(phone) ?? [];
      expect(got).toEqual(expected.filter((s) => !unknown.has(`${phone} ${s}`) || got.includes(s)));
    }
    expect(rows.filter((r) => r.status !== "sent" && r.status !== "unknown")).toEqual([]);
  },
  240_000,
);
