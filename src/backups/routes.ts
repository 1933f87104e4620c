import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import { requireRecentConfirmation } from "../auth/reauth";
import type { AppContext } from "../context";
import { MAX_BACKUP_BYTES } from "../http/body-limit";
import { badRequest, conflict, HttpError } from "../http/errors";
import type { User } from "../users/queries";
import { ArchiveError } from "./archive";
import { encryptedArchive, encryptionSettings, encryptionView, PASSPHRASE_BOUNDS, plainArchive, setBackupPassphrase } from "./encryption";
import { backupDuties } from "./duties";
import { remoteView, updateRemote } from "./remote";
import { KEEP_BOUNDS, PRESETS, scheduleView, updateBackupSchedule } from "./schedule";
import {
  BACKUP_ID, backupFile, createBackup, deleteBackup, drillBackup, findBackup, importArchive, lastDrilledBackup, listBackups, receiveUpload, restoreBackup,
} from "./backups";

const idParams = t.Object({ id: t.String({ pattern: BACKUP_ID.source, error: "Not a backup id" }) });

/** The backup manager's calls (administrators only). */
export function backupRoutes(ctx: AppContext) {
  const dataDir = () => ctx.config.dataDir;
  /**
   * The archive of a backup the caller may download now. It holds every account's data and secret.key, which opens
   * the stored provider credentials: sudo mode (auth/reauth.ts), asked once the backup is known to be downloadable,
   * and only ever sent encrypted with the administrator's passphrase (encryption.ts).
   */
  const downloadable = async (user: User, sessionId: string, id: string) => {
    const file = backupFile(dataDir(), id);
    const encryption = encryptionSettings(dataDir());
    if (!encryption) throw conflict("Set a backup passphrase first (Encryption, on this page): a backup leaves the appliance only encrypted with it");
    await requireRecentConfirmation(ctx, user, sessionId, "to download a backup");
    return { file, encryption };
  };
  return (
    new Elysia({ prefix: "/api/admin/backups" })
      .use(authGuard(ctx))
      // GET /api/admin/backups
      .get("/", () => ({ data: listBackups(dataDir()), lastDrilled: lastDrilledBackup(dataDir()), duties: backupDuties(ctx.config) }), { auth: "admin" })
      // POST /api/admin/backups
      .post(
        "/",
        async ({ set }) => {
          const made = await createBackup(ctx);
          set.status = 201;
          return made;
        },
        { auth: "admin" },
      )
      // GET /api/admin/backups/schedule
      .get("/schedule", () => scheduleView(ctx), { auth: "admin" })
      // PUT /api/admin/backups/schedule
      .put("/schedule", ({ body }) => updateBackupSchedule(ctx, body), {
        auth: "admin",
        body: t.Object({
          enabled: t.Boolean(),
          preset: t.Union([...Object.keys(PRESETS), "custom"].map((p) => t.Literal(p as keyof typeof PRESETS | "custom")), {
            error: "The schedule is daily, weekly, monthly or custom",
          }),
          cron: t.Optional(t.String({ maxLength: 100 })),
          keep: t.Integer({ ...KEEP_BOUNDS, error: `Keep from ${KEEP_BOUNDS.minimum} to ${KEEP_BOUNDS.maximum} scheduled backups` }),
        }),
      })
      // GET /api/admin/backups/encryption
      .get("/encryption", () => encryptionView(dataDir()), { auth: "admin" })
      // PUT /api/admin/backups/encryption
      .put(
        "/encryption",
        async ({ user, sessionId, body }) => {
          // Whoever sets it can read every backup that leaves from now on: sudo mode.
          await requireRecentConfirmation(ctx, user, sessionId, "to set the backup passphrase");
          return setBackupPassphrase(dataDir(), body.passphrase, ctx.now());
        },
        {
          auth: "admin",
          body: t.Object({
            passphrase: t.String({
              ...PASSPHRASE_BOUNDS,
              error: `The passphrase must be ${PASSPHRASE_BOUNDS.minLength} to ${PASSPHRASE_BOUNDS.maxLength} characters`,
            }),
          }),
        },
      )
      // GET /api/admin/backups/remote
      .get("/remote", () => remoteView(ctx), { auth: "admin" })
      // PUT /api/admin/backups/remote
      .put(
        "/remote",
        async ({ user, sessionId, body }) => {
          // Where every backup (the whole database) is copied to: sudo mode (auth/reauth.ts), as for a webhook's URL.
          await requireRecentConfirmation(ctx, user, sessionId, "to change where backups are copied");
          return updateRemote(ctx, body);
        },
        {
          auth: "admin",
          body: t.Object({
            enabled: t.Boolean(),
            endpoint: t.String({ minLength: 1, maxLength: 500, error: "Please enter the endpoint (a URL of at most 500 characters)" }),
            bucket: t.String({ pattern: "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", error: "A bucket name is 3-63 lowercase letters, digits, dots and hyphens" }),
            region: t.String({ pattern: "^[a-z0-9-]{1,50}$", error: "A region is up to 50 lowercase letters, digits and hyphens (e.g. us-east-1, auto)" }),
            accessKeyId: t.String({ minLength: 1, maxLength: 200, error: "Please enter the access key id (at most 200 characters)" }),
            secretAccessKey: t.Optional(t.String({ minLength: 1, maxLength: 200, error: "The secret access key is at most 200 characters" })),
            prefix: t.String({ pattern: "^([A-Za-z0-9._-]+/)*$", maxLength: 200, error: "The prefix is empty or folder names ending in /, e.g. smsdesk/" }),
          }),
        },
      )
      // POST /api/admin/backups/upload
      .post(
        "/upload",
        async ({ request, set }) => {
          if (Number(request.headers.get("content-length") ?? 0) > MAX_BACKUP_BYTES) throw new HttpError(413, "Request body too large");
          const received = await receiveUpload(dataDir(), (request.body ?? []) as AsyncIterable<Uint8Array>, MAX_BACKUP_BYTES);
          // The passphrase of an encrypted archive (encodeURIComponent'd: a header carries ASCII only).
          const header = request.headers.get("x-backup-passphrase");
          let passphrase: string | null = null;
          try {
            passphrase = header ? decodeURIComponent(header) : null;
          } catch {
            passphrase = header;
          }
          const path = await plainArchive(received, passphrase).catch((err: unknown) => {
            throw err instanceof ArchiveError ? badRequest(err.message) : err;
          });
          try {
            const info = await importArchive(dataDir(), path, ctx.now(), { move: true });
            set.status = 201;
            return info;
          } catch (err) {
            if (err instanceof ArchiveError) throw badRequest(`This file is not a valid backup: ${err.message}`);
            throw err;
          }
        },
        { auth: "admin", parse: "none" },
      )
      // GET /api/admin/backups/:id/download
      .get(
        "/:id/download",
        async ({ user, sessionId, params }) => {
          const { file, encryption } = await downloadable(user, sessionId, params.id);
          return new Response(encryptedArchive(file, encryption), {
            headers: { "content-type": "application/octet-stream", "content-disposition": `attachment; filename="${params.id}.tar.gz.enc"` },
          });
        },
        { auth: "admin", params: idParams },
      )
      // POST /api/admin/backups/:id/download
      // The UI asks first, then downloads: a browser's own download (the GET) cannot show the confirm dialog.
      .post(
        "/:id/download",
        async ({ user, sessionId, params }) => {
          await downloadable(user, sessionId, params.id);
          return { url: `/api/admin/backups/${params.id}/download` };
        },
        { auth: "admin", params: idParams },
      )
      // POST /api/admin/backups/:id/restore
      .post(
        "/:id/restore",
        async ({ user, sessionId, params }) => {
          // Replaces every account's data: sudo mode (auth/reauth.ts), asked once the backup is known.
          findBackup(dataDir(), params.id);
          await requireRecentConfirmation(ctx, user, sessionId, "to restore a backup");
          return { success: true, ...(await restoreBackup(ctx, params.id)) };
        },
        { auth: "admin", params: idParams },
      )
      // POST /api/admin/backups/:id/drill
      .post("/:id/drill", ({ params }) => drillBackup(dataDir(), params.id, ctx.now(), { wait: false }), { auth: "admin", params: idParams })
      // DELETE /api/admin/backups/:id
      .delete(
        "/:id",
        async ({ user, sessionId, params }) => {
          findBackup(dataDir(), params.id);
          await requireRecentConfirmation(ctx, user, sessionId, "to delete a backup");
          deleteBackup(dataDir(), params.id);
          return { success: true };
        },
        { auth: "admin", params: idParams },
      )
  );
}
