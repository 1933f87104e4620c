import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;
const createdAt = () => integer("created_at", { mode: "timestamp_ms" }).notNull().default(now);

export type OnboardingAnswers = {
  businessName: string;
  industry: string;
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
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const emailVerifications = sqliteTable("email_verifications", {
  userId: text("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
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
    /** Digits of `phone` (formatting stripped): duplicate groups and search. */
    phoneDigits: text("phone_digits").generatedAlwaysAs(
      sql`replace(replace(replace(replace(replace(replace(coalesce(phone, ''), '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '')`,
      { mode: "virtual" },
    ),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    customFields: text("custom_fields", { mode: "json" }).$type<Record<string, string>>().notNull().default(sql`'{}'`),
    status: text("status", { enum: ["subscribed", "opted_out"] }).notNull().default("subscribed"),
    source: text("source", { enum: ["manual", "import", "keyword", "api"] }).notNull().default("manual"),
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
    index("contacts_user_digits_idx").on(t.userId, t.phoneDigits),
    index("contacts_user_name_idx").on(t.userId, t.firstName, t.lastName),
  ],
);

/** Every opt-in and opt-out, with its time, source and the text of the consent. */
export const contactConsents = sqliteTable(
  "contact_consents",
  {
    id: text("id").primaryKey(),
    contactId: text("contact_id").notNull().references(() => contacts.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["opt_in", "opt_out"] }).notNull(),
    source: text("source", { enum: ["manual", "import", "keyword", "api"] }).notNull(),
    text: text("text"),
    createdAt: createdAt(),
  },
  (t) => [index("contact_consents_contact_idx").on(t.contactId, t.createdAt)],
);

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
    progress: integer("progress").notNull().default(0),
    error: text("error"),
    createdAt: createdAt(),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("contact_imports_user_idx").on(t.userId, t.createdAt)],
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

export const campaigns = sqliteTable(
  "campaigns",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: ["sms", "email"] }).notNull().default("sms"),
    status: text("status", {
      enum: ["draft", "scheduled", "sending", "paused", "completed", "failed", "cancelled"],
    })
      .notNull()
      .default("draft"),
    content: text("content").notNull().default(""),
    createdAt: createdAt(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("campaigns_user_status_idx").on(t.userId, t.status)],
);

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
    status: text("status").notNull().default("queued"),
    createdAt: createdAt(),
  },
  (t) => [index("messages_user_direction_created_idx").on(t.userId, t.direction, t.createdAt)],
);

/** Account security: TOTP secret (encrypted with the data folder's key), lockout counters. */
export const userSecurity = sqliteTable("user_security", {
  userId: text("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  totpSecretEncrypted: text("totp_secret_encrypted"),
  totpEnabledAt: integer("totp_enabled_at", { mode: "timestamp_ms" }),
  failedLogins: integer("failed_logins").notNull().default(0),
  lockedUntil: integer("locked_until", { mode: "timestamp_ms" }),
  googleSubject: text("google_subject").unique(),
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
  kind: text("kind", { enum: ["webauthn-register", "webauthn-login", "google"] }).notNull(),
  userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
  challenge: text("challenge").notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
});

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
  (t) => [index("licenses_user_idx").on(t.userId, t.startsAt)],
);
