/**
 * The shape of src/, read from its source: every table has one owning folder and is imported or named in SQL
 * nowhere else; imports run only down the layers; files that build routes do no database work; every route the
 * app registers has its `// METHOD /api/path` comment above the handler, so searching a URL lands on it; every
 * paged list takes the one paging schema; no file imports itself through others, no two folders import each other,
 * only records (the folders that own tables) speak SQL or import db/, and nothing below the routes imports a route.
 * The checks are functions of a file set (tests/support/architecture.ts), run at the end on planted sets too.
 *
 * A violation that another piece of work is removing is listed in ALLOWED with why; the test fails on a new
 * violation and on an entry whose violation is gone (remove the entry with the violation).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../db/schema";
import { createApp } from "../../src/app";
import { MAX_PAGE, pagingQuery } from "../../src/http/paging";
import {
  fileCircles,
  flowsImportingRoutes,
  importsOfAll,
  isRouteFile,
  onDisk,
  sqlOutsideRecords,
  syncInAsyncFolders,
  twoWayPairs,
  unitOf,
} from "../support/architecture";
import { startTestServer, type TestServer } from "../support/test-server";

const ROOT = resolve(import.meta.dir, "../..");
const SRC = join(ROOT, "src");
const SCHEMA = "db/schema.ts";

/** Each table's owning folder under src/: the only folder that imports it or names it in SQL. */
const OWNERS: Record<string, string> = {
  users: "users",
  sessions: "auth",
  emailVerifications: "auth",
  emailChanges: "auth",
  passwordResets: "auth",
  userSecurity: "auth",
  backupCodes: "auth",
  passkeys: "auth",
  authChallenges: "auth",
  // What the sign-in protections count, shared by every process (issue 31): the rate limits' windows (also the
  // public API's per key, through auth/rate-windows.ts), sign-in failures, sign-ups waiting for their code.
  rateWindows: "auth",
  signInFailures: "auth",
  pendingSignUps: "auth",
  supportMessages: "support",
  errorReports: "error-reports",
  contacts: "contacts",
  contactConsents: "contacts",
  contactImports: "contacts",
  contactNames: "contacts",
  contactTags: "contacts",
  contactPurchases: "contacts",
  contactNamesPending: "contacts",
  // Read by the triggers of contacts (migration 0052).
  nameFolds: "contacts",
  contactImportRejects: "contacts",
  segments: "segments",
  links: "links",
  shortLinks: "links",
  shortLinkKeys: "links",
  linkClicks: "links",
  smsProviders: "providers",
  phoneNumbers: "phone-numbers",
  numberRegistrations: "phone-numbers",
  numberPace: "phone-numbers",
  accountPace: "phone-numbers",
  campaigns: "campaigns",
  // Kept by triggers on messages (migration 0019); read by campaign lists.
  campaignMessageCounts: "campaigns",
  // The rest of an A/B campaign's audience, held for the winner (issue 32 item 3).
  campaignAbRest: "campaigns",
  // Kept by triggers on messages (migration 0020); read by the dashboards.
  messageRollups: "results",
  // Kept by triggers on message_rollups (migration 0038); whole days of the dashboards.
  messageDayRollups: "results",
  rollupDays: "results",
  // The outbox: one row per message, sent or received.
  messages: "messages",
  earlyReports: "messages",
  jobs: "jobs",
  plans: "licenses",
  licenseCodes: "licenses",
  licenses: "licenses",
  events: "events",
  eventCursors: "events",
  // Threads per contact phone; the sequence messages' seq is reserved from; POST /api/messages answers by key.
  conversations: "conversations",
  conversationSequence: "conversations",
  idempotencyKeys: "conversations",
  keywords: "keywords",
  keywordOptIns: "keywords",
  templates: "templates",
  builtinTemplateUses: "templates",
  automationRules: "automation",
  automationRuns: "automation",
  dripCampaigns: "drips",
  dripEnrolments: "drips",
  dripStepLog: "drips",
  apiKeys: "api-keys",
  // Installation-wide settings, set in the admin portal.
  systemSettings: "admin",
  // The administrator's lines of the state rule table (issue 34 item 2).
  stateRuleOverrides: "state-rules",
  webhookEndpoints: "outbound-webhooks",
  webhookDeliveries: "outbound-webhooks",
  // Pictures and files of MMS; a trigger on messages marks those of a deleted message (migration 0061).
  media: "media",
  messageMedia: "media",
};

/**
 * Records that own no table of db/schema.ts but the database file itself: its copy (VACUUM INTO), the checks of a
 * copy, opening and migrating one. They speak SQL and import db/ as the owners of tables do; backups compose them.
 */
const FILE_RECORDS = ["database-file"];

/**
 * The layers, lowest first. A module may import its own folder, anything in a lower layer, and its peers in the
 * same layer; never a higher one. The entries are folders of src/, or files at its top.
 */
const LAYERS: string[][] = [
  // Leaves: no domain, no database tables.
  ["http", "time", "threads", "secrets", "mail", "web", "cli", "personalisation", "context.ts", "config.ts", "version.ts", "production-mode.ts", "data-lock.ts", "process-identity.ts"],
  // The sending engine: declares the ports it needs and imports no domain (see SEALED below).
  ["sending"],
  // Who is signed in: the accounts, then sign-in, sessions and the auth guard (with the account routes and the
  // admin's credential actions, which use both). Every domain may use users' queries and the auth guard.
  ["users"],
  ["auth"],
  // SMS provider adapters and accounts: below the outbox that uses them.
  ["providers"],
  // Records, and the one door for a text of no campaign (outbound: sendText).
  ["contacts", "segments", "phone-numbers", "licenses", "messages", "conversations", "jobs", "events", "support", "error-reports", "health", "keywords", "templates", "api-keys", "backups", "media", "outbound", "state-rules", "links", "database-file"],
  // Flows: campaigns, drips, and an inbound text from the provider's webhook to its thread, replies and events.
  ["campaigns", "drips", "inbound"],
  // Automation rules: react to contacts, messages, keywords and drips, and act through them.
  ["automation"],
  // Views across domains (live: the WebSocket's frames read messages and campaigns).
  ["analytics", "results", "admin", "live", "public-api"],
  // Outbound webhooks read the admin's webhook allow-list.
  ["outbound-webhooks"],
  // Prometheus /metrics reads the outbox, jobs, webhook deliveries and sockets through their owners.
  ["metrics"],
  // Composition: app.ts builds the routes, listen.ts listens before the rest is loaded (the data folder's lock, the
  // database's connection, the health check), server.ts wires the workers, main.ts is the command line.
  ["app.ts", "listen.ts"],
  ["server.ts"],
  ["main.ts"],
];

/**
 * The repository's shared/ folder (beside src/, read here as "shared/..."): the types and stateless constants both
 * the server and the UI use. It is below every floor, so any file may import it; it imports nothing of src/, ui/ or
 * db/ (tests/api/ui-api-layer.test.ts).
 */
const BELOW_EVERY_FLOOR = "shared";

/**
 * Modules with no state, no database and no domain imports (checked below), used wherever their computation is
 * needed: the layers do not apply to importing them.
 */
const SHARED = new Set([
  "contacts/phones.ts",
  "keywords/matcher.ts",
  "messages/segments.ts",
  "sending/quiet-hours.ts",
  "sending/recipient-zone.ts",
  "sending/state-rules.ts",
  "time/zones.ts",
]);

/**
 * The engine is sealed: domains wake it through the app context, not by importing it, and only the composition
 * (app.ts, server.ts) imports its values. Type-only imports (the ports a domain implements) and SHARED modules
 * are allowed.
 */
const SEALED = "sending";

/**
 * Violations being removed by work in progress (issue 12). Each key is exactly what the test reports; remove the
 * entry when the violation goes (the test fails on a stale entry).
 */
const ALLOWED: Record<string, string> = {
  // Left after the engine work (issue 12 items 1-2): the outbox store's checks at sending and the audience read
  // still name other domains' tables; each wants a query of the owner.
  "messages/outbox-store.ts names table users in SQL (owner: users)": "engine: the store's checks at the moment of sending",
  "messages/outbox-store.ts names table phoneNumbers in SQL (owner: phone-numbers)": "engine: due lanes per sender number",
  "messages/reconcile.ts names table phoneNumbers in SQL (owner: phone-numbers)": "reconciliation: messages a crash cut off, found through the outbox index per sender number",

  // SQL and db/ outside records.
  "server.ts imports db/client.ts (not a record)": "the composition opens the database and hands it to the context",
  "listen.ts imports db/sqlite.ts (not a record)":
    "the composition opens the database's connection before the program is loaded, and its health check asks it (issue 29 item 6)",
  "main.ts imports db/postgres/copy.ts (not a record)":
    "the composition: `smsdesk migrate` copies the whole database, every table, below the records (as a backup does)",
  "main.ts imports db/postgres/start.ts (not a record)":
    "the composition: `smsdesk doctor` reads the PostgreSQL database's schema, key fingerprint and connections, below the records",
  "server.ts imports db/postgres/start.ts (not a record)":
    "the composition prepares the PostgreSQL database (migrations, the key's fingerprint) before it opens anything",
  "server.ts imports db/records.ts (not a record)": "the composition hands the records their database on SQLite (ctx.records, the data folder's)",
  "server.ts imports db/postgres/records-db.ts (not a record)": "the composition opens the records' database on PostgreSQL (DATABASE_URL) and hands it to the context",
  "server.ts imports db/transaction.ts (not a record)": "the composition hands the engine's transactions to the context (ctx.withTransaction)",

  // Of converted folders, what reaches the connection synchronously and is no record (issue 30 items 2-3).
  "messages/outbox-store.ts exports outboxStore, which uses the database, not async (not async)":
    "not a record: builds the engine's store (sending/ports.ts), an object whose every method is an async record (claims, checks and marks, outcomes in one transaction each), on SQLite with its statements prepared once per connection (the engine's hot path), on PostgreSQL on ctx.records; the builder itself runs no statement, and the check reads the methods' bodies as the builder's",
};

/**
 * Folders whose records an async engine can serve (issue 30 item 2), and flows (inbound) whose transaction is the
 * record-level one: every exported function given the context or the database answers a Promise, and transactions
 * are `ctx.withTransaction` (db/transaction.ts), never a synchronous bun:sqlite or drizzle one. The folders not
 * listed, still synchronous on bun:sqlite: none (each folder with records is listed).
 * In links, the clicks' flush and the campaign's and dashboard's click figures are async; a shortener is made by an
 * async record once per chunk, rewrites each message's text synchronously, and writes the chunk's short links with an
 * async record in the transaction that writes the messages; the redirect's look-up is an async record (findShortLink).
 * In campaigns, a flow, the SQL is in its records (records.ts, stats.ts); the start, pause, settle and A/B winner run
 * synchronously in their caller's transaction (ALLOWED: the jobs runner's pass, the engine's port), which a user's
 * action opens with ctx.withTransaction.
 * In automation, the runner's transactions (an event chunk, each event's savepoint, a run and its actions' savepoint)
 * are ctx.withTransaction; the actions await the contacts' records and sendText, and call the records still
 * synchronous (drips, jobs, short links) inside them (ALLOWED).
 * In contacts, the inbound flow's and the automation runner's readers and writers (look-ups, conditions, opt-outs,
 * opt-ins, tags, consent) and the plan checks' count (countContacts, through ctx.usageCounts) are async, each writer one ctx.withTransaction; an import's batches and names are ctx.withTransaction
 * whose callbacks await nothing; a page of the list (its total, its rowids: list-marks.ts listPage, search.ts
 * searchPage, and their rows) is read in one ctx.withTransaction (listContacts), which a delete waits for.
 * In database-file, the copy (VACUUM INTO) waits until no other caller's transaction is open and runs in the same
 * synchronous step as that check (db/transaction.ts statementGate); the start's backup before migrations runs before any.
 * In events, the log is appended to by an async record in the transaction of its change (appendEvents: a chunk's
 * events in one call); its readers' records are async, awaited in the readers' chunk transactions and by the live hub.
 */
const ASYNC_FOLDERS = new Set(["database-file", "auth", "links", "events", "jobs", "messages", "automation", "campaigns", "support", "backups", "drips", "error-reports", "api-keys", "state-rules", "segments", "inbound", "templates", "results", "outbound-webhooks", "licenses", "admin", "phone-numbers", "providers", "users", "conversations", "keywords", "media", "contacts"]);
/** Files converted in folders not yet whole (none now: each converted folder is whole). */
const ASYNC_FILES = new Set<string>([]);

/** Which rule an ALLOWED entry excuses, read from the wording the checks report. */
function ruleOf(key: string) {
  if (key.startsWith("circle: ")) return "circle";
  if (key.startsWith("two-way: ")) return "two-way";
  if (key.endsWith("(not async)")) return "async";
  if (key.endsWith("(not a record)")) return "records";
  if (key.includes(" imports route ")) return "route";
  if (key.includes(" table ")) return "table";
  return "layer";
}

/** Fails on a violation ALLOWED does not excuse, and on an ALLOWED entry of the rule whose violation is gone. */
function expectOnlyAllowed(rule: string, found: string[]) {
  expect(found.filter((v) => !(v in ALLOWED))).toEqual([]);
  expect(Object.keys(ALLOWED).filter((k) => ruleOf(k) === rule && !found.includes(k))).toEqual([]);
}

/** Composition and HTTP plumbing build routes and plugins: the folders allowed to import files that build routes. */
const ABOVE_ROUTES = new Set(["app.ts", "server.ts", "main.ts", "http"]);

// ---------------------------------------------------------------------------------------------------------------
// Reading the source

const files = [...new Glob("**/*.{ts,tsx}").scanSync(SRC)].filter((f) => !f.endsWith(".d.ts")).sort();
const sources = new Map(files.map((f) => [f, readFileSync(join(SRC, f), "utf8")]));
const imports = importsOfAll(sources, onDisk(SRC));

const tables = Object.entries(schema)
  .filter(([, value]) => is(value, SQLiteTable))
  .map(([name, value]) => ({ name, sqlName: getTableName(value as SQLiteTable) }));

const layerOf = (unit: string) => LAYERS.findIndex((layer) => layer.includes(unit));

function tableViolations(): string[] {
  const out: string[] = [];
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const imp of imports) {
    if (imp.to !== SCHEMA || imp.typeOnly) continue;
    const unit = unitOf(imp.from);
    const used = imp.namespace
      ? tables.map((t) => t.name)
      : imp.names.filter((n) => !n.typeOnly && byName.has(n.name)).map((n) => n.name);
    for (const name of used) {
      if (OWNERS[name] !== unit) out.push(`${imp.from} imports table ${name} (owner: ${OWNERS[name]})`);
    }
  }
  // Tables named in SQL text (prepared statements, sql`` with a table's name written out).
  const bySql = new Map(tables.map((t) => [t.sqlName, t.name]));
  const SQL_TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+["`]?([a-z_]+)\b/g;
  for (const [file, text] of sources) {
    const named = new Set<string>();
    for (const m of text.matchAll(SQL_TABLE)) {
      const name = bySql.get(m[1]!);
      if (name && OWNERS[name] !== unitOf(file)) named.add(name);
    }
    for (const name of named) out.push(`${file} names table ${name} in SQL (owner: ${OWNERS[name]})`);
  }
  return out;
}

function layerViolations(): string[] {
  const out: string[] = [];
  for (const imp of imports) {
    if (imp.to === SCHEMA || imp.to.startsWith("db/")) continue;
    const from = unitOf(imp.from);
    const to = unitOf(imp.to);
    if (from === to || SHARED.has(imp.to) || to === BELOW_EVERY_FLOOR) continue;
    if (to === SEALED && !imp.typeOnly && !["app.ts", "server.ts"].includes(from)) {
      out.push(`${imp.from} imports ${imp.to} (the engine is woken through the app context, not imported)`);
    } else if (layerOf(to) > layerOf(from)) {
      out.push(`${imp.from} imports ${imp.to} (${from} is below ${to})`);
    }
  }
  return [...new Set(out)];
}

describe("one owner per table", () => {
  test("every table of db/schema.ts has an owning folder", () => {
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.map((t) => t.name).filter((n) => !OWNERS[n])).toEqual([]);
    for (const owner of new Set(Object.values(OWNERS))) expect(LAYERS.flat()).toContain(owner);
  });

  test("a table is imported and named in SQL only in its owner's folder", () => {
    expectOnlyAllowed("table", tableViolations());
  });

  test("only records (the folders that own tables) speak SQL or import db/", () => {
    const records = new Set([...Object.values(OWNERS), ...FILE_RECORDS]);
    expectOnlyAllowed("records", sqlOutsideRecords(sources, imports, (file) => records.has(unitOf(file))));
  });

  test("converted folders' records are async and their transactions ctx.withTransaction", () => {
    expect(ASYNC_FOLDERS.size).toBeGreaterThan(0);
    for (const folder of ASYNC_FOLDERS) expect(LAYERS.flat()).toContain(folder);
    expectOnlyAllowed("async", syncInAsyncFolders(sources, (file) => ASYNC_FOLDERS.has(unitOf(file)) || ASYNC_FILES.has(file), imports));
  });
});

describe("layers", () => {
  test("every folder of src/ has a layer", () => {
    expect([...new Set(files.map(unitOf))].filter((u) => layerOf(u) < 0)).toEqual([]);
    // An import of a src/shared/ would read as one of the repository's shared/, below every floor.
    expect(files.map(unitOf)).not.toContain(BELOW_EVERY_FLOOR);
  });

  test("the shared modules import no domain", () => {
    const leaves = new Set(LAYERS[0]);
    const bad = imports.filter(
      (i) =>
        SHARED.has(i.from) &&
        i.to !== SCHEMA &&
        unitOf(i.to) !== unitOf(i.from) &&
        !leaves.has(unitOf(i.to)) &&
        unitOf(i.to) !== BELOW_EVERY_FLOOR &&
        !SHARED.has(i.to),
    );
    expect(bad.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
    expect(imports.filter((i) => SHARED.has(i.from) && i.to === SCHEMA && !i.typeOnly).map((i) => i.from)).toEqual([]);
  });

  test("imports run only down the layers", () => {
    expectOnlyAllowed("layer", layerViolations());
  });

  test("no file imports itself through others", () => {
    expectOnlyAllowed("circle", fileCircles(imports));
  });

  test("no two folders import each other", () => {
    expectOnlyAllowed("two-way", twoWayPairs(imports, (file) => SHARED.has(file)));
  });

  test("nothing below the routes imports a file that builds routes", () => {
    const below = (file: string) => !isRouteFile(sources.get(file)!) && !ABOVE_ROUTES.has(unitOf(file));
    expectOnlyAllowed("route", flowsImportingRoutes(sources, imports, below));
  });
});

describe("the checks themselves, on planted file sets", () => {
  const planted = (files: Record<string, string>) => {
    const set = new Map(Object.entries(files));
    return { set, imports: importsOfAll(set) };
  };

  test("a circle of files is found, and a chain is not", () => {
    const circle = planted({
      "a/one.ts": `import { two } from "./two";\nexport const one = () => two();`,
      "a/two.ts": `import { three } from "../b/three";\nexport const two = () => three();`,
      "b/three.ts": `import { one } from "../a/one";\nexport const three = () => one();`,
      "b/four.ts": `import { three } from "./three";`,
    });
    expect(fileCircles(circle.imports)).toEqual(["circle: a/one.ts -> a/two.ts -> b/three.ts"]);
    const chain = planted({ "a/one.ts": `import { two } from "./two";`, "a/two.ts": `import { x } from "../b/three";`, "b/three.ts": "" });
    expect(fileCircles(chain.imports)).toEqual([]);
    // Type-only imports vanish at run time: no circle.
    const types = planted({ "a/one.ts": `import type { Two } from "./two";`, "a/two.ts": `import { one } from "./one";` });
    expect(fileCircles(types.imports)).toEqual([]);
  });

  test("two folders importing each other are found, shared helpers excepted", () => {
    const pair = planted({
      "inbound/receive.ts": `import { store } from "../messages/store";`,
      "messages/store.ts": `import { reply } from "../inbound/reply";\nexport const store = 1;`,
      "inbound/reply.ts": "export const reply = 1;",
    });
    expect(twoWayPairs(pair.imports)).toEqual(["two-way: inbound <-> messages"]);
    expect(fileCircles(pair.imports)).toEqual([]);
    expect(twoWayPairs(pair.imports, (file) => file === "inbound/reply.ts")).toEqual([]);
  });

  test("SQL in a flow and db/ imports outside records are found; a record may", () => {
    const files = planted({
      "inbound/receive.ts": "const row = ctx.db.$client.query(`SELECT id FROM contacts WHERE phone = ?`).get(phone);",
      "inbound/mark.ts": `ctx.db.$client.run("UPDATE messages SET status = 'read' WHERE id = ?", [id]);`,
      "inbound/words.ts": "// SELECT nothing FROM here: a comment is not SQL\nexport const text = 'Reply STOP to opt out from these texts';",
      "inbound/tables.ts": `import { contacts } from "../../db/schema";\nimport type { Contact } from "../../db/schema";`,
      "inbound/row.ts": `import type { Contact } from "../../db/schema";`,
      "contacts/records.ts": `import { contacts } from "../../db/schema";\nconst q = "DELETE FROM contacts WHERE id = ?";`,
    });
    const exists = (path: string) => files.set.has(path) || path === "../db/schema.ts";
    const found = sqlOutsideRecords(files.set, importsOfAll(files.set, exists), (file) => file.startsWith("contacts/"));
    expect(found).toEqual([
      "inbound/mark.ts speaks SQL (not a record)",
      "inbound/receive.ts speaks SQL (not a record)",
      "inbound/tables.ts imports db/schema.ts (not a record)",
    ]);
  });

  test("a synchronous transaction or record in a converted folder is found, an exported arrow and one reaching the database through a helper of its file too; async ones and other folders pass", () => {
    const files = planted({
      "support/store.ts": [
        "export function store(ctx: AppContext, m: M) {\n  ctx.db.$client.transaction(() => insert(m))();\n}",
        "export async function list(ctx: AppContext) {\n  await ready(ctx.db);\n}",
        "export function label(m: M): string {\n  return m.name;\n}",
        "// ctx.db.transaction( in a comment is not a call",
        "export async function save(ctx: AppContext) {\n  await ctx.withTransaction(async () => {});\n}",
      ].join("\n"),
      "support/count.ts": "export function countAll(db: Db): number {\n  return db.select().get();\n}",
      "support/routes.ts": "export function supportRoutes(ctx: AppContext) {\n  return new Elysia().post('/api/contact', async () => store(ctx));\n}",
      "jobs/jobs.ts": "export function claim(ctx: AppContext) {\n  ctx.db.transaction(() => {});\n}",
      // An exported arrow using the database; an async arrow and one that does not use it pass.
      "support/held.ts": [
        "export const heldIds = (ctx: AppContext, holder: string): string[] =>\n  ctx.db.select().from(held).all().map((r) => r.id);",
        "export const heldNow = async (ctx: AppContext, holder: string) => {\n  await ready(ctx.db);\n  return ctx.db.select().from(held).all();\n};",
        "export const holderOf = (ctx: AppContext, id: string) => `campaign:${id}`;",
      ].join("\n"),
      // Exported functions reaching the database through helpers of their file, one and two calls deep; an async
      // helper stops the chain (its caller gets a Promise), and so does an async export.
      "support/usage.ts": [
        "function rowOf(ctx: AppContext, id: string) {\n  return ctx.db.select().from(plans).where(eq(plans.id, id)).get();\n}",
        "const limitOf = (ctx: AppContext, id: string) => rowOf(ctx, id)?.limit ?? 0;",
        "export function usageOf(\n  ctx: AppContext,\n  id: string,\n): Usage {\n  return { limit: limitOf(ctx, id) };\n}",
        "export const planOf = (ctx: AppContext, id: string) => rowOf(ctx, id);",
        "export async function usageNow(ctx: AppContext, id: string) {\n  await ready(ctx.db);\n  return usageOf(ctx, id);\n}",
        "async function loadRow(ctx: AppContext, id: string) {\n  await ready(ctx.db);\n  return ctx.db.select().from(plans).get();\n}",
        "export function later(ctx: AppContext, id: string) {\n  return loadRow(ctx, id);\n}",
        "export function nameOf(ctx: AppContext, plan: Plan) {\n  return plan.name;\n}",
      ].join("\n"),
    });
    expect(syncInAsyncFolders(files.set, (file) => file.startsWith("support/"))).toEqual([
      "support/count.ts exports countAll, which uses the database, not async (not async)",
      "support/held.ts exports heldIds, which uses the database, not async (not async)",
      "support/store.ts begins a synchronous transaction (not async)",
      "support/store.ts exports store, which uses the database, not async (not async)",
      "support/usage.ts exports planOf, which uses the database, not async (not async)",
      "support/usage.ts exports usageOf, which uses the database, not async (not async)",
    ]);
  });

  test("a synchronous function reaching another file's synchronous record is found, through imports many files deep, an alias and a re-export; an async record or function stops the chain, a method call is not followed", () => {
    const files = planted({
      "contacts/records.ts": [
        "export function findContact(ctx: AppContext, id: string) {\n  return ctx.db.select().from(contacts).where(eq(contacts.id, id)).get();\n}",
        "export async function countAll(ctx: AppContext) {\n  await ready(ctx.db);\n  return ctx.db.select().from(contacts).all().length;\n}",
      ].join("\n"),
      "contacts/index.ts": `export { findContact as contactById } from "./records";`,
      // One file away, then two (through an aliased import), then through the re-export.
      "campaigns/view.ts": `import { findContact } from "../contacts/records";\nexport function viewOf(ctx: AppContext, id: string) {\n  return { contact: findContact(ctx, id) };\n}`,
      "campaigns/list.ts": `import { viewOf as view } from "./view";\nexport const listOf = (ctx: AppContext, ids: string[]) => ids.map((id) => view(ctx, id));`,
      "campaigns/alias.ts": `import { contactById } from "../contacts/index";\nexport function named(ctx: AppContext, id: string) {\n  return contactById(ctx, id)?.name;\n}`,
      // The async record answers a Promise; the async function awaits its turn; a port's method is not a record.
      "campaigns/total.ts": `import { countAll } from "../contacts/records";\nexport function total(ctx: AppContext) {\n  return countAll(ctx);\n}`,
      "campaigns/awaits.ts": `import { findContact } from "../contacts/records";\nexport async function named(ctx: AppContext, id: string) {\n  await ready(ctx.db);\n  return findContact(ctx, id);\n}`,
      "campaigns/port.ts": `export function viaPort(ctx: AppContext, id: string) {\n  return ctx.contactsPort.findContact(id);\n}`,
      // Outside the converted folders: followed, not reported.
      "live/frames.ts": `import { listOf } from "../campaigns/list";\nexport function frames(ctx: AppContext) {\n  return listOf(ctx, []);\n}`,
    });
    const converted = (file: string) => file.startsWith("contacts/") || file.startsWith("campaigns/");
    expect(syncInAsyncFolders(files.set, converted, files.imports)).toEqual([
      "campaigns/alias.ts exports named, which uses the database, not async (not async)",
      "campaigns/list.ts exports listOf, which uses the database, not async (not async)",
      "campaigns/view.ts exports viewOf, which uses the database, not async (not async)",
      "contacts/records.ts exports findContact, which uses the database, not async (not async)",
    ]);
    // The same files, the check reading one file at a time (as before issue 30 item 3's cross-file chains): only the record.
    expect(syncInAsyncFolders(files.set, converted, [])).toEqual(["contacts/records.ts exports findContact, which uses the database, not async (not async)"]);
  });

  test("a flow importing a route is found", () => {
    const files = planted({
      "inbound/receive.ts": `import { webhookRoutes } from "./webhook-routes";`,
      "inbound/webhook-routes.ts": `import { receive } from "./receive";\nexport const webhookRoutes = new Elysia({ prefix: "/api" });`,
    });
    const flow = (file: string) => !isRouteFile(files.set.get(file)!);
    expect(flowsImportingRoutes(files.set, files.imports, flow)).toEqual(["inbound/receive.ts imports route inbound/webhook-routes.ts"]);
  });

  test("every ALLOWED entry gives its reason", () => {
    expect(Object.entries(ALLOWED).filter(([, reason]) => reason.trim().length < 10)).toEqual([]);
  });
});

describe("route files", () => {
  test("do no database work: handlers validate and call a service", () => {
    const tableNames = new Set(tables.map((t) => t.name));
    const routeFiles = [...sources].filter(([, text]) => text.includes("new Elysia(")).map(([file]) => file);
    expect(routeFiles.length).toBeGreaterThan(15);
    const working = routeFiles.filter(
      (file) =>
        /\bctx\.(db|records)\.|\$client/.test(sources.get(file)!) ||
        imports.some((i) => i.from === file && i.to === SCHEMA && (i.namespace || i.names.some((n) => tableNames.has(n.name)))),
    );
    expect(working).toEqual([]);
  });
});

describe("routes", () => {
  let t: TestServer;
  let routes: { method: string; path: string; query?: Record<string, any> }[] = [];
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    routes = createApp(t.ctx).routes.map((r: any) => ({
      method: r.method,
      // A group's "/" registers "/api/contacts/", which also answers at "/api/contacts".
      path: r.path.length > 1 ? r.path.replace(/\/$/, "") : r.path,
      query: r.hooks?.query?.properties,
    }));
  });
  afterAll(() => t?.stop());

  /** `// GET /api/contacts/:id` lines anywhere in src/, as "GET /api/contacts/:id" (and Prometheus's /metrics). */
  const routeComments = () => {
    const comments = new Map<string, string[]>();
    for (const [file, text] of sources) {
      for (const m of text.matchAll(/^[ \t]*\/\/ (GET|POST|PUT|PATCH|DELETE) (\/api\/\S*|\/metrics)[ \t]*$/gm)) {
        const key = `${m[1]} ${m[2]}`;
        comments.set(key, [...(comments.get(key) ?? []), file]);
      }
    }
    return comments;
  };

  test("every route has its `// METHOD /api/full/path` comment", () => {
    expect(routes.length).toBeGreaterThan(100);
    const comments = routeComments();
    expect(routes.map((r) => `${r.method} ${r.path}`).filter((r) => !comments.has(r))).toEqual([]);
  });

  test("every route comment names a route the app registers", () => {
    const registered = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect([...routeComments().keys()].filter((c) => !registered.has(c))).toEqual([]);
  });

  test("every paged list takes the one paging schema (src/http/paging.ts)", () => {
    const paged = routes.filter((r) => r.query?.page || r.query?.pageSize);
    expect(paged.length).toBeGreaterThan(10);
    for (const r of paged) {
      const expected = pagingQuery(r.query!.pageSize?.maximum);
      // Compared as JSON: the schemas carry functions (Elysia's number decoding) that differ by identity only.
      expect({
        route: `${r.method} ${r.path}`,
        page: JSON.stringify(r.query!.page),
        pageSize: JSON.stringify(r.query!.pageSize),
      }).toEqual({
        route: `${r.method} ${r.path}`,
        page: JSON.stringify(expected.page),
        pageSize: JSON.stringify(expected.pageSize),
      });
      expect(r.query!.page.maximum).toBe(MAX_PAGE);
    }
  });
});
