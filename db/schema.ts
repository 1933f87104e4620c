import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { PROVIDER_KINDS } from "../shared/providers/kinds";

const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;
const createdAt = () => integer("created_at", { mode: "timestamp_ms" }).notNull().default(now);

/** The wizard's answers about customers (the business name and industry are the profile's columns, migration 0045). */
export type OnboardingAnswers = {
  customerType: string;
  goals: string[];
};

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash"),
  authProvider: text("auth_provider", { enum: ["password", "google"] }).notNull().default("password"),
  firstName: text("first_name").notNull().default(""),
  lastName: text("last_name").notNull().default(""),
  phone: text("phone"),
  profileImageUrl: text("profile_image_url"),
  role: text("role", { enum: ["user", "admin"] }).notNull().default("user"),
  emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
  disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
  timezone: text("timezone").notNull().default("America/New_York"),
  locale: text("locale").notNull().default("en-US"),
  dateFormat: text("date_format").notNull().default("MM/DD/YYYY"),
  onboarding: text("onboarding", { mode: "json" }).$type<OnboardingAnswers>(),
  onboardedAt: integer("onboarded_at", { mode: "timestamp_ms" }),
  /** The business profile (migration 0045): the name that signs replies and fills {business}, and its industry. */
  businessName: text("business_name"),
  industry: text("industry"),
  /** How a texter reaches the business (a phone, an email or a site): the HELP reply gives it. */
  businessContact: text("business_contact"),
  /** The HELP reply as the user wrote it; null: the default, with the business name and contact. */
  helpReply: text("help_reply"),
  /** Marketing sends wait outside these local hours (HH:MM, recipient's zone, else the account's). */
  quietHoursEnabled: integer("quiet_hours_enabled", { mode: "boolean" }).notNull().default(true),
  quietHoursStart: text("quiet_hours_start").notNull().default("21:00"),
  quietHoursEnd: text("quiet_hours_end").notNull().default("08:00"),
  /** Campaign messages end with 'Reply STOP to opt out' unless turned off. */
  appendOptOut: integer("append_opt_out", { mode: "boolean" }).notNull().default(true),
  /** At most this many campaign messages to one contact per 24 hours; null: no cap. */
  frequencyCapPerDay: integer("frequency_cap_per_day"),
  /** ISO country of numbers written without "+"; null: derived (src/users/default-country.ts). */
  defaultCountry: text("default_country"),
  /** The origin short links go out on (https://go.example.com); null: the installation's (LINK_DOMAIN, else PUBLIC_URL). Migration 0058. */
  linkDomain: text("link_domain"),
  createdAt: createdAt(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(now),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    userAgent: text("user_agent"),
    ip: text("ip"),
    lastSeenAt: integer("last_seen_at", { mode: "timestamp_ms" }),
    /** The last time its holder confirmed the password, a code or a passkey (src/auth/reauth.ts); a sign-in does not count. */
    confirmedAt: integer("confirmed_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const emailVerifications = sqliteTable("email_verifications", {
  userId: text("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  codeHash: text("code_hash").notNull(),
  sentAt: integer("sent_at", { mode: "timestamp_ms" }).notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  /** The current 24-hour window of codes sent and how many (capped per day, see email-verification.ts). */
  windowStartedAt: integer("window_started_at", { mode: "timestamp_ms" }).notNull().default(sql`0`),
  sendsInWindow: integer("sends_in_window").notNull().default(0),
});

/** An email change waiting for the code sent to the new address (migration 0045); one per user. */
export const emailChanges = sqliteTable("email_changes", {
  userId: text("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  newEmail: text("new_email").notNull(),
  codeHash: text("code_hash").notNull(),
  sentAt: integer("sent_at", { mode: "timestamp_ms" }).notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  attempts: integer("attempts").notNull().default(0),
});

export const passwordResets = sqliteTable(
  "password_resets",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("password_resets_user_idx").on(t.userId)],
);

export const supportMessages = sqliteTable("support_messages", {
  id: text("id").primaryKey(),
  userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
  name: text("name").notNull(),
  email: text("email").notNull(),
  company: text("company"),
  phone: text("phone"),
  subject: text("subject").notNull(),
  message: text("message").notNull(),
  priority: text("priority", { enum: ["low", "normal", "high", "critical"] }).notNull().default("normal"),
  createdAt: createdAt(),
  handledAt: integer("handled_at", { mode: "timestamp_ms" }),
});

export const errorReports = sqliteTable("error_reports", {
  id: text("id").primaryKey(),
  userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
  type: text("type").notNull().default("react_error"),
  message: text("message").notNull(),
  stack: text("stack"),
  componentStack: text("component_stack"),
  url: text("url"),
  userAgent: text("user_agent"),
  occurredAt: text("occurred_at"),
  createdAt: createdAt(),
});

export const contacts = sqliteTable(
  "contacts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    firstName: text("first_name").notNull().default(""),
    lastName: text("last_name").notNull().default(""),
    email: text("email"),
    phone: text("phone"),
    /** Digits of `phone` (formatting stripped): duplicate groups and the search index (not indexed: migration 0026). */
    phoneDigits: text("phone_digits").generatedAlwaysAs(
      sql`replace(replace(replace(replace(replace(replace(coalesce(phone, ''), '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '')`,
      { mode: "virtual" },
    ),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    customFields: text("custom_fields", { mode: "json" }).$type<Record<string, string>>().notNull().default(sql`'{}'`),
    status: text("status", { enum: ["subscribed", "opted_out"] }).notNull().default("subscribed"),
    /** 'inbound': created because the phone texted in; no marketing consent until it opts in (optInDate). */
    source: text("source", { enum: ["manual", "import", "keyword", "api", "provider", "inbound"] }).notNull().default("manual"),
    optInDate: integer("opt_in_date", { mode: "timestamp_ms" }),
    lastEngagedAt: integer("last_engaged_at", { mode: "timestamp_ms" }),
    totalSpent: integer("total_spent").notNull().default(0),
    engagementScore: integer("engagement_score").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("contacts_user_created_idx").on(t.userId, t.createdAt),
    uniqueIndex("contacts_user_phone_idx").on(t.userId, t.phone),
  ],
);

/**
 * The contacts in name order, one row per contact (migration 0042, WITHOUT ROWID: the table is its key): what an
 * index on (user_id, first_name, last_name) was, kept apart so that a CSV import adds its names sorted, after its
 * contacts (src/contacts/name-order.ts). Triggers keep it for every other write. Ordered by name_key (migration
 * 0052, src/contacts/name-key.ts): the first and last name folded to their base letters without regard to case.
 */
export const contactNames = sqliteTable(
  "contact_names",
  {
    userId: text("user_id").notNull(),
    nameKey: text("name_key").notNull(),
    contactRowid: integer("contact_rowid").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.nameKey, t.contactRowid] })],
);

/**
 * Each contact's tags as rows (migration 0064, WITHOUT ROWID: the table is its key), kept by triggers on every write of
 * contacts.tags: what a segment on a tag reads (src/contacts/filter-fields.ts) instead of every contact's JSON list.
 */
export const contactTags = sqliteTable(
  "contact_tags",
  {
    userId: text("user_id").notNull(),
    tag: text("tag").notNull(),
    /** The contact's creation time (migration 0079): a tag's contacts newest first are a range of the key. */
    createdAt: integer("created_at").notNull(),
    /** The contact's rowid (migration 0076; its id before): the index of contacts by creation order holds it. */
    contactRowid: integer("contact_rowid").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.tag, t.createdAt, t.contactRowid] })],
);

/**
 * Purchases reported for a contact (src/contacts/engagement.ts), each with its amount in cents and time: what the
 * segments' purchases in the last 90 days count (the event log is pruned sooner) and what totalSpent adds up.
 */
export const contactPurchases = sqliteTable(
  "contact_purchases",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    contactId: text("contact_id").notNull().references(() => contacts.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull().default(0),
    purchasedAt: integer("purchased_at").notNull(),
  },
  (t) => [index("contact_purchases_contact_idx").on(t.contactId, t.purchasedAt)],
);

/** Owners whose contacts stored before migration 0052 still wait for their name keys (written at the next start). */
export const contactNamesPending = sqliteTable("contact_names_pending", { userId: text("user_id").primaryKey() });

/**
 * The letters the name key folds, each with its base letter(s) and what the search folds it to (or null), read by the
 * triggers of contacts (migration 0052, src/contacts/name-key.ts): the same letters the JavaScript folds.
 */
export const nameFolds = sqliteTable("name_folds", { letter: text("letter").primaryKey(), base: text("base").notNull(), search: text("search") });

/** Every opt-in and opt-out, with its time, source and the text of the consent. */
export const contactConsents = sqliteTable(
  "contact_consents",
  {
    id: text("id").primaryKey(),
    contactId: text("contact_id").notNull().references(() => contacts.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["opt_in", "opt_out"] }).notNull(),
    source: text("source", { enum: ["manual", "import", "keyword", "api", "provider"] }).notNull(),
    text: text("text"),
    /** A keyword opt-in's sender number and keyword (migration 0013); null for other consents. */
    number: text("number"),
    keyword: text("keyword"),
    createdAt: createdAt(),
  },
  (t) => [
    index("contact_consents_contact_idx").on(t.contactId, t.createdAt),
    index("contact_consents_user_kind_created_idx").on(t.userId, t.kind, t.createdAt),
  ],
);

export type ImportDuplicate = { line: number; attemptedName: string; existingName: string; phone: string; existingContactId: string | null };

/** A CSV import running (or run) in the background; counts are exact, `errors` is capped. */
export const contactImports = sqliteTable(
  "contact_imports",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    state: text("state", { enum: ["queued", "running", "done", "failed"] }).notNull().default("queued"),
    rowsRead: integer("rows_read").notNull().default(0),
    created: integer("created").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    duplicates: integer("duplicates").notNull().default(0),
    invalid: integer("invalid").notNull().default(0),
    errors: text("errors", { mode: "json" }).$type<{ line: number; reason: string }[]>().notNull().default(sql`'[]'`),
    /** The first skipped duplicate rows (capped), each with the row's name and the stored contact's. */
    duplicateDetails: text("duplicate_details", { mode: "json" }).$type<ImportDuplicate[]>().notNull().default(sql`'[]'`),
    progress: integer("progress").notNull().default(0),
    error: text("error"),
    /** The rowid from which this import's contacts may still lack their row of contact_names (null: none do). */
    namesFrom: integer("names_from"),
    /** The file's header row (its cells), for the rejected rows' CSV in the file's own columns. */
    header: text("header", { mode: "json" }).$type<string[]>(),
    createdAt: createdAt(),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("contact_imports_user_idx").on(t.userId, t.createdAt)],
);

/**
 * The rows a CSV import refused for their phone number, with the cells the file had (migration 0048): the CSV the
 * user downloads to fix them and import them again.
 */
export const contactImportRejects = sqliteTable(
  "contact_import_rejects",
  {
    importId: text("import_id").notNull().references(() => contactImports.id, { onDelete: "cascade" }),
    line: integer("line").notNull(),
    reason: text("reason").notNull(),
    cells: text("cells", { mode: "json" }).$type<string[]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.line] })],
);

export const segments = sqliteTable(
  "segments",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    conditions: text("conditions", { mode: "json" }).$type<Record<string, Record<string, unknown>>>().notNull().default(sql`'{}'`),
    contactCount: integer("contact_count").notNull().default(0),
    lastUpdated: integer("last_updated", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("segments_user_idx").on(t.userId)],
);

export { PROVIDER_KINDS, type ProviderKind } from "../shared/providers/kinds";

/** Knobs of the built-in simulator provider (ignored by real providers). */
export type SimulatorSettings = {
  deliveryDelayMs: number;
  failRate: number;
  throttleRate: number;
  errorRate: number;
};

/** A user's account at an SMS provider. Credentials are sealed with the data folder's key, never returned. */
export const smsProviders = sqliteTable(
  "sms_providers",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: PROVIDER_KINDS }).notNull(),
    displayName: text("display_name").notNull(),
    credentialsEncrypted: text("credentials_encrypted").notNull(),
    /** Last 4 characters of the main credential, the most any call shows. */
    credentialHint: text("credential_hint").notNull().default(""),
    /** Overall ceiling across the account's numbers, in segments per second; null: the provider's default. */
    messagesPerSecond: real("messages_per_second"),
    /** What the account charges per SMS segment, in millionths of a dollar (cost estimates, spend); null: its usual price. */
    segmentPriceMicros: integer("segment_price_micros"),
    /** What the account charges per MMS, in millionths of a dollar (migration 0068); null: the provider's list price. */
    mmsPriceMicros: integer("mms_price_micros"),
    settings: text("settings", { mode: "json" }).$type<Partial<SimulatorSettings>>().notNull().default(sql`'{}'`),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [index("sms_providers_user_idx").on(t.userId)],
);

export const NUMBER_KINDS = ["long_code", "toll_free", "short_code", "alphanumeric"] as const;
export type NumberKind = (typeof NUMBER_KINDS)[number];

/** A sender line: a number (or sender name) of a provider account, with its own sending rate. */
export const phoneNumbers = sqliteTable(
  "phone_numbers",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    providerId: text("provider_id").notNull().references(() => smsProviders.id, { onDelete: "cascade" }),
    phoneNumber: text("phone_number").notNull(),
    displayName: text("display_name").notNull().default(""),
    kind: text("kind", { enum: NUMBER_KINDS }).notNull().default("long_code"),
    /** Segments per second this number may send. */
    messagesPerSecond: real("messages_per_second").notNull().default(1),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("phone_numbers_user_number_idx").on(t.userId, t.phoneNumber), index("phone_numbers_provider_idx").on(t.providerId)],
);

/**
 * A sender number's pace as the whole installation keeps it (issue 31 item 2, src/phone-numbers/pace.ts): the next
 * free slot of its schedule, one segment every (1 s + guard) / rate, reserved by every process's sending engine per
 * batch in one conditional statement, so processes sending for one number send at its rate together, and a restart
 * carries on the schedule where it was. `granted` is what the last reservation was given (read back by it).
 */
export const numberPace = sqliteTable("number_pace", {
  phoneNumberId: text("phone_number_id").primaryKey().references(() => phoneNumbers.id, { onDelete: "cascade" }),
  nextAt: real("next_at").notNull(),
  granted: integer("granted").notNull(),
});

/** A provider account's ceiling across its numbers, kept as number_pace is (src/phone-numbers/pace.ts). */
export const accountPace = sqliteTable("account_pace", {
  smsProviderId: text("sms_provider_id").primaryKey().references(() => smsProviders.id, { onDelete: "cascade" }),
  nextAt: real("next_at").notNull(),
  granted: integer("granted").notNull(),
});

export const REGISTRATION_STATES = ["registered", "pending", "rejected", "unregistered", "not_applicable", "unknown"] as const;
export type RegistrationState = (typeof REGISTRATION_STATES)[number];
export const REGISTRATION_PROGRAMS = ["10dlc", "toll_free", "none"] as const;
export type RegistrationProgram = (typeof REGISTRATION_PROGRAMS)[number];

/** A sender number's carrier registration as its provider last reported it (issue 34 item 1). */
export const numberRegistrations = sqliteTable(
  "number_registrations",
  {
    phoneNumberId: text("phone_number_id").primaryKey().references(() => phoneNumbers.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    program: text("program", { enum: REGISTRATION_PROGRAMS }).notNull(),
    state: text("state", { enum: REGISTRATION_STATES }).notNull(),
    reason: text("reason"),
    detail: text("detail"),
    checkError: text("check_error"),
    checkedAt: integer("checked_at").notNull(),
  },
  (t) => [index("number_registrations_user_idx").on(t.userId)],
);

export const CAMPAIGN_STATUSES = ["draft", "scheduled", "sending", "paused", "completed", "failed", "cancelled"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** Who a campaign goes to: typed or uploaded numbers, or a choice among the contacts. */
export type CampaignAudience =
  | { kind: "manual" }
  | { kind: "all" | "recent" | "loyal" | "new" }
  | { kind: "contacts"; contactIds: string[] }
  | { kind: "segment"; segmentId: string };

/**
 * A campaign outbox still being written: `cursor` is the next recipient index (typed recipients) or the contacts
 * rowid after which the audience continues; every chunk is due at `dueAt` from the same sender. An A/B test's
 * writing (`ab`, issue 32 item 3) goes by steps: `split` keeps the audience in campaign_ab_rest under its split
 * order; `test` writes the first `size` of that order to the variants in turn (`cursor`: how many so far); `winner`
 * writes the rest the winner's text. Each step takes its rows off campaign_ab_rest in the chunk that writes them.
 */
export type OutboxWriting = {
  cursor: number;
  dueAt: number;
  sender: { numberId: string; providerId: string; phoneNumber: string };
  ab?: { step: "split" } | { step: "test"; size: number } | { step: "winner"; winner: number };
};

/**
 * A campaign's A/B test (issue 32 item 3): its 2-4 texts (variant A is the campaign's content), the percent of the
 * audience they go to (split evenly), what picks the winner, and after how many hours (null: the user picks).
 */
export type AbTest = { variants: string[]; testPercent: number; measure: "clicks" | "replies"; decideAfterHours: number | null };

export const campaigns = sqliteTable(
  "campaigns",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: ["sms", "email"] }).notNull().default("sms"),
    status: text("status", { enum: CAMPAIGN_STATUSES }).notNull().default("draft"),
    content: text("content").notNull().default(""),
    subject: text("subject"),
    fromEmail: text("from_email"),
    fromName: text("from_name"),
    fromNumber: text("from_number"),
    /** Typed or uploaded recipients (phones or addresses), for audience 'manual'. */
    recipients: text("recipients", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    audience: text("audience", { mode: "json" }).$type<CampaignAudience>().notNull().default(sql`'{"kind":"manual"}'`),
    scheduledAt: integer("scheduled_at", { mode: "timestamp_ms" }),
    /** Messages not sent this long after the intended time are expired instead of delivered stale. */
    expiresAfterMinutes: integer("expires_after_minutes").notNull().default(1440),
    appendOptOut: integer("append_opt_out", { mode: "boolean" }).notNull().default(true),
    /** Why the engine or the scheduler paused it, shown to the user. */
    pauseReason: text("pause_reason"),
    skippedOptedOut: integer("skipped_opted_out").notNull().default(0),
    skippedInvalid: integer("skipped_invalid").notNull().default(0),
    skippedDuplicate: integer("skipped_duplicate").notNull().default(0),
    archivedAt: integer("archived_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
    completedAt: integer("completed_at", { mode: "timestamp_ms" }),
    /** While a large campaign's outbox is still being written in chunks: where the next chunk starts (migration 0021). */
    outboxWriting: text("outbox_writing", { mode: "json" }).$type<OutboxWriting>(),
    /** Not marketing (an order update, an appointment): its messages are one-off ('single'), never held by quiet hours (migration 0047). */
    transactional: integer("transactional", { mode: "boolean" }).notNull().default(false),
    /** When the user chose to send its held messages at once: quiet hours hold none of its messages from then (migration 0047). */
    anyHourSince: integer("any_hour_since", { mode: "timestamp_ms" }),
    /** Links in its text go out as short links on the link domain, one per recipient and link (migration 0058). */
    shortenLinks: integer("shorten_links", { mode: "boolean" }).notNull().default(true),
    utmSource: text("utm_source"),
    utmMedium: text("utm_medium"),
    utmCampaign: text("utm_campaign"),
    /** Its short links answer "expired" (410) this many days after they were made. */
    linkExpiryDays: integer("link_expiry_days").notNull().default(90),
    /** Its A/B test, when it has one (migration 0066). */
    abTest: text("ab_test", { mode: "json" }).$type<AbTest>(),
    /** The winning variant (0 = A), set in the transaction that queues the rest of the audience's messages. */
    abWinner: integer("ab_winner"),
    abDecidedAt: integer("ab_decided_at", { mode: "timestamp_ms" }),
    /** "rule": the measure after the hours set; "user": picked by hand. */
    abDecidedBy: text("ab_decided_by", { enum: ["rule", "user"] }),
  },
  (t) => [index("campaigns_user_status_idx").on(t.userId, t.status), index("campaigns_user_created_idx").on(t.userId, t.createdAt)],
);

/** The rest of an A/B campaign's audience, split off at its start, who get the winner (migration 0066). */
export const campaignAbRest = sqliteTable(
  "campaign_ab_rest",
  {
    campaignId: text("campaign_id").notNull().references(() => campaigns.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    phone: text("phone").notNull(),
    contactId: text("contact_id"),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.position] })],
);

export const MESSAGE_STATUSES = [
  "queued", "sending", "sent", "delivered", "failed", "unknown", "skipped", "expired", "cancelled", "received",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * Every message in and out. Outbound rows are the durable outbox: written 'queued', marked 'sending' in a
 * committed transaction before the provider is called, then 'sent', 'failed' or back to 'queued' for a retry.
 * A row found 'sending' at start is marked 'unknown' and never sent again.
 */
export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    campaignId: text("campaign_id").references(() => campaigns.id, { onDelete: "set null" }),
    contactId: text("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    phone: text("phone").notNull(),
    content: text("content").notNull(),
    direction: text("direction", { enum: ["inbound", "outbound"] }).notNull(),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull().default("queued"),
    /** campaign: marketing (quiet hours apply); single: one-off, chat or a transactional campaign's; compliance: the one reply to STOP/START/HELP. */
    kind: text("kind", { enum: ["campaign", "single", "compliance"] }).notNull().default("single"),
    providerId: text("provider_id").references(() => smsProviders.id, { onDelete: "set null" }),
    phoneNumberId: text("phone_number_id").references(() => phoneNumbers.id, { onDelete: "set null" }),
    fromNumber: text("from_number"),
    providerMessageId: text("provider_message_id"),
    segments: integer("segments").notNull().default(1),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull().default(0),
    /** Past this instant (ms) a queued message is expired, not sent. */
    expiresAt: integer("expires_at"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: createdAt(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
    deliveredAt: integer("delivered_at", { mode: "timestamp_ms" }),
    /** What one segment cost (millionths of a dollar) at the provider account's price when the provider accepted it. */
    segmentPriceMicros: integer("segment_price_micros"),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }),
    /** Its place in the thread of (userId, phone): reserved from conversationSequence, so same-millisecond messages keep their order. */
    seq: integer("seq"),
    /** Which rule holds a queued marketing message, as shown ("Held: Florida law allows texts 8 AM–8 PM (...)"): migration 0054. */
    holdReason: text("hold_reason"),
    /** The A/B test variant (0 = A) of a test message (migration 0066); null for every other message. */
    abVariant: integer("ab_variant"),
    /** 1 once a picture or file is its own or linked to it (set by triggers on media and message_media, migration 0070). */
    mms: integer("mms").notNull().default(0),
  },
  (t) => [
    index("messages_user_phone_seq_idx").on(t.userId, t.phone, t.seq),
    index("messages_user_direction_created_idx").on(t.userId, t.direction, t.createdAt),
    uniqueIndex("messages_campaign_phone_idx").on(t.campaignId, t.phone).where(sql`campaign_id IS NOT NULL`),
    index("messages_campaign_status_idx").on(t.campaignId, t.status),
    index("messages_outbox_idx").on(t.phoneNumberId, t.status, t.nextAttemptAt),
    uniqueIndex("messages_provider_id_idx").on(t.providerId, t.providerMessageId).where(sql`provider_message_id IS NOT NULL`),
    index("messages_user_phone_idx").on(t.userId, t.phone, t.createdAt),
    // A deleted contact's messages are found through it (the foreign key's SET NULL): migration 0040.
    index("messages_contact_idx").on(t.contactId).where(sql`contact_id IS NOT NULL`),
    index("messages_provider_idx").on(t.providerId).where(sql`provider_id IS NOT NULL`),
    // An A/B test's messages, the only ones with a variant, for its report: migration 0073.
    index("messages_ab_variant_idx").on(t.campaignId, t.abVariant, t.status, t.sentAt).where(sql`ab_variant IS NOT NULL`),
    // Messages a stop left being reconciled or sent again, read at each start: migration 0075.
    index("messages_reconciling_idx").on(t.errorCode).where(sql`error_code IN ('reconciling', 'resending')`),
  ],
);

/**
 * Delivery reports that came before their message had its provider id recorded (a fast provider calls back before
 * its send returns), kept for the message (src/messages/messages.ts): in the database, so a report reaching one
 * process of an installation is applied when another records the id (issue 31 item 2). At most
 * EARLY_REPORTS_PER_ACCOUNT per account (the oldest, by id, go first) and for EARLY_REPORT_TTL_MS.
 */
export const earlyReports = sqliteTable(
  "early_reports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    providerId: text("provider_id").notNull().references(() => smsProviders.id, { onDelete: "cascade" }),
    providerMessageId: text("provider_message_id").notNull(),
    status: text("status").notNull(),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [uniqueIndex("early_reports_message_idx").on(t.providerId, t.providerMessageId), index("early_reports_user_idx").on(t.userId, t.id)],
);

/**
 * A campaign's messages by status, and of each status how many never reached a provider (no sent_at). Kept by
 * triggers on messages (migration 0019), never written by the application: listing campaigns reads these rows
 * instead of counting messages.
 */
export const campaignMessageCounts = sqliteTable(
  "campaign_message_counts",
  {
    campaignId: text("campaign_id").notNull().references(() => campaigns.id, { onDelete: "cascade" }),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    n: integer("n").notNull().default(0),
    unsent: integer("unsent").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.status] })],
);

/**
 * Messages per account, bucket (of the time they reached the provider, else were written; keyed by its first
 * quarter hour, ms / 900000, and as wide as the account's zone allows: every local day is a whole range of them),
 * status, sender number, campaign and provider account ('' for none), with how many reached the provider, their
 * segments and what they cost at the prices recorded when they were sent. Kept by triggers on messages (migrations
 * 0020, 0034) for every message that has left the queue; the dashboards read these.
 */
export const messageRollups = sqliteTable(
  "message_rollups",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    quarterHour: integer("quarter_hour").notNull(),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    phoneNumberId: text("phone_number_id").notNull().default(""),
    campaignId: text("campaign_id").notNull().default(""),
    providerId: text("provider_id").notNull().default(""),
    n: integer("n").notNull().default(0),
    sent: integer("sent").notNull().default(0),
    segments: integer("segments").notNull().default(0),
    spendMicros: integer("spend_micros").notNull().default(0),
    /** Of these, the MMS: how many, how many reached the provider and what they cost (migration 0070). */
    mms: integer("mms").notNull().default(0),
    mmsSent: integer("mms_sent").notNull().default(0),
    mmsSpendMicros: integer("mms_spend_micros").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.quarterHour, t.status, t.phoneNumberId, t.campaignId, t.providerId] }),
    index("message_rollups_campaign_idx").on(t.campaignId, t.providerId).where(sql`campaign_id <> ''`),
  ],
);

/**
 * message_rollups summed per local day of the account's zone (keyed by its midnight's quarter hour), status, sender
 * number and campaign: the dashboards read whole days here (migration 0038). Kept by triggers on message_rollups,
 * so the two always agree; built from them when the account's zone is first stored or changes (src/results/buckets.ts).
 */
export const messageDayRollups = sqliteTable(
  "message_day_rollups",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    phoneNumberId: text("phone_number_id").notNull().default(""),
    campaignId: text("campaign_id").notNull().default(""),
    n: integer("n").notNull().default(0),
    sent: integer("sent").notNull().default(0),
    segments: integer("segments").notNull().default(0),
    spendMicros: integer("spend_micros").notNull().default(0),
    /** Of these, the MMS: how many, how many reached the provider and what they cost (migration 0070). */
    mms: integer("mms").notNull().default(0),
    mmsSent: integer("mms_sent").notNull().default(0),
    mmsSpendMicros: integer("mms_spend_micros").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day, t.status, t.phoneNumberId, t.campaignId] })],
);

/** The local midnights (quarter hours) of each zone in use from 2000 to 2040: the days of message_day_rollups. */
export const rollupDays = sqliteTable(
  "rollup_days",
  {
    zone: text("zone").notNull(),
    quarterHour: integer("quarter_hour").notNull(),
  },
  (t) => [primaryKey({ columns: [t.zone, t.quarterHour] })],
);

export const JOB_STATES = ["pending", "running", "done", "failed", "cancelled"] as const;

/**
 * Delayed work (src/jobs/): one row per step, its key unique so the same step is never queued twice. `runAt` is
 * when it was meant to run; `nextAttemptAt` is when it is due (back-off moves it). A worker holds a running job
 * until `leaseUntil`; past that a crashed worker's job is due again.
 */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    refId: text("ref_id"),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
    runAt: integer("run_at").notNull(),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    state: text("state", { enum: JOB_STATES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: integer("lease_until"),
    lastError: text("last_error"),
    result: text("result", { mode: "json" }),
    createdAt: createdAt(),
    updatedAt: integer("updated_at"),
    doneAt: integer("done_at"),
  },
  (t) => [
    uniqueIndex("jobs_key_idx").on(t.key),
    index("jobs_due_idx").on(t.state, t.nextAttemptAt),
    index("jobs_lease_idx").on(t.state, t.leaseUntil),
    // A pass flooded with one kind finds the other kinds' due jobs through this (migration 0033).
    index("jobs_kind_due_idx").on(t.kind, t.state, t.nextAttemptAt),
    index("jobs_ref_idx").on(t.refId),
    index("jobs_user_idx").on(t.userId, t.state),
  ],
);

/**
 * The event log: what happened, written in the same transaction as the change it reports (src/events/). The id is
 * AUTOINCREMENT so an id is never reused after pruning: a consumer's cursor never skips a newer event.
 */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    subjectKind: text("subject_kind").notNull(),
    subjectId: text("subject_id").notNull(),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("events_user_id_idx").on(t.userId, t.id), index("events_created_idx").on(t.createdAt)],
);

/** How far each consumer of the event log (webhooks, automation) has read, advanced in its own transaction. */
export const eventCursors = sqliteTable("event_cursors", {
  consumer: text("consumer").primaryKey(),
  lastId: integer("last_id").notNull().default(0),
  updatedAt: integer("updated_at").notNull(),
});

/** Settings an administrator sets for the whole installation, one row per key (JSON value). */
export const systemSettings = sqliteTable("system_settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** An administrator's line of the state rule table (src/sending/state-rules.ts), replacing or adding a state's: migration 0055. */
export const stateRuleOverrides = sqliteTable("state_rule_overrides", {
  state: text("state").primaryKey(),
  allowedFrom: text("allowed_from"),
  allowedUntil: text("allowed_until"),
  capPer24h: integer("cap_per_24h"),
  source: text("source").notNull(),
  checked: text("checked").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Account security: TOTP secret (encrypted with the data folder's key), the wrong-code counter. */
export const userSecurity = sqliteTable("user_security", {
  userId: text("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  totpSecretEncrypted: text("totp_secret_encrypted"),
  totpEnabledAt: integer("totp_enabled_at", { mode: "timestamp_ms" }),
  googleSubject: text("google_subject").unique(),
  failedCodes: integer("failed_codes").notNull().default(0),
  codesLockedUntil: integer("codes_locked_until", { mode: "timestamp_ms" }),
  /** The last TOTP time step accepted from this user: a code works once, in every process (migration 0071). */
  totpLastStep: integer("totp_last_step"),
});

export const backupCodes = sqliteTable(
  "backup_codes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("backup_codes_user_idx").on(t.userId)],
);

export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    deviceType: text("device_type").notNull().default("singleDevice"),
    backedUp: integer("backed_up", { mode: "boolean" }).notNull().default(false),
    name: text("name").notNull().default("My Device"),
    createdAt: createdAt(),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("passkeys_user_idx").on(t.userId)],
);

/** One pending WebAuthn or OAuth ceremony; consumed once, expires in minutes. */
export const authChallenges = sqliteTable("auth_challenges", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ["webauthn-register", "webauthn-login", "google", "login-2fa"] }).notNull(),
  userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
  challenge: text("challenge").notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  attempts: integer("attempts").notNull().default(0),
});

/**
 * Fixed windows of the rate limits (src/http/rate-limit.ts per rule and client, src/public-api/guard.ts per API
 * key): the hits counted since the window began and when it ends, held in the database so every process of an
 * installation (and a restarted one) counts the same (issue 31). Times in epoch milliseconds.
 */
export const rateWindows = sqliteTable(
  "rate_windows",
  {
    key: text("key").primaryKey(),
    hits: integer("hits").notNull(),
    resetsAt: integer("resets_at").notNull(),
  },
  (t) => [index("rate_windows_resets_at_idx").on(t.resetsAt)],
);

/**
 * Wrong passwords counted per email and client address (src/auth/lockout.ts); `address` '' is the email's count
 * across addresses. Times in epoch milliseconds; 0 when never blocked.
 */
export const signInFailures = sqliteTable(
  "sign_in_failures",
  {
    email: text("email").notNull(),
    address: text("address").notNull(),
    failures: integer("failures").notNull(),
    blockedUntil: integer("blocked_until").notNull(),
    lastFailureAt: integer("last_failure_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.email, t.address] })],
);

/**
 * Sign-ups waiting for their emailed code (src/auth/sign-up.ts), found by the keyed hash of their token: a sign-up
 * started on one process is finished on another. `userId` null: the address had an account (a code imitated).
 */
export const pendingSignUps = sqliteTable(
  "pending_sign_ups",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    license: text("license").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    attempts: integer("attempts").notNull(),
    sentAt: integer("sent_at").notNull(),
    windowStartedAt: integer("window_started_at").notNull(),
    sends: integer("sends").notNull(),
  },
  (t) => [index("pending_sign_ups_created_idx").on(t.createdAt)],
);

export const plans = sqliteTable("plans", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  price: integer("price").notNull(),
  monthlyContacts: integer("monthly_contacts").notNull(),
  monthlyMessages: integer("monthly_messages").notNull(),
  phoneNumbers: integer("phone_numbers").notNull(),
  features: text("features", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
  sortOrder: integer("sort_order").notNull().default(0),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(now),
});

export const licenseCodes = sqliteTable(
  "license_codes",
  {
    code: text("code").primaryKey(),
    planId: text("plan_id").notNull().references(() => plans.id),
    durationDays: integer("duration_days").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    redeemedBy: text("redeemed_by").references(() => users.id, { onDelete: "set null" }),
    redeemedAt: integer("redeemed_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("license_codes_plan_idx").on(t.planId)],
);

export const licenses = sqliteTable(
  "licenses",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    planId: text("plan_id").notNull().references(() => plans.id),
    source: text("source", { enum: ["trial", "code", "admin"] }).notNull(),
    code: text("code"),
    startsAt: integer("starts_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("licenses_user_idx").on(t.userId, t.startsAt),
    // One trial per account (migration 0077): its start is one INSERT ... ON CONFLICT DO NOTHING.
    uniqueIndex("licenses_one_trial_idx").on(t.userId).where(sql`source = 'trial'`),
  ],
);

/**
 * Text-to-join keywords (src/keywords/). `matchKey` is the keyword in the matcher's normal form (NFKC, case-folded);
 * `numbers` the E.164 sender numbers it listens on (empty: all of the account's numbers); `alreadyReply` null means
 * a subscriber who texts it again gets no reply.
 */
export const keywords = sqliteTable(
  "keywords",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    keyword: text("keyword").notNull(),
    matchKey: text("match_key").notNull(),
    matchMode: text("match_mode", { enum: ["whole", "first_word"] }).notNull().default("whole"),
    shortCode: text("short_code"),
    numbers: text("numbers", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    autoReply: text("auto_reply").notNull(),
    alreadyReply: text("already_reply"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    doubleOptIn: integer("double_opt_in", { mode: "boolean" }).notNull().default(false),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    /** The replies' links go out as short links (issue 32); false: as written. */
    shortenLinks: integer("shorten_links", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("keywords_user_key_idx").on(t.userId, t.matchKey)],
);

/**
 * One number's opt-in through one keyword: pending until a double opt-in is confirmed, then confirmed (counted on
 * the keyword's card); `repliedAt` is the subscriber's first later message (the card's response rate).
 */
export const keywordOptIns = sqliteTable(
  "keyword_opt_ins",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    keywordId: text("keyword_id").notNull().references(() => keywords.id, { onDelete: "cascade" }),
    phone: text("phone").notNull(),
    number: text("number"),
    status: text("status", { enum: ["pending", "confirmed"] }).notNull(),
    createdAt: createdAt(),
    confirmedAt: integer("confirmed_at", { mode: "timestamp_ms" }),
    repliedAt: integer("replied_at", { mode: "timestamp_ms" }),
  },
  (t) => [uniqueIndex("keyword_opt_ins_keyword_phone_idx").on(t.keywordId, t.phone), index("keyword_opt_ins_user_phone_idx").on(t.userId, t.phone)],
);

export const TEMPLATE_CATEGORIES = ["restaurant", "retail", "service", "healthcare", "fitness", "custom"] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

/** An account's own message templates (src/templates/); the built-in samples live in code, not here. */
export const templates = sqliteTable(
  "templates",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    category: text("category", { enum: TEMPLATE_CATEGORIES }).notNull(),
    content: text("content").notNull(),
    usageCount: integer("usage_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("templates_user_idx").on(t.userId, t.createdAt)],
);

/** How often each account used each built-in sample template (the samples are shared; their counts are not). */
export const builtinTemplateUses = sqliteTable(
  "builtin_template_uses",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    templateId: text("template_id").notNull(),
    usageCount: integer("usage_count").notNull().default(0),
  },
  (t) => [uniqueIndex("builtin_template_uses_pk").on(t.userId, t.templateId)],
);

export const CONVERSATION_STATES = ["open", "closed", "archived", "deleted"] as const;

/**
 * One thread per contact phone per account (src/conversations/); its messages are the messages rows of the same
 * (userId, phone), ordered by their `seq` (its contact is the account's contact with that phone). `clearedSeq`: a
 * deleted thread shows only what came after it.
 */
export const conversations = sqliteTable(
  "conversations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    phone: text("phone").notNull(),
    state: text("state", { enum: CONVERSATION_STATES }).notNull().default("open"),
    lastSeq: integer("last_seq").notNull().default(0),
    lastReadSeq: integer("last_read_seq").notNull().default(0),
    unreadCount: integer("unread_count").notNull().default(0),
    clearedSeq: integer("cleared_seq").notNull().default(0),
    /** The number the contact last wrote to: the sticky sender of replies. */
    replyFrom: text("reply_from"),
    /**
     * The seq of an inbound message read as a possible opt-out (shared/keywords/plain-opt-out.ts), until the owner opts
     * the contact out or dismisses it: the thread is listed first meanwhile.
     */
    possibleOptOutSeq: integer("possible_opt_out_seq"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("conversations_user_phone_idx").on(t.userId, t.phone),
    index("conversations_user_last_idx").on(t.userId, t.lastSeq),
    index("conversations_user_unread_idx").on(t.userId).where(sql`unread_count > 0`),
    index("conversations_possible_opt_out_idx").on(t.userId).where(sql`possible_opt_out_seq IS NOT NULL`),
  ],
);

/** The one counter messages' `seq` is reserved from (a single row, id 1). */
export const conversationSequence = sqliteTable("conversation_sequence", {
  id: integer("id").primaryKey(),
  value: integer("value").notNull(),
});

/** POST /api/messages answers kept per account and Idempotency-Key for 24 h. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    response: text("response").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

/** Public API keys: only the SHA-256 of the key is stored, with its visible prefix; shown once at creation. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    service: text("service").notNull().default(""),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    permissions: text("permissions", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    /** The session that made it (sessions.id): ending that session by a password change or reset ends the key (migration 0052). */
    createdBySession: text("created_by_session"),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.keyHash), index("api_keys_user_idx").on(t.userId, t.createdAt)],
);

/** Outbound webhooks (src/outbound-webhooks/): a user's endpoints; `previousSecret` still signs until its time. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    url: text("url").notNull(),
    events: text("events", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** Signing secrets, sealed (src/secrets/encryption.ts); an older version's clear ones are sealed at start. */
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretUntil: integer("previous_secret_until"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    disabledReason: text("disabled_reason"),
    failingSince: integer("failing_since"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at"),
    /** The session that made it or last set its URL or secret (sessions.id), as for api_keys (migration 0052). */
    createdBySession: text("created_by_session"),
  },
  (t) => [index("webhook_endpoints_user_idx").on(t.userId)],
);

/** One event sent to one endpoint: its payload kept for redelivery, its attempts and the last answer. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id").notNull().references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    eventId: integer("event_id"),
    /** The event (and, for a batch, its message) it was made from: each is delivered once per endpoint. */
    source: text("source"),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    rounds: integer("rounds").notNull().default(0),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    /** The receiver is not public (an allow-listed LAN): the answer is kept but not shown to the tenant. */
    responseHidden: integer("response_hidden").notNull().default(0),
    error: text("error"),
    latencyMs: integer("latency_ms"),
    lastAttemptAt: integer("last_attempt_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_source_idx").on(t.endpointId, t.source),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    // /metrics' last hour of attempts (migration 0041).
    index("webhook_deliveries_attempted_idx").on(t.lastAttemptAt).where(sql`last_attempt_at IS NOT NULL`),
    // An account's pending deliveries, counted before a test send (migration 0050).
    index("webhook_deliveries_pending_idx").on(t.userId).where(sql`status = 'pending'`),
  ],
);

/** Drip campaigns (src/drips/): steps as JSON ({ delay, unit, sendAtHour, content }[]), exits, re-entry, lateness. */
export const dripCampaigns = sqliteTable(
  "drip_campaigns",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    trigger: text("trigger").notNull(),
    steps: text("steps").notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    exitOnReply: integer("exit_on_reply", { mode: "boolean" }).notNull().default(true),
    goalTag: text("goal_tag"),
    segmentId: text("segment_id"),
    reentryDays: integer("reentry_days"),
    latePolicy: text("late_policy").notNull().default("skip"),
    lateAfterMinutes: integer("late_after_minutes").notNull().default(60),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("drip_campaigns_user_idx").on(t.userId, t.createdAt)],
);

/** One contact's run through a drip, with its own copy of the steps (an edit applies to it only when asked). */
export const dripEnrolments = sqliteTable(
  "drip_enrolments",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    dripId: text("drip_id").notNull().references(() => dripCampaigns.id, { onDelete: "cascade" }),
    contactId: text("contact_id").notNull(),
    state: text("state").notNull(),
    exitReason: text("exit_reason"),
    steps: text("steps").notNull(),
    nextStep: integer("next_step").notNull().default(0),
    nextAt: integer("next_at"),
    lastAt: integer("last_at").notNull(),
    enrolledAt: integer("enrolled_at").notNull(),
    endedAt: integer("ended_at"),
  },
  (t) => [
    uniqueIndex("drip_enrolments_active_idx").on(t.dripId, t.contactId).where(sql`state = 'active'`),
    index("drip_enrolments_drip_idx").on(t.dripId, t.enrolledAt),
    index("drip_enrolments_contact_idx").on(t.contactId, t.state),
  ],
);

/** What each step of an enrolment did: sent (with its message), skipped and why, deferred by quiet hours. */
export const dripStepLog = sqliteTable(
  "drip_step_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    enrolmentId: text("enrolment_id").notNull().references(() => dripEnrolments.id, { onDelete: "cascade" }),
    step: integer("step").notNull(),
    outcome: text("outcome").notNull(),
    reason: text("reason"),
    messageId: text("message_id"),
    at: integer("at").notNull(),
  },
  (t) => [index("drip_step_log_enrolment_idx").on(t.enrolmentId, t.id)],
);

/**
 * Automation rules (src/automation/): a trigger (and its settings), conditions as segments have them or a
 * segment's membership, and actions. `triggerCount` counts the runs that did their actions.
 */
export const automationRules = sqliteTable(
  "automation_rules",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    trigger: text("trigger").notNull(),
    triggerConfig: text("trigger_config", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
    conditions: text("conditions", { mode: "json" }).$type<Record<string, Record<string, unknown>>>().notNull().default(sql`'{}'`),
    segmentId: text("segment_id"),
    actions: text("actions", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    triggerCount: integer("trigger_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("automation_rules_user_idx").on(t.userId, t.trigger)],
);

/**
 * One rule's run for one trigger: unique per (rule, trigger key) — the event id, or for the clock's triggers the
 * contact and the day — so nothing fires twice. Outcome done (its actions in `detail`), skipped (why) or failed.
 */
export const automationRuns = sqliteTable(
  "automation_runs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    ruleId: text("rule_id").notNull().references(() => automationRules.id, { onDelete: "cascade" }),
    contactId: text("contact_id"),
    triggerKey: text("trigger_key").notNull(),
    eventId: integer("event_id"),
    outcome: text("outcome", { enum: ["done", "skipped", "failed"] }).notNull(),
    detail: text("detail", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("automation_runs_rule_key_idx").on(t.ruleId, t.triggerKey), index("automation_runs_rule_idx").on(t.ruleId, t.createdAt)],
);

export const MEDIA_STATUSES = ["stored", "pending", "failed", "orphaned"] as const;

/**
 * Pictures and files of MMS (migration 0061): the bytes live in the data folder (media/<user>/<id>), the type read
 * from them. A message's items in `position` order; no message yet while an upload waits to be sent. A trigger on
 * messages marks an item `orphaned` when its message is deleted, and the media domain removes its file.
 */
export const media = sqliteTable(
  "media",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    messageId: text("message_id"),
    position: integer("position").notNull().default(0),
    contentType: text("content_type").notNull(),
    filename: text("filename").notNull(),
    size: integer("size").notNull().default(0),
    status: text("status", { enum: MEDIA_STATUSES }).notNull().default("stored"),
    sourceUrl: text("source_url"),
    error: text("error"),
    createdAt: createdAt(),
    /** A campaign's, template's or drip's attachment ('campaign:<id>', 'template:<id>', 'drip:<id>'), shared by the messages linked to it (migration 0067). */
    heldBy: text("held_by"),
  },
  (t) => [
    index("media_message_idx").on(t.messageId, t.position),
    index("media_user_idx").on(t.userId, t.createdAt),
    index("media_status_idx").on(t.status).where(sql`status <> 'stored'`),
    index("media_held_idx").on(t.heldBy, t.position).where(sql`held_by IS NOT NULL`),
    index("media_loose_idx").on(t.createdAt).where(sql`message_id IS NULL AND held_by IS NULL`),
  ],
);

/** Which shared attachments (held by a campaign, template or drip) each message carries, in order (migration 0067). */
export const messageMedia = sqliteTable(
  "message_media",
  {
    messageId: text("message_id").notNull(),
    position: integer("position").notNull(),
    mediaId: text("media_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.position] }), index("message_media_media_idx").on(t.mediaId)],
);

/**
 * A link of a campaign or other message source (a drip, a keyword, an automation rule), once per distinct link and
 * target: what every recipient's short link of it shares (migration 0074; before, each short link repeated it).
 */
export const links = sqliteTable(
  "links",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    campaignId: text("campaign_id").references(() => campaigns.id, { onDelete: "cascade" }),
    /** Whose messages carry it: `campaign:<id>`, `drip:<id>`, `keyword:<id>`, `automation:<id>`; `message` before 0074. */
    source: text("source").notNull(),
    /** The link as written in the message. */
    url: text("url").notNull(),
    /** Where the redirect goes: the link with the campaign's UTM parameters. */
    target: text("target").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("links_source_idx").on(t.userId, t.source, t.url, t.target), index("links_campaign_idx").on(t.campaignId)],
);

/**
 * A short link: one per recipient and link of a message, so a click names its message (and through it the contact)
 * and the link. Its code is its id encoded (src/links/codes.ts) with the installation's key (short_link_keys); a
 * short link made before migration 0074 keeps its drawn `code`, which only those have.
 */
export const shortLinks = sqliteTable(
  "short_links",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    code: text("code"),
    linkId: integer("link_id")
      .notNull()
      .references(() => links.id, { onDelete: "cascade" }),
    messageId: text("message_id"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at"),
  },
  (t) => [index("short_links_link_idx").on(t.linkId), uniqueIndex("short_links_code_idx").on(t.code).where(sql`code IS NOT NULL`)],
);

/** The key short links' codes are encoded with (src/links/codes.ts): one row, made at the first short link. */
export const shortLinkKeys = sqliteTable("short_link_keys", {
  id: integer("id").primaryKey(),
  key: text("key").notNull(),
});

/** Every hit of a short link, classified (shared/links/classify.ts); only verdict 'human' counts (migration 0058). */
export const linkClicks = sqliteTable(
  "link_clicks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    code: text("code").notNull(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    campaignId: text("campaign_id"),
    contactId: text("contact_id"),
    url: text("url").notNull(),
    at: integer("at").notNull(),
    method: text("method").notNull(),
    userAgent: text("user_agent"),
    addressClass: text("address_class").notNull(),
    verdict: text("verdict").notNull(),
    reason: text("reason").notNull(),
    /** The short link clicked (short_links.id, migration 0074); null for a hit of a link no longer kept. */
    shortLinkId: integer("short_link_id"),
  },
  (t) => [
    index("link_clicks_campaign_idx").on(t.campaignId, t.verdict),
    index("link_clicks_contact_idx").on(t.contactId, t.verdict, t.at),
    index("link_clicks_short_link_idx").on(t.shortLinkId, t.verdict),
    index("link_clicks_user_at_idx").on(t.userId, t.at),
  ],
);
