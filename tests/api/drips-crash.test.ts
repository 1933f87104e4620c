// A real server process killed with SIGKILL at random moments while 1,000 contacts run a four-step drip with a
// minute between steps (ten opt out and ten reply meanwhile), then started again on the same data folder until
// every enrolment has ended. Each step becomes exactly one outbox row per contact (the row, the step's log and the
// next step's job commit with the job), in step order and never before its minute; at the provider fake every
// contact gets each step exactly once, in order (a message on the wire at a kill is reconciled with the fake after
// the restart: recorded when the fake accepted it, sent again once when it did not), and those who texted get
// nothing queued after their text.
// The appliance runs on its test clock (SMSDESK_TEST_CLOCK), RATE times faster than the wall clock, and so do the
// fake's message dates, so the three minutes of delays take seconds; the job runner, the drips and the engine are
// the product's own.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childApi, publicOrigin, startChildServer, type ChildServer } from "../support/child-server";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams } from "../support/fakes/twilio";
import { waitFor } from "../support/wait";

const CONTACTS = 1000;
const STEPS = 4;
const MINUTE = 60_000;
const RATE = 8;
const epoch = Date.now();
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-drip-crash-"));
const twilio = await startTwilioFake({
  numbers: [{ phoneNumber: "+14155550100" }],
  delayMs: 2,
  now: () => Math.floor(epoch + (Date.now() - epoch) * RATE),
});
let server: ChildServer | null = null;

afterAll(async () => {
  await server?.kill("SIGKILL");
  await twilio.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = {
  DATA_DIR: dataDir,
  TWILIO_API_BASE: twilio.url,
  ADMIN_EMAIL: "owner@example.com",
  ADMIN_PASSWORD: "crash-test-pass",
  SMSDESK_TEST_CLOCK: `${epoch}x${RATE}`,
};

let userId = "";
async function start() {
  server = await startChildServer(env);
  const login = await childApi(server.url, "/api/auth/login", { body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } });
  userId = login.body.user.id;
  return login.body.token as string;
}

/** A signed Twilio inbound webhook from a contact to the sender number. */
async function inbound(from: string, body: string) {
  const path = `/api/webhooks/twilio/sms/${userId}`;
  const params = twilioInboundParams({ accountSid: twilio.accountSid, from, to: "+14155550100", body });
  const signed = signedTwilioWebhook(twilio.authToken, publicOrigin(server!.url) + path, params);
  const r = await fetch(server!.url + path, { method: "POST", body: signed.body, headers: signed.headers });
  expect(r.status).toBe(200);
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
  "killed at random moments during a four-step drip with minute delays for 1,000 contacts: each step once per contact, in order",
  async () => {
    let token = await start();
    await childApi(server!.url, "/api/user/settings", { method: "PATCH", token, body: { quietHoursEnabled: false } });
    const provider = await childApi(server!.url, "/api/sms-providers", {
      token,
      body: { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken },
    });
    await childApi(server!.url, "/api/phone-numbers", { token, body: { providerId: provider.body.id, phoneNumber: "+14155550100", messagesPerSecond: 1000 } });
    const phones = Array.from({ length: CONTACTS }, (_, i) => `+1415${String(3000000 + i)}`);
    const imported = await childApi(server!.url, "/api/contacts/import", { token, body: { contacts: phones.map((phone, i) => ({ phone, firstName: `C${i}` })) } });
    expect(imported.body.results).toMatchObject({ created: CONTACTS, invalid: 0 });
    const ids = readDb<{ id: string }>(`SELECT id FROM contacts WHERE phone LIKE '+14153%' ORDER BY phone`).map((r) => r.id);
    const drip = await childApi(server!.url, "/api/drip-campaigns", {
      token,
      body: { name: "Crash", steps: Array.from({ length: STEPS }, (_, s) => ({ delay: s ? 1 : 0, unit: "minutes", content: `Step ${s + 1} for {firstName}` })) },
    });
    expect(drip.status).toBe(201);
    const enrolled = await childApi(server!.url, `/api/drip-campaigns/${drip.body.id}/enrol`, { token, body: { contactIds: ids } });
    expect(enrolled.body).toEqual({ enrolled: CONTACTS, skipped: [] });
    // Ten contacts opt out and ten reply while the drip runs (before its second step, a minute out): nothing is
    // queued for them after their text.
    const stopped = phones.slice(0, 10);
    const replied = phones.slice(10, 20);
    for (const p of stopped) await inbound(p, "STOP");
    for (const p of replied) await inbound(p, "Thanks!");

    const active = () => readDb<{ n: number }>(`SELECT count(*) AS n FROM drip_enrolments WHERE state = 'active'`)[0]!.n;
    let kills = 0;
    while (active() > 0 && kills < 8) {
      await Bun.sleep(500 + Math.floor(Math.random() * 2500));
      await server!.kill("SIGKILL");
      kills++;
      token = await start();
    }
    await waitFor(active, (n) => n === 0, 60_000, 250);
    // Let the engine hand the last rows to the provider, and the provider answer for those cut off by a kill.
    await waitFor(
      () =>
        readDb<{ n: number }>(`SELECT count(*) AS n FROM messages WHERE status IN ('queued','sending') OR (status = 'unknown' AND error_code = 'reconciling')`)[0]!.n,
      (n) => n === 0,
      30_000,
      100,
    );
    await server!.kill("SIGTERM");
    server = null;
    // The drip spans at least three minutes on the appliance's clock (22 s): a kill comes within every 3 s of running.
    expect(kills).toBeGreaterThanOrEqual(2);

    const rows = readDb<{ phone: string; content: string; status: string; created_at: number }>(
      `SELECT phone, content, status, created_at FROM messages WHERE direction = 'outbound' AND kind <> 'compliance' ORDER BY seq`,
    );
    const inboundAt = new Map(readDb<{ phone: string; at: number }>(`SELECT phone, min(created_at) AS at FROM messages WHERE direction = 'inbound' GROUP BY phone`).map((r) => [r.phone, r.at]));
    expect(inboundAt.size).toBe(20);
    const exits = readDb<{ phone: string; state: string; reason: string }>(
      `SELECT c.phone, e.state, e.exit_reason AS reason FROM drip_enrolments e JOIN contacts c ON c.id = e.contact_id`,
    );
    const exitOf = new Map(exits.map((e) => [e.phone, `${e.state} ${e.reason}`]));
    for (const p of stopped) expect(exitOf.get(p)).toBe("exited Opted out");
    for (const p of replied) expect(exitOf.get(p)).toBe("exited Replied");
    // No step was queued for them after their text arrived.
    expect(rows.filter((r) => inboundAt.has(r.phone) && r.created_at > inboundAt.get(r.phone)!)).toEqual([]);
    const steps = new Map<string, string[]>();
    for (const r of rows) steps.set(r.phone, [...(steps.get(r.phone) ?? []), r.content.split(" for ")[0]!]);
    const expected = Array.from({ length: STEPS }, (_, s) => `Step ${s + 1}`);
    // One outbox row per contact and step, in step order: no step repeated or skipped through the kills (those
    // who texted have a prefix of the steps: at most the first, which was due at once).
    const runners = phones.slice(20);
    expect(runners.filter((p) => JSON.stringify(steps.get(p)) !== JSON.stringify(expected))).toEqual([]);
    for (const p of phones.slice(0, 20)) expect(expected.slice(0, steps.get(p)?.length ?? 0)).toEqual(steps.get(p) ?? []);
    const log = readDb<{ outcome: string; n: number }>(`SELECT outcome, count(*) AS n FROM drip_step_log GROUP BY outcome`);
    expect(log).toEqual([{ outcome: "sent", n: rows.length }]);
    // Each step ran no earlier than its minute after the enrolment (on the appliance's clock).
    const early = readDb<{ n: number }>(
      `SELECT count(*) AS n FROM drip_step_log l JOIN drip_enrolments e ON e.id = l.enrolment_id WHERE l.at < e.enrolled_at + l.step * ${MINUTE}`,
    )[0]!.n;
    expect(early).toBe(0);

    // At the provider: every contact got each step exactly once, in order, through the kills; only a step of those
    // who opted out may be missing, skipped by the engine's check at the moment of sending.
    const received = new Map<string, string[]>();
    for (const m of twilio.messages.filter((x) => x.body.startsWith("Step "))) received.set(m.to, [...(received.get(m.to) ?? []), m.body.split(" for ")[0]!]);
    const bad = runners.filter((p) => JSON.stringify(received.get(p)) !== JSON.stringify(expected));
    expect(bad).toEqual([]);
    const skipped = new Set(rows.filter((r) => r.status === "skipped").map((r) => `${r.phone} ${r.content.split(" for ")[0]}`));
    for (const phone of phones.slice(0, 20)) {
      expect(received.get(phone) ?? []).toEqual((steps.get(phone) ?? []).filter((s) => !skipped.has(`${phone} ${s}`)));
    }
    expect(rows.filter((r) => r.status !== "sent" && !(r.status === "skipped" && stopped.includes(r.phone)))).toEqual([]);
  },
  120_000,
);
