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
    createdAt: createdAt(),
  },
  (t) => [
    index("contacts_user_created_idx").on(t.userId, t.createdAt),
    uniqueIndex("contacts_user_phone_idx").on(t.userId, t.phone),
  ],
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
