import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { MAX_MEDIA_UPLOAD_BYTES, readBytesWithin } from "../http/body-limit";
import { getMedia, mediaResponse, verifySignedMedia } from "./media";
import { uploadMedia } from "./upload";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });

/** Pictures and files of MMS: the upload, the account's own view of an item, and the signed link providers fetch. */
export function mediaRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/media" })
    .use(authGuard(ctx))
    // POST /api/media
    // The file is the raw body (any content type: the type is read from the bytes); ?filename= names it.
    .post(
      "/",
      async ({ user, request, query, set }) => {
        const bytes = await readBytesWithin(request, MAX_MEDIA_UPLOAD_BYTES);
        set.status = 201;
        return uploadMedia(ctx, user.id, bytes, query.filename);
      },
      { auth: true, parse: "none", query: t.Object({ filename: t.Optional(t.String({ maxLength: 200 })) }) },
    )
    // GET /api/media/:id
    .get("/:id", async ({ user, params }) => mediaResponse(ctx, await getMedia(ctx, user.id, params.id)), { auth: true, params: idParams })
    // GET /api/media/:id/signed
    // For the provider, without a session: the URL's HMAC and expiry are the credential (403 bad, 410 expired).
    .get("/:id/signed", async ({ params, query }) => mediaResponse(ctx, await verifySignedMedia(ctx, params.id, query.expires, query.signature)), {
      params: idParams,
      query: t.Object({ expires: t.Optional(t.String({ maxLength: 20 })), signature: t.Optional(t.String({ maxLength: 100 })) }),
    });
}
