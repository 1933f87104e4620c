import { AwsV4Signer } from "aws4fetch";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { decryptSecret, encryptSecret } from "../secrets/encryption";
import { backupsDir, findBackup, recordBackup, writeDurably, type BackupInfo } from "./backups";
import { encryptArchiveTo, encryptionSettings } from "./encryption";

/**
 * An S3-compatible copy of the scheduled backups (AWS S3, Cloudflare R2, Backblaze B2, MinIO...): each good
 * scheduled backup is uploaded (path-style URL, signed with AWS Signature V4 by aws4fetch, the payload's SHA-256
 * signed too) and the same number is kept there as here. The settings live beside the backups, not in the
 * database, like the schedule; the secret key is sealed with the key provider credentials use.
 */

export type RemoteSettings = {
  enabled: boolean;
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  /** Sealed with ctx.keys.secrets (src/secrets/encryption.ts); never answered. */
  secretAccessKey: string;
  /** Prepended to each object's name, e.g. "smsdesk/". */
  prefix: string;
};

export type RemoteChange = Omit<RemoteSettings, "secretAccessKey"> & { secretAccessKey?: string };

const remotePath = (dataDir: string) => join(backupsDir(dataDir), "remote.json");
/** An archive's upload may take minutes; a listing or a delete answers in seconds. */
const PUT_TIMEOUT_MS = 10 * 60_000;
const CALL_TIMEOUT_MS = 60_000;
/**
 * What is read of an answer: an error's body only for its <Code>; a listing's page (at most 1,000 keys of at most
 * 1,024 bytes each, as S3 has it) well within 4 MB. The endpoint is any server the administrator names: an endless or
 * huge answer would otherwise fill the memory, and a listing whose every page says "more" would never end.
 */
const ERROR_BODY_BYTES = 4 * 1024;
const LIST_PAGE_BYTES = 4 * 1024 * 1024;
/** 100 pages of 1,000 keys: far more backups than any retention keeps. */
const MAX_LIST_PAGES = 100;
/** The scheduled backups' object names (encrypted; older versions' plain): their time sorts them. */
const SCHEDULED = /smsdesk-\d{8}-\d{6}-scheduled-[0-9a-f]{6}\.tar\.gz(\.enc)?$/;

export function remoteSettings(dataDir: string): RemoteSettings | null {
  const path = remotePath(dataDir);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as RemoteSettings) : null;
}

/** The settings for the screen: everything but the secret, which is only said to be set. */
export function remoteView(ctx: AppContext) {
  const s = remoteSettings(ctx.config.dataDir);
  if (!s) return { enabled: false, endpoint: "", bucket: "", region: "us-east-1", accessKeyId: "", prefix: "", secretSet: false };
  const { secretAccessKey: _sealed, ...rest } = s;
  return { ...rest, secretSet: true };
}

export function updateRemote(ctx: AppContext, change: RemoteChange) {
  let url: URL;
  try {
    url = new URL(change.endpoint);
  } catch {
    throw badRequest("Please enter the endpoint as a URL, e.g. https://s3.eu-central-1.amazonaws.com");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw badRequest("The endpoint must be an http:// or https:// URL");
  const current = remoteSettings(ctx.config.dataDir);
  const secret = change.secretAccessKey ? encryptSecret(ctx.keys.secrets, change.secretAccessKey) : current?.secretAccessKey;
  if (!secret) throw badRequest("Please enter the secret access key");
  const settings: RemoteSettings = {
    enabled: change.enabled,
    endpoint: url.origin + url.pathname.replace(/\/+$/, ""),
    bucket: change.bucket,
    region: change.region,
    accessKeyId: change.accessKeyId,
    secretAccessKey: secret,
    prefix: change.prefix,
  };
  mkdirSync(backupsDir(ctx.config.dataDir), { recursive: true, mode: 0o700 });
  writeDurably(remotePath(ctx.config.dataDir), JSON.stringify(settings, null, 2));
  return remoteView(ctx);
}

class RemoteError extends Error {}

function secretOf(ctx: AppContext, s: RemoteSettings): string {
  try {
    return decryptSecret(ctx.keys.secrets, s.secretAccessKey);
  } catch {
    // A restore from another installation brings another secret.key: the sealed secret cannot be opened.
    throw new RemoteError("The S3 secret access key cannot be read with this installation's key: enter it again at /admin/backup-manager");
  }
}

const objectUrl = (s: RemoteSettings, key = "") => `${s.endpoint}/${encodeURIComponent(s.bucket)}/${key.split("/").map(encodeURIComponent).join("/")}`;

async function signedFetch(ctx: AppContext, s: RemoteSettings, method: string, url: string, opts: { body?: Blob; sha256?: string; contentType?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.sha256) headers["x-amz-content-sha256"] = opts.sha256;
  if (opts.contentType) headers["content-type"] = opts.contentType;
  const signer = new AwsV4Signer({ method, url, headers, accessKeyId: s.accessKeyId, secretAccessKey: secretOf(ctx, s), service: "s3", region: s.region });
  const signed = await signer.sign();
  const res = await fetch(signed.url, {
    method,
    headers: signed.headers,
    body: opts.body,
    redirect: "manual",
    signal: AbortSignal.timeout(method === "PUT" ? PUT_TIMEOUT_MS : CALL_TIMEOUT_MS),
  });
  if (!res.ok) {
    const { text } = await readBounded(res, ERROR_BODY_BYTES).catch(() => ({ text: "" }));
    const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
    throw new RemoteError(`${method} ${new URL(url).pathname} answered ${res.status}${code ? ` ${code}` : ""}`);
  }
  return res;
}

/** At most `max` bytes of an answer's body as text (`cut` when there was more); the rest is never read. */
async function readBounded(res: Response, max: number): Promise<{ text: string; cut: boolean }> {
  const reader = res.body?.getReader();
  if (!reader) return { text: "", cut: false };
  const parts: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > max) {
        parts.push(value.subarray(0, max - size));
        cut = true;
        break;
      }
      parts.push(value);
      size += value.length;
    }
  } finally {
    // Stops the transfer of whatever is left (an endless answer ends here).
    if (cut) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return { text: Buffer.concat(parts).toString("utf8"), cut };
}

/** A successful answer's body is not needed: dropped unread, the connection freed. */
const discard = (res: Response) => res.body?.cancel().catch(() => {});

function fileSha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", reject);
  });
}

/**
 * Every object name under the prefix (ListObjectsV2, page by page). Each page is read to LIST_PAGE_BYTES, and the
 * listing stops after MAX_LIST_PAGES or at a continuation token seen before: an error then, the retention is not
 * applied on a partial list.
 */
async function listKeys(ctx: AppContext, s: RemoteSettings): Promise<string[]> {
  const keys: string[] = [];
  const seen = new Set<string>();
  let token: string | null = null;
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ "list-type": "2", "max-keys": "1000", prefix: s.prefix, ...(token ? { "continuation-token": token } : {}) });
    const { text: xml, cut } = await readBounded(await signedFetch(ctx, s, "GET", `${objectUrl(s)}?${query}`), LIST_PAGE_BYTES);
    if (cut) throw new RemoteError(`the listing of ${s.bucket} answered a page of more than ${LIST_PAGE_BYTES / 1024 / 1024} MB`);
    for (const m of xml.matchAll(/<Key>([^<]*)<\/Key>/g)) keys.push(m[1]!.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">"));
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? (/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1] ?? null) : null;
    if (!token) return keys;
    if (seen.has(token)) throw new RemoteError(`the listing of ${s.bucket} repeated a page (continuation token seen before)`);
    if (page >= MAX_LIST_PAGES) throw new RemoteError(`the listing of ${s.bucket} did not end within ${MAX_LIST_PAGES} pages`);
    seen.add(token);
  }
}

/**
 * Uploads a good backup's archive and applies the retention there (the newest `keep` scheduled backups stay).
 * The outcome is kept with the backup (`remote`); a failure is logged and recorded, not thrown: the local backup
 * is good either way.
 */
export async function copyToRemote(ctx: AppContext, backup: BackupInfo, keep: number): Promise<BackupInfo> {
  const s = remoteSettings(ctx.config.dataDir);
  if (!s?.enabled) return backup;
  const key = `${s.prefix}${backup.id}.tar.gz.enc`;
  const path = join(backupsDir(ctx.config.dataDir), `${backup.id}.tar.gz`);
  // Encrypted for the administrator's passphrase (encryption.ts): a copy in someone else's bucket holds secret.key.
  const sealed = join(backupsDir(ctx.config.dataDir), `.s3-${backup.id}.tar.gz.enc`);
  let remote: NonNullable<BackupInfo["remote"]>;
  try {
    const encryption = encryptionSettings(ctx.config.dataDir);
    if (!encryption) throw new RemoteError("No backup passphrase is set: copies leave the appliance only encrypted (set one in the Backup Manager)");
    await encryptArchiveTo(path, sealed, encryption);
    await discard(
      await signedFetch(ctx, s, "PUT", objectUrl(s, key), { body: Bun.file(sealed), sha256: await fileSha256(sealed), contentType: "application/octet-stream" }),
    );
    const doomed = (await listKeys(ctx, s)).filter((k) => SCHEDULED.test(k)).sort().reverse().slice(keep);
    for (const old of doomed) await discard(await signedFetch(ctx, s, "DELETE", objectUrl(s, old)));
    remote = { at: ctx.now(), ok: true, key, error: null, deleted: doomed };
  } catch (err) {
    const message = err instanceof RemoteError ? err.message : `${(err as Error).message}`;
    ctx.log(`backups: the copy of ${backup.id} to S3 failed: ${message}`);
    remote = { at: ctx.now(), ok: false, key, error: message, deleted: [] };
  } finally {
    rmSync(sealed, { force: true });
  }
  return recordBackup(ctx.config.dataDir, { ...findBackup(ctx.config.dataDir, backup.id), remote });
}
