// Issue 27 item 4: backups do not carry their own key. What leaves the appliance (a download, a copy to S3) is
// encrypted for a passphrase the administrator holds and the appliance does not keep.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { backupsDir } from "../../src/backups/backups";
import { PASSPHRASE_NEEDED, WRONG_PASSPHRASE } from "../../src/backups/encryption";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let admin: Account;
const PASSWORD = "admin-password-1";
const PASSPHRASE = "Übermorgen fährt der Zug um 7";

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  const email = t.newEmail("admin");
  await createOrPromoteAdmin(t.ctx, email, PASSWORD);
  admin = await t.login(email, PASSWORD);
});
afterAll(() => t?.stop());

const backups = (path = "", opts: Record<string, unknown> = {}) => t.api(`/api/admin/backups${path}`, { token: admin.token, ...opts });
const confirm = async () => expect((await t.api("/api/auth/confirm", { token: admin.token, body: { password: PASSWORD } })).status).toBe(200);
const download = async (id: string) => {
  const res = await fetch(`${t.url}/api/admin/backups/${id}/download`, { headers: { authorization: `Bearer ${admin.token}` } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
};
const upload = (bytes: Uint8Array, passphrase?: string) =>
  fetch(`${t.url}/api/admin/backups/upload`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${admin.token}`,
      "content-type": "application/octet-stream",
      origin: t.ctx.config.publicUrl,
      ...(passphrase === undefined ? {} : { "x-backup-passphrase": encodeURIComponent(passphrase) }),
    },
    body: new Blob([bytes as Uint8Array<ArrayBuffer>]),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
const leftovers = () => readdirSync(backupsDir(t.ctx.config.dataDir)).filter((f) => f.startsWith("."));
const contactIds = () => (t.ctx.db.$client.query("SELECT id FROM contacts ORDER BY id").all() as { id: string }[]).map((r) => r.id);

describe("the backup passphrase", () => {
  test("is set up before any backup leaves; the appliance keeps no secret of it", async () => {
    await confirm();
    expect((await backups("/encryption")).body).toEqual({ set: false, setAt: null });
    const made = await backups("", { method: "POST" });
    expect(await download(made.body.id)).toMatchObject({ status: 409 });
    expect((await backups(`/${made.body.id}/download`, { method: "POST" })).body).toEqual({
      message: "Set a backup passphrase first (Encryption, on this page): a backup leaves the appliance only encrypted with it",
      code: "conflict",
    });
    expect((await backups("/encryption", { method: "PUT", body: { passphrase: "too short" } })).body).toEqual({
      message: "The passphrase must be 12 to 200 characters",
      code: "validation",
    });
    const set = await backups("/encryption", { method: "PUT", body: { passphrase: PASSPHRASE } });
    expect(set.body).toEqual({ set: true, setAt: expect.any(Number) });
    const kept = readFileSync(join(backupsDir(t.ctx.config.dataDir), "encryption.json"), "utf8");
    expect(kept).not.toContain(PASSPHRASE);
    expect(Object.keys(JSON.parse(kept)).sort()).toEqual(["kdf", "recipient", "setAt"]);
  }, 60_000);

  test("a downloaded archive holds neither secret.key nor the database readably; the wrong passphrase is refused, the right one restores", async () => {
    const before = await t.api("/api/contacts", { token: admin.token, body: { firstName: "Before", phone: "+14155550101" } });
    const made = await backups("", { method: "POST" });
    await t.api("/api/contacts", { token: admin.token, body: { firstName: "After", phone: "+14155550102" } });

    const got = await download(made.body.id);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-disposition")).toBe(`attachment; filename="${made.body.id}.tar.gz.enc"`);
    const text = Buffer.from(got.bytes);
    const key = readFileSync(join(t.ctx.config.dataDir, "secret.key"), "utf8").trim();
    expect(text.includes(key)).toBe(false);
    expect(text.includes(Buffer.from(key, "base64"))).toBe(false);
    expect(text.includes("SQLite format 3")).toBe(false);
    expect(text.subarray(0, 25).toString()).toBe("SMSDESK-ENCRYPTED-BACKUP\n");
    expect(() => gunzipSync(text)).toThrow();

    expect(await upload(got.bytes)).toEqual({ status: 400, body: { message: PASSPHRASE_NEEDED, code: "validation" } });
    expect(await upload(got.bytes, "not the passphrase at all")).toEqual({ status: 400, body: { message: WRONG_PASSPHRASE, code: "validation" } });
    expect(leftovers()).toEqual([]);
    const uploaded = await upload(got.bytes, PASSPHRASE);
    expect(uploaded).toMatchObject({ status: 201, body: { status: "good", reason: "uploaded", manifest: { files: made.body.manifest.files } } });

    await confirm();
    expect((await backups(`/${uploaded.body.id}/restore`, { method: "POST" })).status).toBe(200);
    expect(contactIds()).toEqual([before.body.id]);
    expect(leftovers()).toEqual([]);
  }, 60_000);

  test("a changed or cut archive is refused; after a change of passphrase older archives still need theirs", async () => {
    // Contacts with random names: an archive of several 64 KiB chunks.
    const insert = t.ctx.db.$client.prepare("INSERT INTO contacts (id, user_id, first_name, phone) VALUES (?, ?, ?, ?)");
    t.ctx.db.$client.transaction(() => {
      for (let i = 0; i < 8000; i++) insert.run(crypto.randomUUID(), admin.user.id, crypto.randomUUID(), `+1646${2_000_000 + i}`);
    })();
    const made = await backups("", { method: "POST" });
    const { bytes } = await download(made.body.id);
    const prefix = 25 + 4 + Buffer.from(bytes).readUInt32BE(25);
    expect(bytes.length).toBeGreaterThan(prefix + 2 * (64 * 1024 + 16));
    const changed = new Uint8Array(bytes);
    changed[changed.length - 100]! ^= 1;
    expect(await upload(changed, PASSPHRASE)).toEqual({
      status: 400,
      body: { message: "The encrypted backup was changed or damaged (a chunk fails its authentication)", code: "validation" },
    });
    // Cut after its first chunk: the last chunk is missing, not just short.
    expect(await upload(bytes.slice(0, prefix + 64 * 1024 + 16), PASSPHRASE)).toEqual({
      status: 400,
      body: { message: "The encrypted backup is cut short", code: "validation" },
    });

    await confirm();
    expect((await backups("/encryption", { method: "PUT", body: { passphrase: "a brand new passphrase" } })).body.set).toBe(true);
    expect(await upload(bytes, "a brand new passphrase")).toMatchObject({ status: 400, body: { message: WRONG_PASSPHRASE } });
    expect(await upload(bytes, PASSPHRASE)).toMatchObject({ status: 201 });
    expect(leftovers()).toEqual([]);
  }, 60_000);
});
