// Seeds five weeks of an account's history for tests/browser/dashboards.pw.ts, straight into the running
// appliance's database (WAL: the server keeps running), as the engine and the webhooks would have left it:
// campaign and one-off messages with their outcomes (those the provider accepted with the price per segment their
// account has now, as the outbox store records it), replies, new contacts and opt-outs. The messages triggers
// keep the dashboards' rollups as these rows go in. Deterministic, so the screenshots are comparable.
// bun tests/browser/dashboards-seed.ts <database file> <user id>
import { Database } from "bun:sqlite";

const [dbPath, user] = process.argv.slice(2);
if (!dbPath || !user) throw new Error("usage: dashboards-seed.ts <database> <user id>");
const userId: string = user;
const db = new Database(dbPath);
db.exec("PRAGMA busy_timeout = 5000");

const DAY = 86_400_000;
const now = Date.now();
let seed = 17;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
// A second sender number (the trial plan allows one to be added through the app): campaigns alternate between them.
const first = db.query(`SELECT provider_id AS providerId FROM phone_numbers WHERE user_id = ?`).get(userId) as { providerId: string } | null;
if (!first) throw new Error("the account has no sender number");
db.query(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, display_name) VALUES (?, ?, ?, '+14155550101', 'Promotions')`).run(
  `seed-number-${userId}`,
  userId,
  first.providerId,
);
const numbers = db.query(`SELECT id, provider_id AS providerId FROM phone_numbers WHERE user_id = ? ORDER BY created_at`).all(userId) as { id: string; providerId: string }[];
const price = (db.query(`SELECT segment_price_micros AS price FROM sms_providers WHERE id = ?`).get(first.providerId) as { price: number | null }).price ?? 0;

const insertCampaign = db.prepare(
  `INSERT INTO campaigns (id, user_id, name, status, content, audience, created_at, sent_at, completed_at) VALUES (?, ?, ?, 'completed', ?, '{"kind":"all"}', ?, ?, ?)`,
);
const insertMessage = db.prepare(
  `INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, provider_id, phone_number_id, segments, sent_at, delivered_at, created_at,
     error_code, segment_price_micros)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const insertContact = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, source, created_at) VALUES (?, ?, ?, ?, ?, 'import', ?)`);
const insertConsent = db.prepare(`INSERT INTO contact_consents (id, contact_id, user_id, kind, source, text, created_at) VALUES (?, ?, ?, 'opt_out', 'provider', 'STOP', ?)`);
const FIRST = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jo"];
const CAMPAIGNS = ["Spring Sale", "Weekend Brunch", "Loyalty Points", "New Menu", "Flash Sale", "Appointment Reminders", "Easter Opening Hours"];

let n = 0;
const phone = () => `+1312${String(5550000 + ++n).padStart(7, "0")}`;
const id = (prefix: string) => `${prefix}-${n}-${Math.floor(random() * 1e9)}`;

function outbound(at: number, campaignId: string | null, age: number) {
  const number = numbers[campaignId ? n % numbers.length : 0]!;
  const r = random();
  // Older messages have their reports; the last day's are partly still waiting for one.
  const status = r < 0.02 ? "failed" : r < 0.06 ? "failed" : age < 1 && r < 0.2 ? "sent" : r < 0.995 ? "delivered" : "unknown";
  const accepted = !(r < 0.02);
  const segments = random() < 0.2 ? 2 : 1;
  insertMessage.run(
    id("m"), userId, campaignId, phone(), "Weekend sale: 20% off everything. Reply STOP to opt out", "outbound", status,
    campaignId ? "campaign" : "single", number.providerId, number.id, segments,
    accepted ? at : null, status === "delivered" ? at + 4000 : null, at - 1000, status === "failed" ? (accepted ? "30003" : "21211") : null,
    accepted ? price : null,
  );
}

db.transaction(() => {
  for (let age = 34; age >= 0; age--) {
    const day = now - age * DAY;
    // A campaign every five days or so, and a trickle of one-off texts and replies every day.
    if (age % 5 === 2 || age === 0) {
      const campaignId = id("c");
      const at = day - 3 * 3_600_000;
      insertCampaign.run(campaignId, userId, CAMPAIGNS[(age / 5) % CAMPAIGNS.length | 0]!, "Weekend sale: 20% off everything", at - 60_000, at, at + 600_000);
      const size = 120 + Math.floor(random() * 180);
      for (let i = 0; i < size; i++) outbound(at + i * 1500, campaignId, age);
    }
    const singles = 3 + Math.floor(random() * 8);
    for (let i = 0; i < singles; i++) outbound(day - random() * 20 * 3_600_000, null, age);
    const replies = 2 + Math.floor(random() * 12);
    for (let i = 0; i < replies; i++) {
      insertMessage.run(id("r"), userId, null, phone(), "Thanks! See you Saturday", "inbound", "received", "single", numbers[0]!.providerId, numbers[0]!.id, 1, null, null, day - random() * 20 * 3_600_000, null, null);
    }
    const joined = Math.floor(random() * 9);
    for (let i = 0; i < joined; i++) {
      const contactId = id("k");
      const at = day - random() * 20 * 3_600_000;
      insertContact.run(contactId, userId, FIRST[n % FIRST.length]!, "Guest", phone(), at);
      if (random() < 0.15) insertConsent.run(id("o"), contactId, userId, Math.min(at + 3_600_000, now));
    }
  }
})();
console.log(`seeded ${n} rows`);
