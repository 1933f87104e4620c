// The child of clocked-server.ts: the appliance on a clock moved from stdin (see there).
import { loadConfig } from "../../src/config";
import { runDueJobs } from "../../src/jobs/jobs";
import { startServer } from "../../src/server";
import { receiversStandFor } from "./webhook-network";

let offset = Number(process.env.SMSDESK_TEST_CLOCK_OFFSET ?? 0);
const server = await startServer(loadConfig(process.env, []), console.log, (ctx) => {
  // Before the job runner's first pass: a delivery due at start is judged with the seam.
  // The test's webhook receivers on 127.0.0.1 stand in for public hosts (read here, by the test entry point only).
  if (process.env.SMSDESK_TEST_RECEIVERS_PUBLIC === "1") receiversStandFor(ctx, "public");
});
server.ctx.now = () => Date.now() + offset;
console.log(`smsdesk is running at ${server.url}`);
process.on("SIGTERM", async () => {
  await server.stop();
  process.exit(0);
});

let buffered = "";
process.stdin.on("data", async (chunk: Buffer) => {
  buffered += chunk.toString();
  let nl: number;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const [command, ms, n] = buffered.slice(0, nl).split(" ");
    buffered = buffered.slice(nl + 1);
    if (command !== "advance") continue;
    offset += Number(ms);
    // Two passes: the feed (a transactional job) queues deliveries that the second pass sends.
    await (await runDueJobs(server.ctx)).settled;
    await (await runDueJobs(server.ctx)).settled;
    console.log(`advanced ${offset} ${n}`);
  }
});
