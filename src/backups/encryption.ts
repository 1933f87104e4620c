import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  scrypt,
  type KeyObject,
} from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ArchiveError } from "./archive";
import { writeDurably } from "./backups";

/**
 * Archives that leave the appliance (downloads, copies to S3) are encrypted for a passphrase the administrator
 * holds. An archive holds secret.key, which opens every stored secret (2FA, provider credentials, the S3 key):
 * in clear, one downloaded file opened them all.
 *
 * The passphrase is stretched with scrypt into an X25519 private key; the appliance keeps only its public key (and
 * the salt), so it can encrypt a scheduled copy at 3 a.m. with nobody there, yet nothing on it (secret.key
 * included) decrypts one: losing the passphrase loses those archives. Each archive gets an ephemeral X25519 key;
 * the ECDH secret through HKDF-SHA256 is its AES-256-GCM key. The archive is sealed in 64 KiB chunks, each
 * authenticated with the header's hash, its index and whether it is the last, so chunks cannot be cut, dropped,
 * reordered or moved between archives. Local archives stay plain: they sit beside secret.key in the data folder.
 *
 * File: "SMSDESK-ENCRYPTED-BACKUP\n", the header's length (4 bytes, big-endian), the header (JSON), the chunks.
 */

const MAGIC = Buffer.from("SMSDESK-ENCRYPTED-BACKUP\n");
const CHUNK = 64 * 1024;
const TAG = 16;
const MAX_HEADER = 4096;
/** About 0.5 s and 128 MB on a server, per passphrase check: costly to guess offline. */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1 };
const SCRYPT_MAXMEM = 512 * 1024 * 1024;
export const PASSPHRASE_BOUNDS = { minLength: 12, maxLength: 200 };

const PKCS8_X25519 = Buffer.from("302e020100300506032b656e04220420", "hex");
const SPKI_X25519 = Buffer.from("302a300506032b656e032100", "hex");

type Kdf = { name: "scrypt"; N: number; r: number; p: number; salt: string };
/** What the appliance keeps (backups/encryption.json): never the passphrase, nor anything that decrypts. */
export type EncryptionSettings = { kdf: Kdf; recipient: string; setAt: number };
type Header = { version: 1; kdf: Kdf; recipient: string; ephemeral: string; chunkBytes: number };

const settingsPath = (dataDir: string) => join(dataDir, "backups", "encryption.json");

export function encryptionSettings(dataDir: string): EncryptionSettings | null {
  const path = settingsPath(dataDir);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as EncryptionSettings) : null;
}

/** For the screen: whether a passphrase is set, and when. */
export function encryptionView(dataDir: string) {
  const s = encryptionSettings(dataDir);
  return { set: s !== null, setAt: s?.setAt ?? null };
}

function stretch(passphrase: string, kdf: Kdf): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize("NFC"), Buffer.from(kdf.salt, "base64"), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: SCRYPT_MAXMEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

const privateKeyOf = (seed: Buffer) => createPrivateKey({ key: Buffer.concat([PKCS8_X25519, seed]), format: "der", type: "pkcs8" });
const rawPublic = (key: KeyObject) => Buffer.from(createPublicKey(key).export({ format: "der", type: "spki" })).subarray(SPKI_X25519.length);
const publicKeyOf = (raw: Buffer) => createPublicKey({ key: Buffer.concat([SPKI_X25519, raw]), format: "der", type: "spki" });

/** Sets (or changes) the passphrase: archives made from now on need it; earlier ones keep theirs. */
export async function setBackupPassphrase(dataDir: string, passphrase: string, now: number) {
  const kdf: Kdf = { name: "scrypt", ...SCRYPT, salt: randomBytes(16).toString("base64") };
  const recipient = rawPublic(privateKeyOf(await stretch(passphrase, kdf))).toString("base64");
  mkdirSync(join(dataDir, "backups"), { recursive: true, mode: 0o700 });
  writeDurably(settingsPath(dataDir), JSON.stringify({ kdf, recipient, setAt: now } satisfies EncryptionSettings, null, 2));
  return encryptionView(dataDir);
}

function chunkKey(shared: Buffer, ephemeral: Buffer, recipient: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", shared, Buffer.concat([ephemeral, recipient]), "smsdesk backup v1", 32));
}

function nonce(index: number): Buffer {
  const n = Buffer.alloc(12);
  n.writeBigUInt64BE(BigInt(index), 4);
  return n;
}

const aad = (headerHash: Buffer, index: number, last: boolean) => Buffer.concat([headerHash, nonce(index), Buffer.from([last ? 1 : 0])]);

/**
 * The archive at `path` encrypted for the passphrase's public key, as a stream read a chunk at a time: memory
 * stays small whatever the archive's size.
 */
export function encryptedArchive(path: string, settings: EncryptionSettings): ReadableStream<Uint8Array> {
  const recipient = Buffer.from(settings.recipient, "base64");
  const eph = generateKeyPairSync("x25519");
  const ephemeral = rawPublic(eph.privateKey);
  const key = chunkKey(diffieHellman({ privateKey: eph.privateKey, publicKey: publicKeyOf(recipient) }), ephemeral, recipient);
  const header = Buffer.from(
    JSON.stringify({ version: 1, kdf: settings.kdf, recipient: settings.recipient, ephemeral: ephemeral.toString("base64"), chunkBytes: CHUNK } satisfies Header),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  const prefix = Buffer.concat([MAGIC, length, header]);
  const headerHash = createHash("sha256").update(prefix).digest();
  let fd: number | null = null;
  let index = 0;
  const close = () => {
    if (fd !== null) closeSync(fd);
    fd = null;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      fd = openSync(path, "r");
      controller.enqueue(prefix);
    },
    pull(controller) {
      const plain = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd!, plain, 0, CHUNK, index * CHUNK);
      // A chunk shorter than CHUNK (empty when the size is a multiple of it) is the last.
      const last = n < CHUNK;
      const cipher = createCipheriv("aes-256-gcm", key, nonce(index));
      cipher.setAAD(aad(headerHash, index, last));
      controller.enqueue(Buffer.concat([cipher.update(plain.subarray(0, n)), cipher.final(), cipher.getAuthTag()]));
      index++;
      if (last) {
        close();
        controller.close();
      }
    },
    cancel: close,
  });
}

/** Writes the encrypted archive to a file (an S3 copy is signed with its SHA-256, so it is made first). */
export async function encryptArchiveTo(path: string, dest: string, settings: EncryptionSettings) {
  await Bun.write(dest, new Response(encryptedArchive(path, settings)));
}

/** Whether a file is an encrypted archive (by its first bytes). */
export function isEncryptedArchive(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(MAGIC.length);
    return readSync(fd, head, 0, MAGIC.length, 0) === MAGIC.length && head.equals(MAGIC);
  } finally {
    closeSync(fd);
  }
}

function readHeader(fd: number): { header: Header; headerHash: Buffer; offset: number } {
  const lead = Buffer.alloc(MAGIC.length + 4);
  if (readSync(fd, lead, 0, lead.length, 0) !== lead.length || !lead.subarray(0, MAGIC.length).equals(MAGIC))
    throw new ArchiveError("The file is not an encrypted smsdesk backup");
  const length = lead.readUInt32BE(MAGIC.length);
  if (length > MAX_HEADER) throw new ArchiveError("The encrypted backup's header is damaged");
  const raw = Buffer.alloc(length);
  if (readSync(fd, raw, 0, length, lead.length) !== length) throw new ArchiveError("The encrypted backup ends in its header");
  let header: Header;
  try {
    header = JSON.parse(raw.toString("utf8")) as Header;
  } catch {
    throw new ArchiveError("The encrypted backup's header is damaged");
  }
  const k = header?.kdf;
  // Bounded before anything is computed from them: a crafted header could ask scrypt for gigabytes.
  if (
    header?.version !== 1 ||
    header.chunkBytes !== CHUNK ||
    k?.name !== "scrypt" ||
    ![2 ** 14, 2 ** 15, 2 ** 16, 2 ** 17, 2 ** 18].includes(k.N) ||
    !Number.isInteger(k.r) || k.r < 1 || k.r > 16 ||
    !Number.isInteger(k.p) || k.p < 1 || k.p > 4 ||
    typeof k.salt !== "string" ||
    typeof header.recipient !== "string" ||
    typeof header.ephemeral !== "string" ||
    Buffer.from(header.recipient, "base64").length !== 32 ||
    Buffer.from(header.ephemeral, "base64").length !== 32
  )
    throw new ArchiveError("The encrypted backup's header is not one this version reads");
  return { header, headerHash: createHash("sha256").update(Buffer.concat([lead, raw])).digest(), offset: lead.length + length };
}

export const WRONG_PASSPHRASE = "This passphrase does not open the backup: enter the one that was set when it was made";

/**
 * Decrypts an encrypted archive into `dest` (created 0600), chunk by chunk, every chunk authenticated; a wrong
 * passphrase is told before anything is decrypted. Throws ArchiveError (dest is then removed).
 */
export async function decryptArchive(path: string, dest: string, passphrase: string): Promise<void> {
  const fd = openSync(path, "r");
  let out: number | null = null;
  try {
    const { header, headerHash, offset } = readHeader(fd);
    const recipient = Buffer.from(header.recipient, "base64");
    const ephemeral = Buffer.from(header.ephemeral, "base64");
    const own = privateKeyOf(await stretch(passphrase, header.kdf));
    if (!rawPublic(own).equals(recipient)) throw new ArchiveError(WRONG_PASSPHRASE);
    const key = chunkKey(diffieHellman({ privateKey: own, publicKey: publicKeyOf(ephemeral) }), ephemeral, recipient);
    out = openSync(dest, "wx", 0o600);
    const sealed = Buffer.allocUnsafe(CHUNK + TAG);
    for (let index = 0, at = offset; ; index++) {
      const n = readSync(fd, sealed, 0, sealed.length, at);
      at += n;
      if (n < TAG) throw new ArchiveError("The encrypted backup is cut short");
      const last = n < sealed.length;
      const decipher = createDecipheriv("aes-256-gcm", key, nonce(index));
      decipher.setAAD(aad(headerHash, index, last));
      decipher.setAuthTag(sealed.subarray(n - TAG, n));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(sealed.subarray(0, n - TAG)), decipher.final()]);
      } catch {
        throw new ArchiveError("The encrypted backup was changed or damaged (a chunk fails its authentication)");
      }
      writeSync(out, plain);
      if (last) break;
      // Let other requests run between chunks.
      if (index % 64 === 63) await new Promise((r) => setImmediate(r));
    }
    fsyncSync(out);
  } catch (err) {
    if (out !== null) {
      closeSync(out);
      out = null;
      rmSync(dest, { force: true });
    }
    throw err;
  } finally {
    if (out !== null) closeSync(out);
    closeSync(fd);
  }
}

export const PASSPHRASE_NEEDED = "This backup is encrypted: enter the passphrase it was made with";

/**
 * The plain archive of an uploaded file: an encrypted one decrypted beside it (the encrypted file removed), an
 * older unencrypted one as it is. Throws ArchiveError for a missing or wrong passphrase or a damaged file.
 */
export async function plainArchive(path: string, passphrase: string | null): Promise<string> {
  if (!isEncryptedArchive(path)) return path;
  try {
    if (!passphrase) throw new ArchiveError(PASSPHRASE_NEEDED);
    const dest = `${path}.plain`;
    await decryptArchive(path, dest, passphrase);
    return dest;
  } finally {
    rmSync(path, { force: true });
  }
}
