// Issue 31 item 2: two processes of one installation on one PostgreSQL database (two apps, each with its own data
// folder and the installation's secret key). The jobs runner runs on both and shares the due jobs.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { findJob } from "../../src/jobs/jobs";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";
import { startTestServer, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

let pg: ThrowawayDatabase;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  pg = await throwawayDatabase();
  a = await startTestServer({ smtp: false, env: { DATABASE_URL: pg.url } });
  // The second process: its own data folder, the installation's key (a process with another one refuses to start).
  b = await startTestServer({ smtp: false, env: { DATABASE_URL: pg.url, SECRET_KEY_FILE: join(a.dataDir, "secret.key") } });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await pg?.drop();
});

test("both processes run the jobs runner: the event log's pruning is queued once for the installation and run by one of them", async () => {
  const job = await waitFor(() => findJob(a.ctx, "events.prune"), (j) => !!j && j.result !== null, 10_000, 20);
  expect(job).toMatchObject({ kind: "events.prune", state: "pending", attempts: 0, result: { deleted: 0 } });
  const [counted] = await a.ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE kind = 'events.prune'`);
  expect(counted!.n).toBe(1);
  expect(a.logs.concat(b.logs).filter((l) => l.startsWith("jobs:"))).toEqual([]);
});

