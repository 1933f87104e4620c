/**
 * `smsdesk doctor` with DATABASE_URL (issue 31 item 4): the installation's PostgreSQL database as each process sees
 * it, read without changing it: reachable, its schema this version's (what is left to apply, or a newer version's),
 * this process's key the installation's, its connections against max_connections. The provider accounts are
 * PostgreSQL's, which this version does not serve from yet: not asked of the data folder's SQLite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresMigrations } from "../../db/postgres/migrate";
import { preparePostgres, readPostgresReport } from "../../db/postgres/start";
import { postgresFindings, runDoctor, type DoctorPorts } from "../../src/cli/doctor";
import { loadConfig } from "../../src/config";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";

let pg: ThrowawayDatabase;
let dataDir: string;
let serverVersion: string;
const OURS = "0123456789abcdef";
const TAGS = postgresMigrations().map((m) => m.tag);

beforeAll(async () => {
  pg = await throwawayDatabase();
  dataDir = mkdtempSync(join(tmpdir(), "smsdesk-doctor-pg-"));
  serverVersion = ((await pg.sql`SELECT current_setting('server_version') AS v`) as { v: string }[])[0]!.v;
});
afterAll(async () => {
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const where = () => `127.0.0.1:5432/${pg.name}`;
async function doctor(url = pg.url, instance: string | null = OURS) {
  const ports: DoctorPorts = {
    lastGoodBackup: () => null,
    providerKinds: () => Promise.reject(new Error("the data folder's SQLite is not asked on PostgreSQL")),
    postgres: () => readPostgresReport(url),
    instance: () => instance,
    now: Date.now,
  };
  const findings = await runDoctor(loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: "http://127.0.0.1:9", DATABASE_URL: url }, []), ports);
  const of = (check: string) => findings.filter((f) => f.check === check);
  return { database: of("PostgreSQL"), providers: of("providers"), backup: of("backup"), dataFolder: of("data folder") };
}

describe("smsdesk doctor on PostgreSQL", () => {
  test("an empty database: every migration to apply, no key stored yet; the providers and the data folder's backups not asked", async () => {
    const { database, providers, backup, dataFolder } = await doctor();
    expect(database.slice(0, 2)).toEqual([
      {
        level: "warn",
        check: "PostgreSQL",
        message: `${where()} (PostgreSQL ${serverVersion}) lacks ${TAGS.length} of this version's ${TAGS.length} migrations (${TAGS[0]} to ${TAGS.at(-1)})`,
        fix: "start one process of this version: it applies them under the migration lock while the others wait",
      },
      {
        level: "warn",
        check: "PostgreSQL",
        message: "no installation key is stored yet: the first process to start stores its key's fingerprint",
        fix: "give every process the same secret.key (SECRET_KEY_FILE) before the first start",
      },
    ]);
    expect(database[2]!.message).toMatch(/^\d+ of \d+ connections \(max_connections\) in use$/);
    expect(providers).toEqual([
      { level: "warn", check: "providers", message: "not checked: the provider accounts are in PostgreSQL, which this version does not serve from yet" },
    ]);
    expect(backup).toEqual([
      {
        level: "warn",
        check: "backup",
        message: "not checked: on PostgreSQL the data is backed up by the database (point-in-time recovery, a standby), which smsdesk neither makes nor checks",
        fix: 'make sure the database\'s backups run and test a restore with its tools (README "PostgreSQL mode": whose backups are whose)',
      },
    ]);
    // The data folder holds no database of the installation's: none is asked for.
    expect(dataFolder.map((f) => f.message).filter((m) => m.startsWith("no database yet"))).toEqual([]);
    // Nothing was changed: still no table.
    expect(((await pg.sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`) as { n: number }[])[0]!.n).toBe(0);
  });

  test("once a process prepared it: this version's schema and this key; another key fails with what to do", async () => {
    await preparePostgres(pg.url, { fingerprint: OURS, source: "test" }, Date.now(), () => {});
    expect((await doctor()).database.slice(0, 2)).toEqual([
      { level: "ok", check: "PostgreSQL", message: `${where()} (PostgreSQL ${serverVersion}) has this version's schema (${TAGS.at(-1)})` },
      { level: "ok", check: "PostgreSQL", message: `this process's key is the installation's (instance ${OURS})` },
    ]);
    expect((await doctor(pg.url, "fedcba9876543210")).database[1]).toEqual({
      level: "fail",
      check: "PostgreSQL",
      message: `this process's key (instance fedcba9876543210) is not the installation's (instance ${OURS}): it refuses to start`,
      fix: "copy the installation's secret.key into this process's DATA_DIR, or point SECRET_KEY_FILE at it",
    });
  });

  test("a database a newer version migrated fails; an unreachable one fails naming it without its password", async () => {
    await pg.sql`INSERT INTO smsdesk_migrations VALUES ('9999_from_the_future', 'x', 0)`;
    expect((await doctor()).database[0]).toEqual({
      level: "fail",
      check: "PostgreSQL",
      message: `${where()} was migrated by a newer smsdesk (9999_from_the_future): this version refuses to start on it`,
      fix: "run that version or a newer one on every process",
    });
    const closed = Bun.serve({ port: 0, fetch: () => new Response() });
    const port = closed.port!;
    closed.stop(true);
    const [down] = (await doctor(`postgres://smsdesk:s3cret@127.0.0.1:${port}/smsdesk`)).database;
    expect(down!.level).toBe("fail");
    expect(down!.message).toStartWith(`127.0.0.1:${port}/smsdesk cannot be reached (`);
    expect(down!.message).not.toContain("s3cret");
  });

  test("from 80% of max_connections in use, a warning with what to do", () => {
    const facts = { reachable: true as const, database: "db:5432/x", version: "15.8", migrations: TAGS, pending: [], unknown: [], keyFingerprint: OURS };
    expect(postgresFindings({ ...facts, connections: 79, maxConnections: 100 }, OURS)[2]).toEqual({ level: "ok", check: "PostgreSQL", message: "79 of 100 connections (max_connections) in use" });
    expect(postgresFindings({ ...facts, connections: 80, maxConnections: 100 }, OURS)[2]).toEqual({
      level: "warn",
      check: "PostgreSQL",
      message: "80 of 100 connections (max_connections) in use",
      fix: "raise max_connections, or put a pooler (PgBouncer, transaction mode) between the processes and the server",
    });
  });
});
