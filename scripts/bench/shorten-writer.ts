// The outbox writer alone with link shortening on and off (issue 32): bun scripts/bench/shorten-writer.ts [rounds=6]
// writeOutbox for one campaign text with a link to 10,000 typed recipients in chunks of 500 (as the chunked writer
// sizes them), due in a year so the engine sends nothing, shortening off and on alternated `rounds` times. Reported:
// the medians of CPU and wall time a message of each, and every round's CPU time (on minus off is best read round by
// round: the messages table grows, and with it each round's cost). The figures are in scripts/bench/shorten.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
const root = process.argv[2]?.startsWith("/") ? process.argv[2] : "../..";
const ROUNDS = Number(process.argv[root === "../.." ? 2 : 3] ?? 6);
const N = 10_000, CHUNK = 500;
const { loadConfig } = await import(`${root}/src/config`);
const { startServer } = await import(`${root}/src/server`);
const { writeOutbox } = await import(`${root}/src/campaigns/outbox`);
const { getCampaign } = await import(`${root}/src/campaigns/campaigns`);
const { findUserById } = await import(`${root}/src/users/queries`);
const dataDir = mkdtempSync(join(tmpdir(), "links-wo-"));
const owner = { email: "wo@example.com", password: "bench-password-1" };
const server = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, ADMIN_EMAIL: owner.email, ADMIN_PASSWORD: owner.password }, []), () => {});
const ctx = server.ctx;
const origin = new URL(ctx.config.publicUrl).origin;
const reg = (await fetch(server.url + "/api/auth/login", { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify(owner) }).then((r) => r.json())) as { token: string; user: { id: string } };
const api = async (path: string, body?: unknown) =>
  (await fetch(server.url + path, { method: body === undefined ? "GET" : "POST", headers: { "content-type": "application/json", authorization: `Bearer ${reg.token}`, origin }, body: body === undefined ? undefined : JSON.stringify(body) })).json() as any;
const provider = await api("/api/sms-providers", { provider: "simulator", displayName: "Bench" });
const numbers = (await api(`/api/providers/${provider.id}/available-numbers`)).numbers;
const num = await api("/api/phone-numbers", { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 1 });
const u = reg.user;
const user = await findUserById(ctx, u.id);
const db = ctx.db.$client;
const recipients = Array.from({ length: N }, (_, i) => ({ phone: `+1415${String(2000000 + i).padStart(7, "0")}`, contactId: null, firstName: `Guest${i}`, lastName: "", email: null, customFields: {} }));
const sender = { numberId: num.id, providerId: provider.id, phoneNumber: numbers[0].phoneNumber };
const TEXT = "Hi [Name], weekend sale: 20% off everything at https://shop.example.com/weekend-sale?ref=sms";
const res = { off: [] as number[], on: [] as number[] }, wall = { off: [] as number[], on: [] as number[] };
for (let r = 1; r <= ROUNDS; r++) {
  for (const on of r % 2 ? [false, true] : [true, false]) {
    const id = crypto.randomUUID();
    db.run(`INSERT INTO campaigns (id, user_id, name, content, status, shorten_links, append_opt_out) VALUES (?, ?, 'wo', ?, 'sending', ?, 0)`, [id, u.id, TEXT, on ? 1 : 0]);
    const c = await getCampaign(ctx, u.id, id);
    Bun.gc(true);
    const c0 = process.cpuUsage(), t0 = performance.now();
    // Each chunk in a transaction of its own, as the chunked writer runs it (writeNextChunk).
    for (let i = 0; i < N; i += CHUNK) await ctx.withTransaction(async () => writeOutbox(ctx, user, c, recipients.slice(i, i + CHUNK), sender, Date.now(), Date.now() + 86_400_000 * 365));
    const used = process.cpuUsage(c0);
    res[on ? "on" : "off"].push((used.user + used.system) / N);
    wall[on ? "on" : "off"].push(((performance.now() - t0) * 1000) / N);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`writeOutbox CPU µs/msg off ${med(res.off).toFixed(1)} on ${med(res.on).toFixed(1)} (+${(med(res.on) - med(res.off)).toFixed(1)}); wall off ${med(wall.off).toFixed(1)} on ${med(wall.on).toFixed(1)} (+${(med(wall.on) - med(wall.off)).toFixed(1)}); load ${loadavg()[0]!.toFixed(1)}`);
const diff = (xs: { off: number[]; on: number[] }) => med(xs.on.map((x, i) => x - xs.off[i]!));
console.log(`on minus off, round by round (median): ${diff(res).toFixed(1)} µs of CPU, ${diff(wall).toFixed(1)} µs of wall time a message`);
console.log(`  off ${res.off.map((x) => x.toFixed(0)).join(" ")} | on ${res.on.map((x) => x.toFixed(0)).join(" ")}`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
