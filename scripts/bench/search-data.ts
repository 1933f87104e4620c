// The data folder of the search and start benchmark (scripts/bench/search.ts): one account with 1,000,000 contacts
// and 1,000,000 messages (seed-results.ts), written straight into the app's own schema (its migrations, then
// bulk inserts), as a large CSV import leaves it: the contacts in transactions of 50,000 with source 'import', then
// their search-index rows (one statement) and their rows in name order (keyed and sorted in JavaScript), as the
// importer's names step leaves them. About two minutes; kept under /tmp by the migrations it was made with, so a rerun
// reuses it.
//   bun scripts/bench/search-data.ts [contacts=1000000] [messages=1000000]   (makes it, prints the folder)
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migrationJournal } from "../../db/migrations/embedded";
import { createSession } from "../../src/auth/sessions";
import { compareKeys, nameKey, searchBodySql } from "../../src/contacts/name-key";
import { loadConfig } from "../../src/config";
import { grantLicense } from "../../src/licenses/licenses";
import { openAppContext } from "../../src/server";
import { insertUser } from "../../src/users/queries";
import { seedResults } from "./seed-results";

export const BENCH_EMAIL = "search-bench@example.com";
export const BENCH_PASSWORD = "bench-password-1";

// mulberry32: every folder made with the same counts holds the same contacts.
let seed = 29;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(a: readonly T[]) => a[Math.floor(rand() * a.length)]!;

// Few distinct first names, as a real list has: each is the first name of about 1 contact in 50 (José: 20,000).
// prettier-ignore
export const FIRST = ["James", "Mary", "José", "Jose", "María", "Zoë", "Ángel", "Angela", "Andrew", "Ana", "Anna", "John", "Joseph", "Joanna", "João",
  "Björn", "Chloé", "François", "Łukasz", "Siobhán", "Mehmet", "Aisha", "Wei", "Olga", "Renée", "Jürgen", "Priya", "Kenji", "Fatima", "Liam",
  "Noah", "Emma", "Olivia", "Sophia", "Lucas", "Mateo", "Camila", "Hiroshi", "Kwame", "Giulia", "Dmitri", "Seán", "Raúl", "Inés", "Ömer",
  "Carlos", "Linda", "Robert", "David", "Jennifer"];
// prettier-ignore
const SYLLABLES = ["mü", "ller", "ñú", "ñez", "gar", "cí", "a", "ro", "dri", "guez", "schmidt", "ber", "ko", "vá", "lo", "pez", "hu", "ang", "ta",
  "ka", "ha", "shi", "wal", "ton", "fer", "nán", "dez", "bren", "nan", "ri", "vers", "stein", "do", "min", "go", "sil", "va", "pe", "rei", "ra"];
const DOMAINS = ["gmail.com", "yahoo.com", "outlook.com", "hotmail.com", "icloud.com", "aol.com", "proton.me", "comcast.net", "gmx.de", "yahoo.com.mx"];
// prettier-ignore
const AREAS = [201, 202, 203, 205, 206, 212, 213, 214, 215, 216, 301, 302, 303, 304, 305, 310, 312, 313, 314, 315, 404, 405, 406, 407, 408, 410, 412,
  413, 414, 415, 501, 502, 503, 504, 505, 510, 512, 513, 515, 516, 601, 602, 603, 605, 606, 610, 612, 614, 615, 616, 701, 702, 703, 704, 706, 707,
  708, 712, 713, 714, 801, 802, 803, 804, 805, 806, 808, 810, 812, 813, 901, 903, 904, 906, 907, 908, 909, 910, 912, 913, 416, 647, 604, 514];

/** A different last name on every row: the row's index, scrambled, as four syllables (a permutation of 40^4). */
export function lastName(i: number): string {
  let k = (i * 1_000_003 + 7919) % 2_560_000;
  let s = "";
  for (let d = 0; d < 4; d++, k = Math.floor(k / 40)) s += SYLLABLES[k % 40];
  return s[0]!.toUpperCase() + s.slice(1);
}
const ascii = (s: string) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/[^A-Za-z0-9]/g, "").toLowerCase();

/** Row i's phone in E.164, distinct for distinct i: 90% North American, the rest UK, German, Mexican. */
export function phoneOf(i: number): string {
  const k = Math.floor(i / 10);
  const scrambled = (k * 7_919_993) % 7_999_999; // a permutation of 0..7,999,998 (7,919,993 is prime to it)
  switch (i % 10) {
    case 7:
      return `+447${700_000_000 + scrambled}`;
    case 8:
      return `+49151${10_000_000 + scrambled}`;
    case 9:
      return `+5255${10_000_000 + scrambled}`;
    default:
      return `+1${AREAS[(i % 10) * 8 + (k % 8)]}${2_000_000 + scrambled}`;
  }
}

export type BenchData = { dir: string; userId: string; contacts: number; messages: number };

/** The folder for these counts and the app's present migrations; made when missing. */
export async function benchData(contacts = 1_000_000, messageCount = 1_000_000, log = console.log): Promise<BenchData> {
  const schema = createHash("sha256").update(migrationJournal.entries.map((e) => e.tag).join()).digest("hex").slice(0, 10);
  // SEARCH_BENCH_DIR: a copy of a folder made before (a before and an after each on its own copy of the same data;
  // the executable migrates its copy as it starts).
  const dir = process.env.SEARCH_BENCH_DIR ?? `/tmp/smsdesk-bench-search-${contacts}-${messageCount}-${schema}`;
  const meta = join(dir, "bench.json");
  if (existsSync(meta)) return { dir, ...(await Bun.file(meta).json()) };
  const making = `${dir}.making`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { recursive: true, mode: 0o700 });
  log(`making ${dir} (${contacts.toLocaleString("en-US")} contacts, ${messageCount.toLocaleString("en-US")} messages)...`);
  const started = performance.now();
  const ctx = await openAppContext(loadConfig({ DATA_DIR: making }, []), () => {});
  const user = await insertUser(ctx, {
    email: BENCH_EMAIL,
    passwordHash: await Bun.password.hash(BENCH_PASSWORD),
    firstName: "Search",
    lastName: "Bench",
    emailVerified: true,
    timezone: "America/New_York",
  });
  await grantLicense(ctx, user.id, "enterprise", 365);
  const db = ctx.db.$client;
  db.exec("PRAGMA cache_size = -262144");
  const insert = db.prepare(
    `INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, tags, status, source, opt_in_date, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'import', ?, ?, ?)`,
  );
  // Two years of contacts, oldest first (rowid order is creation order, as imports leave it).
  const end = Date.now() - 86_400_000;
  const span = 730 * 86_400_000;
  seed = 29;
  for (let i = 0; i < contacts; i += 50_000) {
    db.transaction(() => {
      for (let j = i; j < Math.min(contacts, i + 50_000); j++) {
        const first = pick(FIRST);
        const last = lastName(j);
        const at = end - span + Math.floor((j / contacts) * span);
        const r = rand();
        // 1% VIP (a rare tag), 30% newsletter, 60% customer.
        const tags = JSON.stringify([...(r < 0.01 ? ["vip"] : []), ...(r < 0.3 ? ["newsletter"] : []), ...(r < 0.6 ? ["customer"] : [])]);
        const email = rand() < 0.9 ? `${ascii(first)}.${ascii(last)}${rand() < 0.3 ? Math.floor(rand() * 99) : ""}@${pick(DOMAINS)}` : null;
        insert.run(Bun.randomUUIDv7("hex", at), user.id, first, last, email, phoneOf(j), tags, rand() < 0.03 ? "opted_out" : "subscribed", at, at, at);
      }
    })();
  }
  db.exec(`INSERT INTO contacts_fts(rowid, body) SELECT rowid, ${searchBodySql("contacts")} FROM contacts`);
  // Names in key order, as the importer's names step writes them.
  const named = db
    .query<{ r: number; f: string; l: string }, []>("SELECT rowid AS r, first_name AS f, last_name AS l FROM contacts")
    .all()
    .map((c) => ({ r: c.r, key: nameKey(c.f, c.l) }))
    .sort((a, b) => compareKeys(a.key, b.key) || a.r - b.r);
  const name = db.prepare("INSERT INTO contact_names (user_id, name_key, contact_rowid) VALUES (?, ?, ?)");
  db.transaction(() => {
    for (const c of named) name.run(user.id, c.key, c.r);
  })();
  log(`  contacts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const seeded = seedResults(db, { userId: user.id, now: end, messages: messageCount });
  log(`  messages in ${(seeded.ms / 1000).toFixed(1)} s`);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  ctx.mailer.close();
  db.close();
  await Bun.write(join(making, "bench.json"), JSON.stringify({ userId: user.id, contacts, messages: messageCount }));
  renameSync(making, dir);
  log(`  ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { dir, userId: user.id, contacts, messages: messageCount };
}

/** A session of the bench's account in the folder (sessions last 30 days: a new one each run). */
export async function benchSession(data: BenchData): Promise<string> {
  const ctx = await openAppContext(loadConfig({ DATA_DIR: data.dir }, []), () => {});
  try {
    return (await createSession(ctx, data.userId)).token;
  } finally {
    ctx.mailer.close();
    ctx.db.$client.close();
  }
}

if (import.meta.main) {
  const data = await benchData(Number(process.argv[2] ?? 1_000_000), Number(process.argv[3] ?? 1_000_000));
  console.log(data.dir);
}
