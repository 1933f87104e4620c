// Migration 0031: one price per SMS segment, the provider account's. A price a user had saved in their settings
// for /advanced-sms becomes the price of each of their provider accounts without one of its own; the setting goes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/passwords";
import { startTestServer, type TestServer } from "../support/test-server";
import { databaseBefore } from "../support/old-database";

const PASSWORD = "old-password-1";
let dataDir: string;
let t: TestServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "smsdesk-segment-price-"));
  // The database as the version before migration 0031 left it, with prices in the settings and on accounts.
  const old = databaseBefore(dataDir, "0031_one_segment_price");
  const hash = await hashPassword(PASSWORD);
  const user = old.query("INSERT INTO users (id, email, password_hash, email_verified, segment_price_micros) VALUES (?, ?, ?, 1, ?)");
  user.run("u-priced", "priced@example.com", hash, 7900);
  user.run("u-unpriced", "unpriced@example.com", hash, null);
  user.run("u-no-accounts", "alone@example.com", hash, 12000);
  const account = old.query(
    "INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, segment_price_micros, created_at) VALUES (?, ?, ?, ?, 'x', ?, ?)",
  );
  account.run("p-twilio", "u-priced", "twilio", "Main Twilio", null, 1);
  account.run("p-telnyx", "u-priced", "telnyx", "Telnyx with its own price", 5000, 2);
  account.run("p-sim", "u-priced", "simulator", "Simulator", null, 3);
  account.run("p-other", "u-unpriced", "twilio", "Other's Twilio", null, 1);
  old.close();
  t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
});

afterAll(async () => {
  await t?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const pricesOf = async (email: string) => {
  const { token } = await t.login(email, PASSWORD);
  const res = await t.api("/api/sms-providers/segment-prices", { token });
  expect(res.status).toBe(200);
  return res.body.data.map((p: { providerId: string; priceMicros: number; customPriceMicros: number | null }) => [p.providerId, p.priceMicros, p.customPriceMicros]);
};

describe("migration 0031: the settings' price per segment moves to the provider accounts", () => {
  test("each account without its own price takes the user's; one with its own keeps it", async () => {
    expect(await pricesOf("priced@example.com")).toEqual([
      ["p-twilio", 7900, 7900],
      ["p-telnyx", 5000, 5000],
      ["p-sim", 7900, 7900],
    ]);
  });

  test("a user who had saved no price keeps the defaults (Twilio's $0.0083)", async () => {
    expect(await pricesOf("unpriced@example.com")).toEqual([["p-other", 8300, null]]);
  });

  test("the setting is gone: not a column, not in the settings", async () => {
    const columns = t.ctx.db.$client.query("SELECT name FROM pragma_table_info('users')").all() as { name: string }[];
    expect(columns.map((c) => c.name)).not.toContain("segment_price_micros");
    const { token } = await t.login("alone@example.com", PASSWORD);
    const settings = await t.api("/api/user/settings", { token });
    expect(settings.status).toBe(200);
    expect(settings.body).not.toHaveProperty("segmentPriceMicros");
  });
});
