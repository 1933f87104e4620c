/**
 * The cluster's compose file (deploy/compose.yaml, issue 31 item 4): PostgreSQL, three appliances and Caddy. Read
 * as Docker Compose reads it (anchors merged): the appliances are alike but for their host name and data folder,
 * name only settings the executable knows, reach the compose file's PostgreSQL, share one key, trust Caddy's fixed
 * address alone; Caddy sends to every appliance and checks each one's health.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseIp } from "../../src/http/client-ip";

const DEPLOY = join(import.meta.dir, "../../deploy");
const compose = Bun.YAML.parse(readFileSync(join(DEPLOY, "compose.yaml"), "utf8")) as any;
const caddyfile = readFileSync(join(DEPLOY, "Caddyfile"), "utf8");
const config = readFileSync(join(import.meta.dir, "../../src/config.ts"), "utf8");
const APPLIANCES = ["smsdesk-1", "smsdesk-2", "smsdesk-3"];

describe("deploy/compose.yaml", () => {
  test("PostgreSQL 15, three appliances and Caddy", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["caddy", "postgres", ...APPLIANCES]);
    expect(compose.services.postgres.image).toBe("postgres:15");
    expect(compose.services.caddy.image).toBe("caddy:2");
  });

  test("the appliances differ only in their host name and their own data folder", () => {
    const [first, ...rest] = APPLIANCES.map((name) => compose.services[name]);
    const alike = ({ hostname: _h, volumes: _v, ...same }: any) => same;
    for (const other of rest) expect(alike(other)).toEqual(alike(first));
    expect(APPLIANCES.map((name) => compose.services[name].hostname)).toEqual(APPLIANCES);
    expect(APPLIANCES.map((name) => compose.services[name].volumes)).toEqual(APPLIANCES.map((name) => [`${name}-data:/data`]));
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(APPLIANCES.map((name) => `${name}-data`)));
  });

  test("each appliance reaches the compose file's PostgreSQL once it is healthy, with one key for all, settings the executable knows", () => {
    const app = compose.services["smsdesk-1"];
    expect(app.image).toBe("smsdesk");
    expect(app.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    const env = app.environment as Record<string, string>;
    for (const name of Object.keys(env)) expect(config).toContain(`values.${name}`);
    const db = compose.services.postgres.environment;
    expect(env.DATABASE_URL).toBe(`postgres://${db.POSTGRES_USER}:${db.POSTGRES_PASSWORD}@postgres:5432/${db.POSTGRES_DB}`);
    expect(env.SECRET_KEY_FILE).toBe(`/run/secrets/${app.secrets[0]}`);
    expect(compose.secrets[app.secrets[0]]).toEqual({ file: "./secret.key" });
    expect(env.PUBLIC_URL).toStartWith("https://");
  });

  test("only Caddy's fixed address, inside the network, is a trusted proxy", () => {
    const env = compose.services["smsdesk-1"].environment;
    const caddyAddress = compose.services.caddy.networks.smsdesk.ipv4_address;
    expect(env.TRUSTED_PROXIES).toBe(caddyAddress);
    expect(parseIp(caddyAddress)).not.toBeNull();
    const [subnet] = compose.networks.smsdesk.ipam.config.map((c: { subnet: string }) => c.subnet);
    expect(caddyAddress.split(".").slice(0, 3)).toEqual(subnet.split("/")[0].split(".").slice(0, 3));
    expect(subnet).toEndWith("/24");
  });

  test("Caddy serves SMSDESK_HOST and sends to every appliance's port, checking its /api/health", () => {
    expect(caddyfile).toContain("{$SMSDESK_HOST} {");
    const upstreams = /reverse_proxy ([^{]+)\{/.exec(caddyfile)![1]!.trim().split(/\s+/);
    expect(upstreams).toEqual(APPLIANCES.map((name) => `${name}:8080`));
    expect(readFileSync(join(import.meta.dir, "../../Dockerfile"), "utf8")).toContain("PORT=8080");
    expect(caddyfile).toMatch(/^\s*health_uri \/api\/health$/m);
    expect(compose.services.caddy.volumes).toContain("./Caddyfile:/etc/caddy/Caddyfile:ro");
  });
});
