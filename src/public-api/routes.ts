import { Elysia, t, type Static } from "elysia";
import type { AppContext } from "../context";
import { KEY_REUSED_CODE, onceByKey, sendChat } from "../conversations/conversations";
import { getContact, contactView, retagContact } from "../contacts/contacts";
import { badRequest, HttpError, unauthorized } from "../http/errors";
import { getMessage, withMedia } from "../messages/messages";
import { MAX_MEDIA_PER_MESSAGE } from "../media/media";
import { recipientPhone } from "../users/default-country";
import { recordPurchase } from "../automation/runner";
import { campaignViewOf, createCampaign, sendCampaign } from "../campaigns/campaigns";
import { assertRegistrationAcknowledged } from "../campaigns/send-checked";
import { listKeywords } from "../keywords/keywords";
import { findUserById } from "../users/queries";
import { listSegments } from "../segments/segments";
import { addOptOut, contactPage, createApiContact, deleteApiContact, pageOfList, updateApiContact, upsertApiContact } from "./contacts";
import type { ApiCaller } from "../api-keys/keys";
import { apiKeyGuard } from "./guard";
import {
  ACKNOWLEDGE_REGISTRATION_TEXT,
  Campaign,
  CampaignSend,
  Contact,
  ContactPage,
  Deleted,
  KeywordPage,
  MEDIA_IDS_TEXT,
  Message,
  NewAbTest,
  operation,
  QueuedMessage,
  RecordedEvent,
  SendRefusal,
  SEND_MMS_TEXT,
  SegmentPage,
  UPLOAD_BODY_TEXT,
  UPLOAD_MEDIA_TEXT,
  UploadedMedia,
} from "./contract";
import { MAX_MEDIA_UPLOAD_BYTES, readBytesWithin } from "../http/body-limit";
import { uploadMedia } from "../media/upload";

const MAX_LIMIT = 100;
const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const pageQuery = t.Object({
  cursor: t.Optional(t.String({ maxLength: 200, error: "Invalid cursor: pass back the nextCursor of a previous page" })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_LIMIT, error: `limit must be a whole number from 1 to ${MAX_LIMIT}` })),
});
const phone = t.String({ minLength: 1, maxLength: 40, error: "phone is a phone number (at most 40 characters)" });
const contactFields = {
  firstName: t.Optional(t.String({ maxLength: 100, error: "firstName is at most 100 characters" })),
  lastName: t.Optional(t.String({ maxLength: 100, error: "lastName is at most 100 characters" })),
  email: t.Optional(t.Nullable(t.String({ maxLength: 254, error: "email is at most 254 characters" }))),
  tags: t.Optional(t.Array(t.String({ maxLength: 50, error: "A tag is at most 50 characters" }), { maxItems: 50, error: "At most 50 tags" })),
  customFields: t.Optional(
    t.Record(t.String({ maxLength: 100 }), t.String({ maxLength: 1000, error: "A custom field's value is at most 1,000 characters" }), {
      maxProperties: 50,
      error: "customFields maps at most 50 names to text values",
    }),
  ),
};
const idempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(t.String({ minLength: 1, maxLength: 200, error: "Idempotency-Key must be 1 to 200 characters" })),
});

/**
 * A POST of /api/v1 run once per API key and Idempotency-Key (24 h, the request's path and body hashed): a replay
 * answers the first status and body with `Idempotent-Replayed: true`; the key with another request is a 422, as
 * the IETF Idempotency-Key draft answers it. Without the header the call simply runs.
 */
async function idempotent<T>(
  ctx: AppContext,
  caller: ApiCaller,
  key: string | undefined,
  request: { path: string; body: unknown },
  set: { status?: number | string; headers: Record<string, unknown> },
  run: () => { status: number; body: T } | Promise<{ status: number; body: T }>,
): Promise<T> {
  try {
    // Keys are kept per API key: two integrations of one account never answer each other's calls.
    const answer = key === undefined ? { ...(await run()), replayed: false } : await onceByKey(ctx, caller.userId, `api:${caller.keyId}:${key}`, request, run);
    set.status = answer.status;
    if (answer.replayed) set.headers["idempotent-replayed"] = "true";
    return answer.body;
  } catch (e) {
    if (e instanceof HttpError && e.extra.code === KEY_REUSED_CODE) {
      throw new HttpError(422, "This Idempotency-Key was already used for a different request. Use a new key for a new request.", { code: KEY_REUSED_CODE });
    }
    throw e;
  }
}

/** The key's account, as the campaign services take it (a key of a deleted account is gone with it). */
async function ownerOf(ctx: AppContext, caller: ApiCaller) {
  const user = await findUserById(ctx, caller.userId);
  if (!user) throw unauthorized("Unknown API key");
  return user;
}

type NewCampaign = { name: string; content: string; segmentId?: string; contactIds?: string[]; fromNumber?: string | null; abTest?: Static<typeof NewAbTest> };

/**
 * A draft SMS campaign to a segment or to contacts by id (exactly one of the two), with an A/B test whose first
 * variant is its content (the test's other rules are the app's: src/campaigns/ab-split.ts cleanAbTest).
 */
async function createApiCampaign(ctx: AppContext, caller: ApiCaller, body: NewCampaign) {
  if ((body.segmentId === undefined) === (body.contactIds === undefined)) throw badRequest("Give either segmentId or contactIds");
  if (body.abTest && body.abTest.variants[0]!.trim() !== body.content.trim()) throw badRequest("abTest.variants[0] is variant A: the campaign's content, as written in content");
  const audience = body.segmentId !== undefined ? { kind: "segment" as const, segmentId: body.segmentId } : { kind: "contacts" as const, contactIds: body.contactIds! };
  return createCampaign(ctx, await ownerOf(ctx, caller), { name: body.name, type: "sms", content: body.content, fromNumber: body.fromNumber, audience, abTest: body.abTest });
}

export function publicApiRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/v1" })
    .use(apiKeyGuard(ctx))
    // GET /api/v1/contacts
    .get("/contacts", ({ caller, query }) => contactPage(ctx, caller.userId, query.cursor, query.limit ?? 50), {
      query: pageQuery,
      ...operation({
        operationId: "listContacts",
        tag: "Contacts",
        scope: "contacts:read",
        summary: "List contacts, oldest first, a page at a time (nextCursor is null on the last page)",
        ok: { 200: { description: "A page of contacts", body: ContactPage } },
      }),
    })
    // POST /api/v1/contacts
    .post(
      "/contacts",
      ({ caller, body, headers, set }) =>
        idempotent(ctx, caller, headers["idempotency-key"], { path: "/contacts", body }, set, async () => ({ status: 201, body: await createApiContact(ctx, caller.userId, body) })),
      {
        headers: idempotencyHeaders,
        body: t.Object({ phone, ...contactFields }),
        ...operation({
          operationId: "createContact",
          tag: "Contacts",
          scope: "contacts:write",
          summary: "Create a contact (subscribed)",
          ok: { 201: { description: "The contact made", body: Contact } },
          errors: { 402: "The plan's contact limit is reached", 409: "A contact has this phone already: use upsert" },
        }),
      },
    )
    // POST /api/v1/contacts/upsert
    .post(
      "/contacts/upsert",
      ({ caller, body, headers, set }) =>
        idempotent(ctx, caller, headers["idempotency-key"], { path: "/contacts/upsert", body }, set, async () => {
          const { contact, created } = await upsertApiContact(ctx, caller.userId, body);
          return { status: created ? 201 : 200, body: contact };
        }),
      {
        headers: idempotencyHeaders,
        body: t.Object({
          phone,
          ...contactFields,
          replaceTags: t.Optional(
            t.Boolean({ description: "true: the tags given become the contact's whole list; otherwise they are added to its tags", error: "replaceTags is true or false" }),
          ),
        }),
        ...operation({
          operationId: "upsertContact",
          tag: "Contacts",
          scope: "contacts:write",
          summary: "Create or update the contact with this phone",
          description: "Fields left out keep their values. The tags given are added to the contact's own; send replaceTags: true to make them its whole list. customFields, when given, replace the contact's custom fields.",
          ok: { 200: { description: "The contact that had this phone, updated", body: Contact }, 201: { description: "A new contact", body: Contact } },
          errors: { 402: "The plan's contact limit is reached" },
        }),
      },
    )
    // GET /api/v1/contacts/:id
    .get("/contacts/:id", async ({ caller, params }) => contactView(await getContact(ctx, caller.userId, params.id)), {
      params: idParams,
      ...operation({
        operationId: "getContact",
        tag: "Contacts",
        scope: "contacts:read",
        summary: "One contact, with its tags and opt-out status",
        ok: { 200: { description: "The contact", body: Contact } },
      }),
    })
    // PATCH /api/v1/contacts/:id
    .patch("/contacts/:id", ({ caller, params, body }) => updateApiContact(ctx, caller.userId, params.id, body), {
      params: idParams,
      body: t.Object({ phone: t.Optional(phone), ...contactFields }),
      ...operation({
        operationId: "updateContact",
        tag: "Contacts",
        scope: "contacts:write",
        summary: "Change the fields given",
        description: "tags and customFields, when given, replace the contact's lists; POST /api/v1/contacts/{id}/tags adds and removes single tags.",
        ok: { 200: { description: "The contact, changed", body: Contact } },
        errors: { 409: "Another contact has this phone" },
      }),
    })
    // POST /api/v1/contacts/:id/tags
    .post(
      "/contacts/:id/tags",
      ({ caller, params, body, headers, set }) =>
        idempotent(ctx, caller, headers["idempotency-key"], { path: `/contacts/${params.id}/tags`, body }, set, async () => ({
          status: 200,
          body: contactView(await retagContact(ctx, caller.userId, params.id, body.add, body.remove)),
        })),
      {
        params: idParams,
        headers: idempotencyHeaders,
        body: t.Object({ add: contactFields.tags, remove: contactFields.tags }),
        ...operation({
          operationId: "tagContact",
          tag: "Contacts",
          scope: "contacts:write",
          summary: "Add and remove tags, keeping the others",
          ok: { 200: { description: "The contact with its tags now", body: Contact } },
        }),
      },
    )
    // DELETE /api/v1/contacts/:id
    .delete(
      "/contacts/:id",
      async ({ caller, params }) => {
        await deleteApiContact(ctx, caller.userId, params.id);
        return { deleted: true };
      },
      {
        params: idParams,
        ...operation({
          operationId: "deleteContact",
          tag: "Contacts",
          scope: "contacts:write",
          summary: "Delete a contact",
          ok: { 200: { description: "Deleted", body: Deleted } },
        }),
      },
    )
    // GET /api/v1/opt-outs
    .get("/opt-outs", ({ caller, query }) => contactPage(ctx, caller.userId, query.cursor, query.limit ?? 50, true), {
      query: pageQuery,
      ...operation({
        operationId: "listOptOuts",
        tag: "Opt-outs",
        scope: "contacts:read",
        summary: "List opted-out contacts, a page at a time",
        ok: { 200: { description: "A page of opted-out contacts", body: ContactPage } },
      }),
    })
    // POST /api/v1/opt-outs
    .post(
      "/opt-outs",
      ({ caller, body, headers, set }) =>
        idempotent(ctx, caller, headers["idempotency-key"], { path: "/opt-outs", body }, set, async () => ({ status: 201, body: await addOptOut(ctx, caller.userId, body.phone) })),
      {
        headers: idempotencyHeaders,
        body: t.Object({ phone }),
        ...operation({
          operationId: "addOptOut",
          tag: "Opt-outs",
          scope: "contacts:write",
          summary: "Opt a phone out of messages",
          description: "Record an opt-out your own system received (e.g. an unsubscribe in a shop): no message goes to this phone any more.",
          ok: { 201: { description: "The contact, opted out (made if the phone was unknown)", body: Contact } },
        }),
      },
    )
    // POST /api/v1/messages
    .post(
      "/messages",
      ({ caller, body, headers, set }) =>
        idempotent(ctx, caller, headers["idempotency-key"], { path: "/messages", body }, set, async () => ({ status: 202, body: (await sendChat(ctx, caller.userId, body)).body })),
      {
        headers: idempotencyHeaders,
        body: t.Object({
          phone,
          content: t.String({ maxLength: 1600, error: "content is the message text (at most 1,600 characters; empty only with mediaIds)" }),
          fromNumber: t.Optional(t.Nullable(t.String({ maxLength: 40, error: "fromNumber is one of your numbers" }))),
          mediaIds: t.Optional(
            t.Array(t.String({ maxLength: 64 }), {
              maxItems: MAX_MEDIA_PER_MESSAGE,
              error: `mediaIds lists at most ${MAX_MEDIA_PER_MESSAGE} uploads (POST /api/media)`,
              description: MEDIA_IDS_TEXT,
            }),
          ),
        }),
        ...operation({
          operationId: "sendMessage",
          tag: "Messages",
          scope: "messages:send",
          summary: "Send one SMS, or an MMS with mediaIds, through the outbox; send an Idempotency-Key so a retry never sends twice",
          description: SEND_MMS_TEXT,
          ok: { 202: { description: "Queued: its status follows in GET /api/v1/messages/{id}", body: QueuedMessage } },
          errors: { 402: "The plan's monthly message limit is reached" },
        }),
      },
    )
    // POST /api/v1/media
    // The file is the raw body (any content type: the type is read from the bytes); ?filename= names it.
    .post(
      "/media",
      async ({ caller, request, query, set }) => {
        const bytes = await readBytesWithin(request, MAX_MEDIA_UPLOAD_BYTES);
        set.status = 201;
        return uploadMedia(ctx, caller.userId, bytes, query.filename);
      },
      {
        parse: "none",
        query: t.Object({ filename: t.Optional(t.String({ maxLength: 200, error: "filename is at most 200 characters" })) }),
        ...operation({
          operationId: "uploadMedia",
          tag: "Messages",
          scope: "messages:send",
          summary: "Upload a picture or file to send in an MMS (mediaIds of POST /api/v1/messages)",
          description: UPLOAD_MEDIA_TEXT,
          rawBody: UPLOAD_BODY_TEXT,
          ok: { 201: { description: "Stored: pass its id in mediaIds", body: UploadedMedia } },
          errors: { 413: "The file is too large, or a picture could not be made small enough (the message says its size and the limit)", 415: "Not a type an MMS carries" },
        }),
      },
    )
    // GET /api/v1/segments
    .get("/segments", async ({ caller, query }) => pageOfList(await listSegments(ctx, caller.userId), query.cursor, query.limit ?? 50), {
      query: pageQuery,
      ...operation({
        operationId: "listSegments",
        tag: "Segments",
        scope: "segments:read",
        summary: "List segments with their stored contact counts",
        ok: { 200: { description: "A page of segments", body: SegmentPage } },
      }),
    })
    // GET /api/v1/keywords
    .get("/keywords", async ({ caller, query }) => pageOfList((await listKeywords(ctx, caller.userId)).data, query.cursor, query.limit ?? 50), {
      query: pageQuery,
      ...operation({
        operationId: "listKeywords",
        tag: "Keywords",
        scope: "keywords:read",
        summary: "List text-to-join keywords with their opt-ins",
        ok: { 200: { description: "A page of keywords", body: KeywordPage } },
      }),
    })
    // POST /api/v1/events
    .post(
      "/events",
      ({ caller, body, headers, set }) =>
        idempotent(ctx, caller, headers["idempotency-key"], { path: "/events", body }, set, async () => {
          const phone = body.phone === undefined ? undefined : await recipientPhone(ctx, caller.userId, body.phone);
          return { status: 201, body: await recordPurchase(ctx, caller.userId, { contactId: body.contactId, phone, amount: body.amount, data: body.data }) };
        }),
      {
        headers: idempotencyHeaders,
        body: t.Object({
          type: t.Literal("purchase", { error: "The only event type is purchase" }),
          contactId: t.Optional(t.String({ maxLength: 64, error: "contactId is at most 64 characters" })),
          phone: t.Optional(phone),
          // What it adds to the contact's total spent (the segments' totalSpent, in cents there).
          amount: t.Optional(
            t.Number({ minimum: 0, maximum: 1_000_000, error: "amount is the purchase's total, a number from 0 to 1,000,000 (such as 49.99)" }),
          ),
          // Any JSON value, checked by the automation domain (at most 50 short fields).
          data: t.Optional(t.Any()),
        }),
        ...operation({
          operationId: "recordEvent",
          tag: "Events",
          scope: "events:write",
          summary:
            "Report a purchase for a contact, by id or phone: automation rules trigger on it; its amount adds to the contact's total spent, and it counts in the contact's purchases of the last 90 days and engagement score",
          ok: { 201: { description: "Recorded", body: RecordedEvent } },
        }),
      },
    )
    // POST /api/v1/campaigns
    .post(
      "/campaigns",
      ({ caller, body, headers, set }) =>
        idempotent(ctx, caller, headers["idempotency-key"], { path: "/campaigns", body }, set, async () => ({ status: 201, body: await createApiCampaign(ctx, caller, body) })),
      {
        headers: idempotencyHeaders,
        body: t.Object({
          name: t.String({ minLength: 1, maxLength: 200, error: "name is 1 to 200 characters" }),
          content: t.String({ minLength: 1, maxLength: 1600, error: "content is the message text (1 to 1,600 characters)" }),
          segmentId: t.Optional(t.String({ maxLength: 64, error: "segmentId is at most 64 characters" })),
          contactIds: t.Optional(
            t.Array(t.String({ maxLength: 64 }), { minItems: 1, maxItems: 10_000, error: "contactIds lists 1 to 10,000 contact ids" }),
          ),
          fromNumber: t.Optional(t.Nullable(t.String({ maxLength: 40, error: "fromNumber is one of your numbers" }))),
          abTest: t.Optional(NewAbTest),
        }),
        ...operation({
          operationId: "createCampaign",
          tag: "Campaigns",
          scope: "campaigns:write",
          summary: "Create a draft SMS campaign to a segment or to contacts by id, optionally an A/B test of its text",
          ok: { 201: { description: "The draft", body: Campaign } },
        }),
      },
    )
    // POST /api/v1/campaigns/:id/send
    .post(
      "/campaigns/:id/send",
      async ({ caller, params, body, headers, set }) => {
        const acknowledged = body?.acknowledgeRegistration === true;
        // The registration check reads the audience in pieces, so before the key's synchronous transaction: it
        // refuses only a draft or scheduled campaign, never one a stored answer (a send that ran) is for.
        await assertRegistrationAcknowledged(ctx, await ownerOf(ctx, caller), params.id, acknowledged);
        // The body is hashed as sent (none, or the acknowledgement): a refused send retried with the same key and
        // acknowledgeRegistration runs, since a refusal stores no answer.
        return idempotent(ctx, caller, headers["idempotency-key"], { path: `/campaigns/${params.id}/send`, body: body ?? null }, set, async () => ({
          status: 202,
          body: await sendCampaign(ctx, await ownerOf(ctx, caller), params.id, null),
        }));
      },
      {
        params: idParams,
        headers: idempotencyHeaders,
        body: t.Optional(
          t.Object({
            acknowledgeRegistration: t.Optional(t.Boolean({ description: ACKNOWLEDGE_REGISTRATION_TEXT, error: "acknowledgeRegistration must be true or false" })),
          }),
        ),
        ...operation({
          operationId: "sendCampaign",
          tag: "Campaigns",
          scope: "campaigns:write",
          summary: "Send a draft campaign now",
          description:
            "As the app's Send button does, it first checks the sender's US carrier registration: a sender carriers block for some recipients " +
            "(a local number not registered for A2P 10DLC, a toll-free number not verified) is refused with 409 and the warning until the call is " +
            "repeated with acknowledgeRegistration: true.",
          ok: { 202: { description: "Sending: its progress follows in GET /api/v1/campaigns/{id}", body: CampaignSend } },
          errors: {
            402: "The plan's monthly message limit is reached",
            409: {
              description:
                "Nothing was sent: the campaign is not a draft or scheduled, or (with registrationWarning) its sender is not registered with US carriers for some recipients",
              body: SendRefusal,
            },
          },
        }),
      },
    )
    // GET /api/v1/campaigns/:id
    .get("/campaigns/:id", ({ caller, params }) => campaignViewOf(ctx, caller.userId, params.id), {
      params: idParams,
      ...operation({
        operationId: "getCampaign",
        tag: "Campaigns",
        scope: "campaigns:read",
        summary: "A campaign with its progress: counts per message status",
        ok: { 200: { description: "The campaign", body: Campaign } },
      }),
    })
    // GET /api/v1/messages/:id
    .get("/messages/:id", async ({ caller, params }) => withMedia(ctx, await getMessage(ctx, caller.userId, params.id)), {
      params: idParams,
      ...operation({
        operationId: "getMessage",
        tag: "Messages",
        scope: "messages:read",
        summary: "A message and its delivery status",
        ok: { 200: { description: "The message", body: Message } },
      }),
    });
}
