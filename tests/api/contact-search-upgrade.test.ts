/**
 * Migration 0039 on a database the version before left: the contact search index is built again with accents
 * folded, so contacts stored before the upgrade are found with or without their accents, and the index keeps
 * following changes and deletes afterwards.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/passwords";
import { startTestServer, type TestServer } from "../support/test-server";
import { databaseBefore } from "../support/old-database";

const PASSWORD = "old-password-1";
let dataDir: string;
let t: TestServer;
let token: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "smsdesk-search-0039-"));
  const old = databaseBefore(dataDir, "0039_contact_search_without_accents");
  old.query("INSERT INTO users (id, email, password_hash, email_verified) VALUES ('u-1', 'old@example.com', ?, 1)").run(await hashPassword(PASSWORD));
  const contact = old.query("INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, created_at) VALUES (?, 'u-1', ?, ?, ?, ?, ?)");
  contact.run("c-1", "José", "Álvarez", "jose@example.com", "+13125550101", 1);
  contact.run("c-2", "Zoë", "Müller", null, "+13125550102", 2);
  contact.run("c-3", "Ann", "Lee", null, "+13125550103", 3);
  // Indexed by the version before's insert trigger: "alvarez" did not find Álvarez there.
  expect(old.query("SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH '\"alvarez\"'").all()).toEqual([]);
  old.close();
  t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
  token = (await t.login("old@example.com", PASSWORD)).token;
});
afterAll(async () => {
  await t?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const names = async (q: string) => {
  const res = await t.api(`/api/contacts?q=${encodeURIComponent(q)}&sort=name&order=asc`, { token });
  expect(res.status).toBe(200);
  return res.body.data.map((c: { firstName: string }) => c.firstName);
};

test("contacts stored before the upgrade are found with or without their accents, and by email and digits as before", async () => {
  expect(await names("jose")).toEqual(["José"]);
  expect(await names("alvarez")).toEqual(["José"]);
  expect(await names("muller")).toEqual(["Zoë"]);
  expect(await names("Zoë")).toEqual(["Zoë"]);
  expect(await names("ann lee")).toEqual(["Ann"]);
  expect(await names("jose@exa")).toEqual(["José"]);
  expect(await names("5550103")).toEqual(["Ann"]);
});

test("after the upgrade the rebuilt index follows changes and deletes", async () => {
  expect((await t.api("/api/contacts/c-2", { method: "PUT", token, body: { firstName: "Chloé", lastName: "Müller", phone: "+13125550102" } })).status).toBe(200);
  expect(await names("zoe")).toEqual([]);
  expect(await names("chloe")).toEqual(["Chloé"]);
  expect((await t.api("/api/contacts/c-1", { method: "DELETE", token })).status).toBe(200);
  expect(await names("jose")).toEqual([]);
  expect(await names("muller")).toEqual(["Chloé"]);
});
