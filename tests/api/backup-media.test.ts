// Issue 33: backups carry the pictures and files of MMS (DATA_DIR/media), listed in media.json after the manifest,
// each bounded by its listed size; a restore brings them back (their bytes and their signed URLs work), and the
// restore drill checks each one's hash.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractArchive, writeArchive } from "../../src/backups/archive";
import { backupsDir, createBackup, drillBackup, restoreBackup } from "../../src/backups/backups";
import { findMedia, mediaPath, signedMediaUrl } from "../../src/media/media";
import { plantBackup } from "../support/backup-archives";
import { photoJpeg } from "../support/media-fixtures";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

setDefaultTimeout(60_000);

let t: TestServer;
let acc: Account;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  acc = await t.signUpVerified();
});
afterAll(() => t?.stop());

async function upload(bytes: Uint8Array, filename: string) {
  const res = await fetch(`${t.url}/api/media?filename=${filename}`, { method: "POST", headers: { authorization: `Bearer ${acc.token}` }, body: bytes as Uint8Array<ArrayBuffer> });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; size: number };
}
const served = async (url: string, token?: string) => {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};

/** Every entry of an archive, read in two passes (media.json names the media entries). */
async function unpackAll(path: string): Promise<{ name: string; data: Uint8Array }[]> {
  const fixed = ["manifest.json", "smsdesk.db", "secret.key", "media.json"];
  const first = await extractArchive(path, { toFile: {}, toMemory: Object.fromEntries(fixed.map((n) => [n, 1 << 30])) });
  const names = [...fixed, ...Object.keys(JSON.parse(Buffer.from(first.get("media.json")!.data!).toString()))];
  const all = await extractArchive(path, { toFile: {}, toMemory: Object.fromEntries(names.map((n) => [n, 1 << 30])) });
  return names.map((name) => ({ name, data: all.get(name)!.data! }));
}

describe("pictures and files in backups", () => {
  test("a restore brings back a picture's bytes and its signed URL; one uploaded after the backup is gone with its row", async () => {
    const photo = photoJpeg(240, 180, 85, 31);
    const kept = await upload(photo, "kept.jpg");
    const made = await createBackup(t.ctx);
    expect(made.manifest!.media).toEqual({ count: 1, bytes: photo.length });
    expect(Object.keys(made.manifest!.files)).toEqual(["smsdesk.db", "secret.key", "media.json"]);

    const later = await upload(photoJpeg(100, 100, 80, 32), "later.jpg");
    const laterPath = mediaPath(t.ctx, (await findMedia(t.ctx, later.id))!);
    // The file is lost from the disk; the backup has it.
    const keptPath = mediaPath(t.ctx, (await findMedia(t.ctx, kept.id))!);
    rmSync(keptPath);
    await restoreBackup(t.ctx, made.id);

    expect(readFileSync(keptPath).equals(Buffer.from(photo))).toBe(true);
    expect(await served(`${t.url}/api/media/${kept.id}`, acc.token)).toEqual({ status: 200, bytes: Buffer.from(photo) });
    const signed = signedMediaUrl(t.ctx, kept.id).replace(t.ctx.config.publicUrl, t.url);
    expect(await served(signed)).toEqual({ status: 200, bytes: Buffer.from(photo) });
    expect(await findMedia(t.ctx, later.id)).toBeNull();
    expect(existsSync(laterPath)).toBe(false);
    // The drill of that backup checks the picture too.
    expect((await drillBackup(t.ctx.config.dataDir, made.id, 1, { wait: true })).drill).toEqual({ at: 1, ok: true, error: null });
  });

  test("the drill refuses a backup whose picture was changed, or whose media.json names a path outside media/", async () => {
    await upload(photoJpeg(120, 90, 80, 33), "drilled.jpg");
    const made = await createBackup(t.ctx);
    const dir = mkdtempSync(join(tmpdir(), "smsdesk-media-backup-"));
    try {
      const entries = await unpackAll(join(backupsDir(t.ctx.config.dataDir), `${made.id}.tar.gz`));
      const media = entries.filter((e) => e.name.startsWith("media/"));
      expect(media.length).toBe(made.manifest!.media!.count);
      const changed = entries.map((e) => (e === media[0] ? { name: e.name, data: Buffer.concat([Buffer.from(e.data), Buffer.from([0])]) } : e));
      writeArchive(join(dir, "changed.tar.gz"), changed, Date.now());
      // The listed size bounds the entry: one byte more is refused from its header, before it is written.
      const planted = await plantBackup(t.ctx.config.dataDir, "smsdesk-20350101-000000-uploaded-aaaaaa", { bytes: readFileSync(join(dir, "changed.tar.gz")), manifest: made.manifest! });
      const drilled = await drillBackup(t.ctx.config.dataDir, planted.id, 2, { wait: true });
      expect(drilled.drill).toEqual({
        at: 2,
        ok: false,
        error: `The archive's ${media[0]!.name} is ${(media[0]!.data.length + 1).toLocaleString("en-US")} bytes, more than the ${media[0]!.data.length.toLocaleString("en-US")} it may be here`,
      });
      // Same size, another byte: its hash differs from media.json's.
      const flipped = Buffer.from(media[0]!.data);
      flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 0xff;
      writeArchive(join(dir, "flipped.tar.gz"), entries.map((e) => (e === media[0] ? { name: e.name, data: flipped } : e)), Date.now());
      const planted2 = await plantBackup(t.ctx.config.dataDir, "smsdesk-20350101-000000-uploaded-bbbbbb", { bytes: readFileSync(join(dir, "flipped.tar.gz")), manifest: made.manifest! });
      expect((await drillBackup(t.ctx.config.dataDir, planted2.id, 3, { wait: true })).drill).toEqual({
        at: 3,
        ok: false,
        error: `${media[0]!.name} does not match media.json's SHA-256: the archive was changed or damaged`,
      });
      // A media.json naming a path that escapes the media folder.
      const escaping = entries.map((e) => (e.name === "media.json" ? { name: e.name, data: Buffer.from(JSON.stringify({ "media/../secret": [1, "0".repeat(64)] })) } : e));
      writeArchive(join(dir, "escaping.tar.gz"), escaping, Date.now());
      const planted3 = await plantBackup(t.ctx.config.dataDir, "smsdesk-20350101-000000-uploaded-cccccc", { bytes: readFileSync(join(dir, "escaping.tar.gz")), manifest: made.manifest! });
      // (Shorter than the media.json the manifest declares, so within its bound: it is read, and refused.)
      expect((await drillBackup(t.ctx.config.dataDir, planted3.id, 4, { wait: true })).drill).toEqual({
        at: 4,
        ok: false,
        error: "The archive's media.json names an entry it may not (media/../secret)",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
