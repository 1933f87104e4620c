import { t, type TSchema } from "elysia";
import type { ApiScope } from "../api-keys/keys";
import { AB_LIMITS } from "../../shared/campaigns/ab-stats";
import { CAMPAIGN_STATUSES } from "../campaigns/campaigns";
import { MESSAGE_STATUSES } from "../messages/messages";
import { CARRIER_SAFE_BYTES, formatBytes, NOT_AN_MMS_FILE, WEBHOOK_MEDIA_URL_TTL_MS } from "../../shared/media/limits";
import { ACCEPTED_TYPES } from "../../shared/media/sniff";
import { cannotSendMms, PROVIDER_NAMES, SENDS_MMS } from "../../shared/providers/mms";
import type { ProviderKind } from "../providers/types";

/*
 * What each /api/v1 operation answers, as the OpenAPI document and /api/docs show it. The schemas are TypeBox so a
 * test can check the API's real answers against them; fields are listed as the views write them (nullable ones
 * are `T | null`, never absent).
 */

const nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);
const time = t.String({ format: "date-time" });

export const ErrorBody = t.Object(
  {
    message: t.String({ description: "What went wrong, in words to show a person" }),
    code: t.String({ description: "validation, unauthorized, plan_limit, forbidden, not_found, conflict, rate_limited…" }),
  },
  { description: "An error: the status's code and a message; some carry more fields (retryAfter on a 429)" },
);

export const Contact = t.Object({
  id: t.String(),
  firstName: t.String(),
  lastName: t.String(),
  email: nullable(t.String()),
  phone: nullable(t.String({ description: "E.164, e.g. +14155550123" })),
  tags: t.Array(t.String()),
  customFields: t.Record(t.String(), t.String()),
  status: t.Union([t.Literal("subscribed"), t.Literal("opted_out")]),
  source: t.Union(["manual", "import", "keyword", "api", "provider", "inbound"].map((s) => t.Literal(s))),
  optInDate: nullable(time),
  lastEngagedAt: nullable(time),
  totalSpent: t.Number(),
  engagementScore: t.Number(),
  createdAt: time,
  updatedAt: time,
});

const pageOf = <T extends TSchema>(item: T) =>
  t.Object({ data: t.Array(item), nextCursor: nullable(t.String({ description: "Pass it as cursor for the next page; null on the last page" })) });

export const ContactPage = pageOf(Contact);

const messageStatus = t.Union(MESSAGE_STATUSES.map((s) => t.Literal(s)));
const KINDS = Object.keys(SENDS_MMS) as ProviderKind[];
const list = (kinds: ProviderKind[]) => kinds.map((k) => PROVIDER_NAMES[k]).join(", ");

/** POST /api/v1/messages's mediaIds, from the constants the server enforces. */
export const MEDIA_IDS_TEXT =
  `Pictures and files to send as one MMS, in order: ids of uploads made with POST /api/v1/media (the raw file as the body, ` +
  `?filename= to name it). Each is ${ACCEPTED_TYPES}, within ${formatBytes(CARRIER_SAFE_BYTES)} (a larger JPEG or PNG is ` +
  `made smaller on upload), and is sent with one message only. With mediaIds, content may be empty: a picture alone.`;

/** POST /api/v1/media's description and body, from the constants the server enforces. */
export const UPLOAD_MEDIA_TEXT =
  `Upload one picture or file to send in an MMS: the request body is the file's bytes (any Content-Type: the type is read ` +
  `from the bytes), ?filename= names it. Accepted: ${ACCEPTED_TYPES}; anything else is refused with 415 ("${NOT_AN_MMS_FILE}"). ` +
  `A JPEG or PNG over ${formatBytes(CARRIER_SAFE_BYTES)} is made smaller (resizedFrom says from what size); what cannot be made ` +
  `small enough is refused with 413 naming its size and the limit. Pass the id in mediaIds of POST /api/v1/messages; an upload ` +
  `never sent is removed after a day.`;
export const UPLOAD_BODY_TEXT = "The file's bytes (JPEG, PNG, GIF, PDF or vCard), at most 12 MB before it is made smaller";

/** POST /api/v1/messages's description: who sends MMS and what refuses one. */
export const SEND_MMS_TEXT =
  `With mediaIds the message is an MMS, sent only from a number of ${list(KINDS.filter((k) => SENDS_MMS[k]))}; ` +
  `${list(KINDS.filter((k) => !SENDS_MMS[k]))} numbers refuse it with 400 before anything is queued ` +
  `("${cannotSendMms(KINDS.find((k) => !SENDS_MMS[k])!)}"). An upload that is not an MMS type is refused by POST /api/v1/media ` +
  `with 415 ("${NOT_AN_MMS_FILE}"). The answer and GET /api/v1/messages/{id} list the items in media; the message ` +
  `events of outbound webhooks carry them with signed URLs good for ${WEBHOOK_MEDIA_URL_TTL_MS / 86_400_000} days.`;

/** A picture or file of an MMS. */
export const MediaItem = t.Object({
    id: t.String(),
    contentType: t.String({ description: "Read from the file's bytes: image/jpeg, image/png, image/gif, application/pdf, text/vcard, or application/octet-stream for anything else received" }),
    filename: t.String(),
    size: t.Integer({ description: "Bytes" }),
    status: t.Union([t.Literal("stored"), t.Literal("pending"), t.Literal("failed")], { description: "pending: a received item still being copied from the provider" }),
    error: nullable(t.String({ description: "Why a received item is not stored yet (pending) or at all (failed); null once stored" })),
    url: t.String({ description: "Where a signed-in user opens it (GET /api/media/{id})" }),
  });

/** What POST /api/v1/media answers: the stored item, and the size it was made smaller from. */
export const UploadedMedia = t.Object({
  ...MediaItem.properties,
  resizedFrom: nullable(t.Integer({ description: "The size uploaded, when the picture was made smaller to fit; null when stored as sent" })),
});

const messageFields = {
  id: t.String(),
  phone: t.String(),
  content: t.String(),
  direction: t.Union([t.Literal("inbound"), t.Literal("outbound")]),
  status: messageStatus,
  fromNumber: nullable(t.String()),
  segments: t.Integer({ description: "SMS segments the text takes" }),
  errorCode: nullable(t.String()),
  errorMessage: nullable(t.String()),
  campaignId: nullable(t.String()),
  createdAt: time,
  sentAt: nullable(time),
  deliveredAt: nullable(time),
  media: t.Array(MediaItem, { description: "An MMS's pictures and files, in order; empty for a text" }),
};


export const Message = t.Object({ ...messageFields, contactId: nullable(t.String()) });

export const QueuedMessage = t.Object({
  ...messageFields,
  notice: nullable(t.String({ description: "A warning near the plan's monthly limit" })),
});

const skipped = t.Object({ optedOut: t.Integer(), invalid: t.Integer(), duplicate: t.Integer() });

export const Campaign = t.Object({
  id: t.String(),
  name: t.String(),
  type: t.Union([t.Literal("sms"), t.Literal("email")]),
  status: t.Union(CAMPAIGN_STATUSES.map((s) => t.Literal(s))),
  content: t.String(),
  fromNumber: nullable(t.String()),
  scheduledAt: nullable(time),
  createdAt: time,
  sentAt: nullable(time),
  completedAt: nullable(time),
  counts: t.Object(
    Object.fromEntries(
      ["recipients", "pending", "sending", "sent", "delivered", "failed", "refused", "unknown", "skipped", "expired", "cancelled"].map((k) => [k, t.Integer()]),
    ),
    { description: "Messages per status" },
  ),
  skipped,
  totalSent: t.Integer(),
  totalDelivered: t.Integer(),
  successRate: nullable(t.Number({ description: "Delivered per sent, in percent" })),
  abTest: nullable(
    t.Object(
      {
        variants: t.Array(t.Object({ label: t.String({ description: "A, B, C or D" }), content: t.String() }), {
          description: "The texts tested, A first (the campaign's content)",
        }),
        testPercent: t.Integer({ description: "The share of the audience the test goes to, split evenly between the variants" }),
        measure: t.Union([t.Literal("clicks"), t.Literal("replies")], { description: "What picks the winner: the human click rate or the reply rate" }),
        decideAfterHours: nullable(t.Integer({ description: "Hours after the start at which the winner is picked and sent to the rest; null: by hand in the app" })),
        winner: nullable(t.String({ description: "The winning variant's label once picked" })),
        decidedAt: nullable(time),
        decidedBy: nullable(t.Union([t.Literal("rule"), t.Literal("user")])),
      },
      { description: "Its A/B test: variants of the text sent to a share of the audience, the winner then sent to the rest" },
    ),
  ),
});

/** POST /api/v1/campaigns's abTest: the variants (A first), the test share, the measure and when to decide. */
export const NewAbTest = t.Object(
  {
    variants: t.Array(t.String({ minLength: 1, maxLength: 1600 }), {
      minItems: AB_LIMITS.variants.min,
      maxItems: AB_LIMITS.variants.max,
      description: "The texts to test, each different: the first is variant A, the campaign's content",
      error: `abTest.variants lists ${AB_LIMITS.variants.min} to ${AB_LIMITS.variants.max} texts, the first being content`,
    }),
    testPercent: t.Integer({
      minimum: AB_LIMITS.testPercent.min,
      maximum: AB_LIMITS.testPercent.max,
      description: "The share of the audience, in percent, the variants go to (split evenly); the rest get the winner",
      error: `abTest.testPercent is a whole percent from ${AB_LIMITS.testPercent.min} to ${AB_LIMITS.testPercent.max}`,
    }),
    measure: t.Union([t.Literal("clicks"), t.Literal("replies")], {
      description: "clicks: the human click rate of the variants' short links (each variant needs a link); replies: the reply rate",
      error: "abTest.measure is clicks or replies",
    }),
    decideAfterHours: t.Optional(
      nullable(
        t.Integer({
          minimum: AB_LIMITS.decideAfterHours.min,
          maximum: AB_LIMITS.decideAfterHours.max,
          description: "Hours after the start at which the leader is sent to the rest; null or left out: picked by hand in the app",
          error: `abTest.decideAfterHours is ${AB_LIMITS.decideAfterHours.min} to ${AB_LIMITS.decideAfterHours.max} whole hours, or null`,
        }),
      ),
    ),
  },
  { description: "An A/B test of the campaign's text", error: "abTest has variants, testPercent, measure and optionally decideAfterHours" },
);

export const CampaignSend = t.Object({
  campaign: Campaign,
  queued: t.Integer({ description: "Messages put in the outbox" }),
  skipped,
  notice: nullable(t.String()),
});

/** What a campaign's send warns of when carriers block its sender for some recipients (issue 34 item 1). */
export const RegistrationWarning = t.Object(
  {
    phoneNumber: t.String({ description: "The campaign's sender" }),
    program: t.Union([t.Literal("10dlc"), t.Literal("toll_free")], { description: "A2P 10DLC for a US local number; toll-free verification" }),
    state: t.Union([t.Literal("pending"), t.Literal("rejected"), t.Literal("unregistered")]),
    blockedRecipients: t.Integer({ description: "Recipients whose carriers block the sender's texts (US numbers; US or Canadian for toll-free)" }),
    message: t.String({ description: "The warning, in words to show a person" }),
    reason: nullable(t.String({ description: "The provider's reason (a rejection's, in the reviewers' words)" })),
    todo: nullable(t.String({ description: "What to do about it" })),
    checkedAt: nullable(time),
  },
  { description: "The sender's carrier registration, as last read from the provider" },
);

/** POST /api/v1/campaigns/{id}/send's 409: an error, with the warning when that is why. */
export const SendRefusal = t.Object(
  {
    message: t.String({ description: "Why nothing was sent, in words to show a person (with the warning: how to send anyway)" }),
    code: t.Literal("conflict"),
    registrationWarning: t.Optional(RegistrationWarning),
  },
  { description: "A campaign send refused: sent already, or a carrier registration warning not acknowledged (registrationWarning)" },
);

/** POST /api/v1/campaigns/{id}/send's acknowledgeRegistration, as /api/docs shows it. */
export const ACKNOWLEDGE_REGISTRATION_TEXT =
  "true to send although the sender is not registered with US carriers (A2P 10DLC, or toll-free verification): without it, " +
  "a draft or scheduled campaign whose sender carriers block for some of its recipients is refused with 409 and the warning, and nothing is sent.";

export const Segment = t.Object({
  id: t.String(),
  name: t.String(),
  conditions: t.Unknown({ description: "The segment's rules, as the segment editor keeps them" }),
  contactCount: t.Integer({ description: "Contacts in it when it was last counted" }),
  lastUpdated: nullable(time),
  createdAt: time,
});

export const Keyword = t.Object({
  id: t.String(),
  keyword: t.String(),
  autoReply: t.String(),
  tags: t.Array(t.String()),
  isActive: t.Boolean(),
  optInCount: t.Integer(),
  pendingCount: t.Integer(),
  createdAt: time,
});

export const SegmentPage = pageOf(Segment);
export const KeywordPage = pageOf(Keyword);

export const RecordedEvent = t.Object({ eventId: t.Integer(), contactId: t.String() });

export const Deleted = t.Object({ deleted: t.Literal(true) });

/** Names of the schemas the document lists once under components and refers to. */
export const SCHEMAS: Record<string, TSchema> = {
  Contact,
  ContactPage,
  MediaItem,
  UploadedMedia,
  Message,
  QueuedMessage,
  Campaign,
  NewAbTest,
  CampaignSend,
  RegistrationWarning,
  SendRefusal,
  SegmentPage,
  KeywordPage,
  RecordedEvent,
  Deleted,
  Error: ErrorBody,
};

export type OperationSpec = {
  operationId: string;
  tag: string;
  scope: ApiScope;
  summary: string;
  description?: string;
  /** Success answers: status to its meaning and body. */
  ok: Record<number, { description: string; body: TSchema }>;
  /**
   * Error answers beyond the ones every operation may give (401, 403, 429; 400 with input; 404 by id; 422 on POST):
   * a meaning (the body is an Error), or a meaning with its own body.
   */
  errors?: Record<number, string | { description: string; body: TSchema }>;
  /** A body that is raw bytes, not JSON (POST /api/v1/media): what it is. */
  rawBody?: string;
};

/**
 * A route's permission and its documentation in one place: the key guard's `apiScope`, and the `detail` the
 * document is built from (the guard's macro keeps no trace the document could read).
 */
export const operation = (spec: OperationSpec) => ({ apiScope: spec.scope, detail: { summary: spec.summary, contract: spec } });
