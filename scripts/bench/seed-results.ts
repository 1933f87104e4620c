// Results seed (issue 17): one account's sending history at scale, for the results benchmarks
// (scripts/bench/results.ts, scripts/bench/dashboards.ts) to import:
//   import { seedResults } from "./seed-results";
//   const seeded = seedResults(server.ctx.db.$client, { userId, now: server.ctx.now() });
// Run alone it seeds a fresh database file and prints the time taken:
//   bun scripts/bench/seed-results.ts [messages=1000000] [campaigns=200]
// Direct SQL, in 50,000-row transactions, through the real schema: the campaign counts (migration 0019) and any
// other trigger on messages are kept by the database as for real sends. Deterministic for a given `seed`.
import { Database } from "bun:sqlite";

const DAY = 86_400_000;

export type SeedOptions = {
  /** The account; it must exist. */
  userId: string;
  /** The instant the history ends at (ms); campaigns are spread over the `days` before it. */
  now: number;
  messages?: number;
  campaigns?: number;
  days?: number;
  /** Sender numbers, made under one simulator provider account. */
  senders?: number;
  /** Inbound replies, on top of `messages`, from phones the campaigns reached. */
  replies?: number;
  seed?: number;
  /**
   * Each campaign's messages spread evenly until the next one starts, so every quarter hour of the period has
   * messages (the dashboards' worst case: as many rollup buckets as the account's zone allows), instead of each
   * campaign sending in a burst at about 50 a second.
   */
  spread?: boolean;
};

export type SeededResults = {
  providerId: string;
  senderIds: string[];
  campaignIds: string[];
  /** Outbound campaign messages by status. */
  byStatus: Record<string, number>;
  replies: number;
  ms: number;
};

/** Outcomes as a healthy account sees them: most delivered, some still only sent, a few failed or left unknown. */
const OUTCOMES: [status: string, weight: number][] = [
  ["delivered", 86],
  ["sent", 6],
  ["failed", 5],
  ["unknown", 1],
  ["expired", 1],
  ["skipped", 1],
];

const NAMES = ["Weekend Sale", "New Arrivals", "Flash Offer", "Appointment Reminder", "Loyalty Points", "Holiday Hours", "Customer Survey", "Welcome Back"];
const TEXTS = [
  "Hi {firstName}, 20% off everything this weekend only!",
  "New arrivals are in store: come and see them before they go.",
  "Flash sale: 2 hours only, show this text at the till.",
  "Reminder: your appointment is tomorrow. Reply C to confirm.",
  "You have points waiting: redeem them before the month ends.",
];

/** A small deterministic generator (mulberry32), so two runs seed the same history. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Recipient i's phone: US numbers over a spread of area codes, distinct for distinct i. */
const phoneOf = (i: number) => `+1${[212, 305, 312, 415, 512, 617, 702, 713, 808, 917][i % 10]}${String(2_000_000 + Math.floor(i / 10)).padStart(7, "0")}`;

export function seedResults(db: Database, opts: SeedOptions): SeededResults {
  const started = performance.now();
  const total = opts.messages ?? 1_000_000;
  const campaignCount = opts.campaigns ?? 200;
  const days = opts.days ?? 90;
  const senderCount = opts.senders ?? 3;
  const replies = opts.replies ?? Math.round(total / 100);
  const rnd = random(opts.seed ?? 17);
  const { userId, now } = opts;

  const providerId = Bun.randomUUIDv7();
  const senderIds = Array.from({ length: senderCount }, () => Bun.randomUUIDv7());
  const senderPhones = senderIds.map((_, i) => `+1415555${String(1000 + i).padStart(4, "0")}`);
  db.transaction(() => {
    db.prepare(
      `INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, is_default, is_active, created_at)
       VALUES (?, ?, 'simulator', 'Bench simulator', '', 1, 1, ?)`,
    ).run(providerId, userId, now - (days + 1) * DAY);
    senderIds.forEach((id, i) =>
      db
        .prepare(
          `INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, display_name, messages_per_second, is_default, is_active, created_at)
           VALUES (?, ?, ?, ?, ?, 10, ?, 1, ?)`,
        )
        .run(id, userId, providerId, senderPhones[i]!, `Line ${i + 1}`, i === 0 ? 1 : 0, now - (days + 1) * DAY),
    );
  })();

  // Campaign sizes vary (a few large, many small) and add up to `total` exactly.
  const weights = Array.from({ length: campaignCount }, () => 0.2 + rnd() ** 3 * 4);
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.floor((w / sum) * total));
  sizes[0]! += total - sizes.reduce((a, b) => a + b, 0);
  // Start times spread over the period, oldest first, so ids (time-ordered) go in in order.
  const starts = opts.spread
    ? Array.from({ length: campaignCount }, (_, c) => now - days * DAY + Math.floor((c * days * DAY) / campaignCount))
    : Array.from({ length: campaignCount }, () => now - Math.floor(rnd() * days * DAY) - 3_600_000).sort((a, b) => a - b);

  const insertCampaign = db.prepare(
    `INSERT INTO campaigns (id, user_id, name, type, status, content, from_number, recipients, audience, created_at, updated_at, sent_at, completed_at)
     VALUES (?, ?, ?, 'sms', 'completed', ?, ?, '[]', '{"kind":"all"}', ?, ?, ?, ?)`,
  );
  const insertMessage = db.prepare(
    `INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, provider_id, phone_number_id, from_number,
       provider_message_id, segments, attempts, next_attempt_at, error_code, error_message, created_at, sent_at, delivered_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'outbound', ?, 'campaign', ?, ?, ?, ?, 1, ?, 0, ?, ?, ?, ?, ?, ?)`,
  );
  const insertReply = db.prepare(
    `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, provider_id, phone_number_id, from_number, segments, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'inbound', 'received', 'single', ?, ?, ?, 1, ?, ?)`,
  );
  const cumulative = OUTCOMES.reduce<number[]>((acc, [, w]) => [...acc, (acc.at(-1) ?? 0) + w], []);
  const weightTotal = cumulative.at(-1)!;
  const byStatus: Record<string, number> = {};
  const campaignIds: string[] = [];
  const reached: { phone: string; at: number; sender: number }[] = [];
  const CHUNK = 50_000;
  // Random phones spread index writes over the whole of five indexes: a larger page cache keeps them in memory,
  // and each insert's statement journal (the triggers' upserts need one) stays in memory instead of a temp file.
  const cacheWas = (db.query("PRAGMA cache_size").get() as { cache_size: number }).cache_size;
  const tempWas = (db.query("PRAGMA temp_store").get() as { temp_store: number }).temp_store;
  db.exec("PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY");
  let pending = 0;
  db.exec("BEGIN");
  for (let c = 0; c < campaignCount; c++) {
    const start = starts[c]!;
    const sender = c % senderCount;
    const id = Bun.randomUUIDv7("hex", start - 60_000);
    campaignIds.push(id);
    const content = TEXTS[c % TEXTS.length]!;
    // A campaign sends at about 50 messages a second: its last message goes out size/50 seconds after the start.
    const span = opts.spread ? (starts[c + 1] ?? now - 60_000) - start : Math.max(1, Math.floor(sizes[c]! / 50)) * 1000;
    insertCampaign.run(id, userId, `${NAMES[c % NAMES.length]} #${c + 1}`, content, senderPhones[sender]!, start - 60_000, start + span, start, start + span);
    for (let i = 0; i < sizes[c]!; i++) {
      const pick = rnd() * weightTotal;
      const status = OUTCOMES[cumulative.findIndex((w) => pick < w)]![0];
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      const at = start + Math.floor((i / sizes[c]!) * span);
      const wentOut = status === "delivered" || status === "sent" || status === "unknown" || (status === "failed" && i % 3 !== 0);
      const failed = status === "failed";
      const phone = phoneOf((c * 7919 + i) % (total * 2));
      insertMessage.run(
        Bun.randomUUIDv7("hex", at),
        userId,
        id,
        phone,
        content,
        status,
        providerId,
        senderIds[sender]!,
        senderPhones[sender]!,
        wentOut ? `sim-${c}-${i}` : null,
        status === "skipped" || status === "expired" ? 0 : 1,
        failed ? (wentOut ? "30003" : "21211") : null,
        failed ? (wentOut ? "Unreachable destination handset" : "Invalid 'To' phone number") : null,
        at,
        wentOut ? at + 200 : null,
        status === "delivered" ? at + 2_000 + Math.floor(rnd() * 8_000) : null,
        at + 2_000,
      );
      if (status === "delivered" && reached.length < replies * 4 && rnd() < 0.05) reached.push({ phone, at, sender });
      if (++pending >= CHUNK) {
        db.exec("COMMIT");
        db.exec("BEGIN");
        pending = 0;
      }
    }
  }
  let replied = 0;
  for (let r = 0; r < replies && reached.length; r++) {
    const to = reached[Math.floor(rnd() * reached.length)]!;
    const at = Math.min(now - 1000, to.at + 60_000 + Math.floor(rnd() * 6 * 3_600_000));
    const text = r % 25 === 0 ? "STOP" : ["Thanks!", "Yes please", "What time do you open?", "C"][r % 4]!;
    insertReply.run(Bun.randomUUIDv7("hex", at), userId, to.phone, text, providerId, senderIds[to.sender]!, senderPhones[to.sender]!, at, at);
    replied++;
  }
  db.exec("COMMIT");
  db.exec(`PRAGMA cache_size = ${cacheWas}; PRAGMA temp_store = ${tempWas}`);
  return { providerId, senderIds, campaignIds, byStatus, replies: replied, ms: performance.now() - started };
}

if (import.meta.main) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { migrationJournal, migrationSql } = await import("../../db/migrations/embedded");
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-seed-results-"));
  const db = new Database(join(dir, "seed.db"));
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
  for (const e of migrationJournal.entries) for (const s of migrationSql[e.tag]!.split("--> statement-breakpoint")) db.exec(s);
  db.exec(`INSERT INTO users (id, email, password_hash) VALUES ('bench', 'bench@example.com', 'x')`);
  const r = seedResults(db, { userId: "bench", now: Date.now(), messages: Number(process.argv[2] ?? 1_000_000), campaigns: Number(process.argv[3] ?? 200) });
  const counted = db.query(`SELECT status, sum(n) AS n FROM campaign_message_counts GROUP BY status ORDER BY status`).all();
  console.log(`seeded ${r.campaignIds.length} campaigns, ${Object.values(r.byStatus).reduce((a, b) => a + b, 0).toLocaleString("en-US")} messages and ${r.replies} replies in ${(r.ms / 1000).toFixed(1)} s`);
  console.log("by status:", JSON.stringify(r.byStatus), "counts table:", JSON.stringify(counted));
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
