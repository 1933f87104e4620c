/**
 * Migration 0076 on a database the version before left (issue 29 item 3): contact_tags names each contact by its rowid
 * instead of its id, every tag row carried over to its contact's rowid, and the triggers keep it so afterwards (an
 * insert, a change of tags, a delete); a tag's segment lists exactly its contacts, newest first.
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
  dataDir = mkdtempSync(join(tmpdir(), "smsdesk-tags-0076-"));
  const old = databaseBefore(dataDir, "0076_contact_tags_rowid");
  old.query("INSERT INTO users (id, email, password_hash, email_verified) VALUES ('u-1', 'old@example.com', ?, 1)").run(await hashPassword(PASSWORD));
  const contact = old.query("INSERT INTO contacts (id, user_id, first_name, last_name, phone, tags, created_at) VALUES (?, 'u-1', ?, '', ?, ?, ?)");
  // Rowids 1-6; ids in another order than the rowids.
  contact.run("c-f", "Ann", "+13125550101", '["vip","new"]', 1);
  contact.run("c-e", "Bo", "+13125550102", "[]", 2);
  contact.run("c-d", "Cy", "+13125550103", '["vip"]', 3);
  contact.run("c-c", "Di", "+13125550104", '["new",7]', 4);
  contact.run("c-b", "Ed", "+13125550105", '["vip"]', 5);
  contact.run("c-a", "Flo", "+13125550106", '["other"]', 6);
  expect(old.query("SELECT count(*) AS n FROM contact_tags").get()).toEqual({ n: 6 });
  old.close();
  t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
  token = (await t.login("old@example.com", PASSWORD)).token;
});
afterAll(async () => {
  await t?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const rows = () => t.ctx.db.$client.query("SELECT user_id AS u, tag, contact_rowid AS r FROM contact_tags ORDER BY tag, contact_rowid").all();

test("the tag rows name their contacts' rowids, and the triggers keep them", async () => {
  expect(rows()).toEqual([
    { u: "u-1", tag: "new", r: 1 },
    { u: "u-1", tag: "new", r: 4 },
    { u: "u-1", tag: "other", r: 6 },
    { u: "u-1", tag: "vip", r: 1 },
    { u: "u-1", tag: "vip", r: 3 },
    { u: "u-1", tag: "vip", r: 5 },
  ]);
  const segment = await t.api("/api/segments", { method: "POST", token, body: { name: "vip", conditions: { tags: { eq: "vip" } } } });
  expect(segment.status).toBe(201);
  const page = async () => (await t.api(`/api/segments/${segment.body.id}/contacts?page=1&pageSize=50`, { token })).body;
  expect(await page()).toMatchObject({ total: 3, data: [{ firstName: "Ed" }, { firstName: "Cy" }, { firstName: "Ann" }] });

  const db = t.ctx.db.$client;
  db.run("UPDATE contacts SET tags = '[\"vip\"]' WHERE id = 'c-e'");
  db.run("UPDATE contacts SET tags = '[\"new\"]' WHERE id = 'c-d'");
  db.run("DELETE FROM contacts WHERE id = 'c-f'");
  db.run("INSERT INTO contacts (id, user_id, first_name, last_name, phone, tags, created_at) VALUES ('c-g', 'u-1', 'Gus', '', '+13125550107', '[\"vip\"]', 7)");
  expect(rows()).toEqual([
    { u: "u-1", tag: "new", r: 3 },
    { u: "u-1", tag: "new", r: 4 },
    { u: "u-1", tag: "other", r: 6 },
    { u: "u-1", tag: "vip", r: 2 },
    { u: "u-1", tag: "vip", r: 5 },
    { u: "u-1", tag: "vip", r: 7 },
  ]);
  expect(await page()).toMatchObject({ total: 3, data: [{ firstName: "Gus" }, { firstName: "Ed" }, { firstName: "Bo" }] });
});
