-- PostgreSQL's baseline (db/postgres/baseline.ts): the schema of every SQLite migration up to this one,
--> statement-breakpoint
-- written by scripts/gen-postgres-migrations.ts from a database those migrations made.
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent;
--> statement-breakpoint
CREATE TABLE "users" (
  "id" text NOT NULL,
  "email" text NOT NULL,
  "password_hash" text,
  "auth_provider" text NOT NULL DEFAULT 'password',
  "first_name" text NOT NULL DEFAULT '',
  "last_name" text NOT NULL DEFAULT '',
  "phone" text,
  "profile_image_url" text,
  "role" text NOT NULL DEFAULT 'user',
  "email_verified" bigint NOT NULL DEFAULT 0,
  "disabled" bigint NOT NULL DEFAULT 0,
  "timezone" text NOT NULL DEFAULT 'America/New_York',
  "locale" text NOT NULL DEFAULT 'en-US',
  "date_format" text NOT NULL DEFAULT 'MM/DD/YYYY',
  "onboarding" text,
  "onboarded_at" bigint,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "updated_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "quiet_hours_enabled" bigint NOT NULL DEFAULT 1,
  "quiet_hours_start" text NOT NULL DEFAULT '21:00',
  "quiet_hours_end" text NOT NULL DEFAULT '08:00',
  "append_opt_out" bigint NOT NULL DEFAULT 1,
  "frequency_cap_per_day" bigint,
  "default_country" text,
  "business_name" text,
  "industry" text,
  "business_contact" text,
  "help_reply" text,
  "link_domain" text,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "name" text NOT NULL,
  "service" text NOT NULL DEFAULT '',
  "prefix" text NOT NULL,
  "key_hash" text NOT NULL,
  "permissions" text NOT NULL DEFAULT '[]',
  "created_at" bigint NOT NULL,
  "last_used_at" bigint,
  "expires_at" bigint,
  "revoked_at" bigint,
  "created_by_session" text,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "auth_challenges" (
  "id" text NOT NULL,
  "kind" text NOT NULL,
  "user_id" text,
  "challenge" text NOT NULL,
  "expires_at" bigint NOT NULL,
  "attempts" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "automation_rules" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "name" text NOT NULL,
  "trigger" text NOT NULL,
  "trigger_config" text NOT NULL DEFAULT '{}',
  "conditions" text NOT NULL DEFAULT '{}',
  "segment_id" text,
  "actions" text NOT NULL DEFAULT '{}',
  "is_active" bigint NOT NULL DEFAULT 1,
  "trigger_count" bigint NOT NULL DEFAULT 0,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "updated_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "automation_runs" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "rule_id" text NOT NULL,
  "contact_id" text,
  "trigger_key" text NOT NULL,
  "event_id" bigint,
  "outcome" text NOT NULL,
  "detail" text NOT NULL DEFAULT '[]',
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("rule_id") REFERENCES "automation_rules" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "backup_codes" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "code_hash" text NOT NULL,
  "used_at" bigint,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "builtin_template_uses" (
  "user_id" text NOT NULL,
  "template_id" text NOT NULL,
  "usage_count" bigint NOT NULL DEFAULT 0,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "name" text NOT NULL,
  "type" text NOT NULL DEFAULT 'sms',
  "status" text NOT NULL DEFAULT 'draft',
  "content" text NOT NULL DEFAULT '',
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "sent_at" bigint,
  "subject" text,
  "from_email" text,
  "from_name" text,
  "from_number" text,
  "recipients" text NOT NULL DEFAULT '[]',
  "audience" text NOT NULL DEFAULT '{"kind":"manual"}',
  "scheduled_at" bigint,
  "expires_after_minutes" bigint NOT NULL DEFAULT 1440,
  "append_opt_out" bigint NOT NULL DEFAULT 1,
  "pause_reason" text,
  "skipped_opted_out" bigint NOT NULL DEFAULT 0,
  "skipped_invalid" bigint NOT NULL DEFAULT 0,
  "skipped_duplicate" bigint NOT NULL DEFAULT 0,
  "archived_at" bigint,
  "updated_at" bigint,
  "completed_at" bigint,
  "outbox_writing" text,
  "transactional" bigint NOT NULL DEFAULT 0,
  "any_hour_since" bigint,
  "shorten_links" bigint NOT NULL DEFAULT 1,
  "utm_source" text,
  "utm_medium" text,
  "utm_campaign" text,
  "link_expiry_days" bigint NOT NULL DEFAULT 90,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "campaign_message_counts" (
  "campaign_id" text NOT NULL,
  "status" text NOT NULL,
  "n" bigint NOT NULL DEFAULT 0,
  "unsent" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("campaign_id", "status"),
  FOREIGN KEY ("campaign_id") REFERENCES "campaigns" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "contacts" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "first_name" text NOT NULL DEFAULT '',
  "last_name" text NOT NULL DEFAULT '',
  "email" text,
  "phone" text,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "phone_digits" text GENERATED ALWAYS AS (replace(replace(replace(replace(replace(replace(coalesce(phone, ''), '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '')) STORED,
  "tags" text NOT NULL DEFAULT '[]',
  "custom_fields" text NOT NULL DEFAULT '{}',
  "status" text NOT NULL DEFAULT 'subscribed',
  "source" text NOT NULL DEFAULT 'manual',
  "opt_in_date" bigint,
  "last_engaged_at" bigint,
  "total_spent" bigint NOT NULL DEFAULT 0,
  "engagement_score" bigint NOT NULL DEFAULT 0,
  "updated_at" bigint,
  "rowid" bigint GENERATED BY DEFAULT AS IDENTITY UNIQUE,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "contact_consents" (
  "id" text NOT NULL,
  "contact_id" text NOT NULL,
  "user_id" text NOT NULL,
  "kind" text NOT NULL,
  "source" text NOT NULL,
  "text" text,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "number" text,
  "keyword" text,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "contact_imports" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "state" text NOT NULL DEFAULT 'queued',
  "rows_read" bigint NOT NULL DEFAULT 0,
  "created" bigint NOT NULL DEFAULT 0,
  "updated" bigint NOT NULL DEFAULT 0,
  "duplicates" bigint NOT NULL DEFAULT 0,
  "invalid" bigint NOT NULL DEFAULT 0,
  "errors" text NOT NULL DEFAULT '[]',
  "progress" bigint NOT NULL DEFAULT 0,
  "error" text,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "finished_at" bigint,
  "duplicate_details" text NOT NULL DEFAULT '[]',
  "names_from" bigint,
  "header" text,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "contact_import_rejects" (
  "import_id" text NOT NULL,
  "line" bigint NOT NULL,
  "reason" text NOT NULL,
  "cells" text NOT NULL,
  PRIMARY KEY ("import_id", "line"),
  FOREIGN KEY ("import_id") REFERENCES "contact_imports" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "contact_names" (
  "user_id" text NOT NULL,
  "name_key" text NOT NULL,
  "contact_rowid" bigint NOT NULL,
  PRIMARY KEY ("user_id", "name_key", "contact_rowid")
);
--> statement-breakpoint
CREATE TABLE "contact_names_pending" (
  "user_id" text NOT NULL,
  PRIMARY KEY ("user_id")
);
--> statement-breakpoint
CREATE TABLE "contact_purchases" (
  "id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "user_id" text NOT NULL,
  "contact_id" text NOT NULL,
  "amount_cents" bigint NOT NULL DEFAULT 0,
  "purchased_at" bigint NOT NULL,
  FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "contact_rollups" (
  "user_id" text NOT NULL,
  "quarter_hour" bigint NOT NULL,
  "n" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("user_id", "quarter_hour"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "contact_tags" (
  "user_id" text NOT NULL,
  "tag" text NOT NULL,
  "contact_id" text NOT NULL,
  PRIMARY KEY ("user_id", "tag", "contact_id")
);
--> statement-breakpoint
CREATE TABLE "contact_totals" (
  "user_id" text NOT NULL,
  "total" bigint NOT NULL DEFAULT 0,
  "with_email" bigint NOT NULL DEFAULT 0,
  "with_phone" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("user_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "conversation_sequence" (
  "id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "value" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversations" (
  "id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "user_id" text NOT NULL,
  "phone" text NOT NULL,
  "state" text NOT NULL DEFAULT 'open',
  "last_seq" bigint NOT NULL DEFAULT 0,
  "last_read_seq" bigint NOT NULL DEFAULT 0,
  "unread_count" bigint NOT NULL DEFAULT 0,
  "cleared_seq" bigint NOT NULL DEFAULT 0,
  "reply_from" text,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  "possible_opt_out_seq" bigint,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "drip_campaigns" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "name" text NOT NULL,
  "trigger" text NOT NULL,
  "steps" text NOT NULL,
  "is_active" bigint NOT NULL DEFAULT 1,
  "exit_on_reply" bigint NOT NULL DEFAULT 1,
  "goal_tag" text,
  "segment_id" text,
  "reentry_days" bigint,
  "late_policy" text NOT NULL DEFAULT 'skip',
  "late_after_minutes" bigint NOT NULL DEFAULT 60,
  "created_at" bigint NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "drip_enrolments" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "drip_id" text NOT NULL,
  "contact_id" text NOT NULL,
  "state" text NOT NULL,
  "exit_reason" text,
  "steps" text NOT NULL,
  "next_step" bigint NOT NULL DEFAULT 0,
  "next_at" bigint,
  "last_at" bigint NOT NULL,
  "enrolled_at" bigint NOT NULL,
  "ended_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("drip_id") REFERENCES "drip_campaigns" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "drip_step_log" (
  "id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "enrolment_id" text NOT NULL,
  "step" bigint NOT NULL,
  "outcome" text NOT NULL,
  "reason" text,
  "message_id" text,
  "at" bigint NOT NULL,
  FOREIGN KEY ("enrolment_id") REFERENCES "drip_enrolments" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "email_changes" (
  "user_id" text NOT NULL,
  "new_email" text NOT NULL,
  "code_hash" text NOT NULL,
  "sent_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  "attempts" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("user_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "email_verifications" (
  "user_id" text NOT NULL,
  "code_hash" text NOT NULL,
  "sent_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  "attempts" bigint NOT NULL DEFAULT 0,
  "window_started_at" bigint NOT NULL DEFAULT 0,
  "sends_in_window" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("user_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "error_reports" (
  "id" text NOT NULL,
  "user_id" text,
  "type" text NOT NULL DEFAULT 'react_error',
  "message" text NOT NULL,
  "stack" text,
  "component_stack" text,
  "url" text,
  "user_agent" text,
  "occurred_at" text,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE SET NULL
);
--> statement-breakpoint
CREATE TABLE "event_cursors" (
  "consumer" text NOT NULL,
  "last_id" bigint NOT NULL DEFAULT 0,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("consumer")
);
--> statement-breakpoint
CREATE TABLE "events" (
  "id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "user_id" text,
  "type" text NOT NULL,
  "subject_kind" text NOT NULL,
  "subject_id" text NOT NULL,
  "payload" text NOT NULL,
  "created_at" bigint NOT NULL,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
  "user_id" text NOT NULL,
  "key" text NOT NULL,
  "request_hash" text NOT NULL,
  "status" bigint NOT NULL,
  "response" text NOT NULL,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("user_id", "key"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "jobs" (
  "id" text NOT NULL,
  "kind" text NOT NULL,
  "key" text NOT NULL,
  "user_id" text,
  "ref_id" text,
  "payload" text NOT NULL DEFAULT '{}',
  "run_at" bigint NOT NULL,
  "next_attempt_at" bigint NOT NULL,
  "state" text NOT NULL DEFAULT 'pending',
  "attempts" bigint NOT NULL DEFAULT 0,
  "lease_until" bigint,
  "last_error" text,
  "result" text,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "updated_at" bigint,
  "done_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "keywords" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "keyword" text NOT NULL,
  "match_key" text NOT NULL,
  "match_mode" text NOT NULL DEFAULT 'whole',
  "short_code" text,
  "numbers" text NOT NULL DEFAULT '[]',
  "auto_reply" text NOT NULL,
  "already_reply" text,
  "tags" text NOT NULL DEFAULT '[]',
  "double_opt_in" bigint NOT NULL DEFAULT 0,
  "is_active" bigint NOT NULL DEFAULT 1,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "updated_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "keyword_opt_ins" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "keyword_id" text NOT NULL,
  "phone" text NOT NULL,
  "number" text,
  "status" text NOT NULL,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "confirmed_at" bigint,
  "replied_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("keyword_id") REFERENCES "keywords" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "plans" (
  "id" text NOT NULL,
  "name" text NOT NULL,
  "price" bigint NOT NULL,
  "monthly_contacts" bigint NOT NULL,
  "monthly_messages" bigint NOT NULL,
  "phone_numbers" bigint NOT NULL,
  "features" text NOT NULL DEFAULT '[]',
  "sort_order" bigint NOT NULL DEFAULT 0,
  "updated_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id")
);
--> statement-breakpoint
CREATE TABLE "license_codes" (
  "code" text NOT NULL,
  "plan_id" text NOT NULL,
  "duration_days" bigint NOT NULL,
  "created_by" text,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "revoked_at" bigint,
  "redeemed_by" text,
  "redeemed_at" bigint,
  PRIMARY KEY ("code"),
  FOREIGN KEY ("redeemed_by") REFERENCES "users" ("id") ON DELETE SET NULL,
  FOREIGN KEY ("created_by") REFERENCES "users" ("id") ON DELETE SET NULL,
  FOREIGN KEY ("plan_id") REFERENCES "plans" ("id")
);
--> statement-breakpoint
CREATE TABLE "licenses" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "plan_id" text NOT NULL,
  "source" text NOT NULL,
  "code" text,
  "starts_at" bigint NOT NULL,
  "expires_at" bigint,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("plan_id") REFERENCES "plans" ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "link_clicks" (
  "id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  "code" text NOT NULL,
  "user_id" text NOT NULL,
  "campaign_id" text,
  "contact_id" text,
  "url" text NOT NULL,
  "at" bigint NOT NULL,
  "method" text NOT NULL,
  "user_agent" text,
  "address_class" text NOT NULL,
  "verdict" text NOT NULL,
  "reason" text NOT NULL,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "media" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "message_id" text,
  "position" bigint NOT NULL DEFAULT 0,
  "content_type" text NOT NULL,
  "filename" text NOT NULL,
  "size" bigint NOT NULL DEFAULT 0,
  "status" text NOT NULL DEFAULT 'stored',
  "source_url" text,
  "error" text,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "message_day_rollups" (
  "user_id" text NOT NULL,
  "day" bigint NOT NULL,
  "status" text NOT NULL,
  "phone_number_id" text NOT NULL DEFAULT '',
  "campaign_id" text NOT NULL DEFAULT '',
  "n" bigint NOT NULL DEFAULT 0,
  "sent" bigint NOT NULL DEFAULT 0,
  "segments" bigint NOT NULL DEFAULT 0,
  "spend_micros" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("user_id", "day", "status", "phone_number_id", "campaign_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "message_rollups" (
  "user_id" text NOT NULL,
  "quarter_hour" bigint NOT NULL,
  "status" text NOT NULL,
  "phone_number_id" text NOT NULL DEFAULT '',
  "campaign_id" text NOT NULL DEFAULT '',
  "provider_id" text NOT NULL DEFAULT '',
  "n" bigint NOT NULL DEFAULT 0,
  "sent" bigint NOT NULL DEFAULT 0,
  "segments" bigint NOT NULL DEFAULT 0,
  "spend_micros" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("user_id", "quarter_hour", "status", "phone_number_id", "campaign_id", "provider_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "sms_providers" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "provider" text NOT NULL,
  "display_name" text NOT NULL,
  "credentials_encrypted" text NOT NULL,
  "credential_hint" text NOT NULL DEFAULT '',
  "messages_per_second" double precision,
  "settings" text NOT NULL DEFAULT '{}',
  "is_default" bigint NOT NULL DEFAULT 0,
  "is_active" bigint NOT NULL DEFAULT 1,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "segment_price_micros" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "phone_numbers" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "provider_id" text NOT NULL,
  "phone_number" text NOT NULL,
  "display_name" text NOT NULL DEFAULT '',
  "kind" text NOT NULL DEFAULT 'long_code',
  "messages_per_second" double precision NOT NULL DEFAULT 1,
  "is_default" bigint NOT NULL DEFAULT 0,
  "is_active" bigint NOT NULL DEFAULT 1,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("provider_id") REFERENCES "sms_providers" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "messages" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "campaign_id" text,
  "contact_id" text,
  "phone" text NOT NULL,
  "content" text NOT NULL,
  "direction" text NOT NULL,
  "status" text NOT NULL DEFAULT 'queued',
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "kind" text NOT NULL DEFAULT 'single',
  "provider_id" text,
  "phone_number_id" text,
  "from_number" text,
  "provider_message_id" text,
  "segments" bigint NOT NULL DEFAULT 1,
  "attempts" bigint NOT NULL DEFAULT 0,
  "next_attempt_at" bigint NOT NULL DEFAULT 0,
  "expires_at" bigint,
  "error_code" text,
  "error_message" text,
  "sent_at" bigint,
  "delivered_at" bigint,
  "updated_at" bigint,
  "seq" bigint,
  "segment_price_micros" bigint,
  "hold_reason" text,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON DELETE SET NULL,
  FOREIGN KEY ("campaign_id") REFERENCES "campaigns" ("id") ON DELETE SET NULL,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("phone_number_id") REFERENCES "phone_numbers" ("id") ON DELETE SET NULL,
  FOREIGN KEY ("provider_id") REFERENCES "sms_providers" ("id") ON DELETE SET NULL
);
--> statement-breakpoint
CREATE TABLE "name_folds" (
  "letter" text NOT NULL,
  "base" text NOT NULL,
  "search" text,
  PRIMARY KEY ("letter")
);
--> statement-breakpoint
CREATE TABLE "number_registrations" (
  "phone_number_id" text NOT NULL,
  "user_id" text NOT NULL,
  "program" text NOT NULL,
  "state" text NOT NULL,
  "reason" text,
  "detail" text,
  "check_error" text,
  "checked_at" bigint NOT NULL,
  PRIMARY KEY ("phone_number_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("phone_number_id") REFERENCES "phone_numbers" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "passkeys" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "public_key" text NOT NULL,
  "counter" bigint NOT NULL DEFAULT 0,
  "transports" text NOT NULL DEFAULT '[]',
  "device_type" text NOT NULL DEFAULT 'singleDevice',
  "backed_up" bigint NOT NULL DEFAULT 0,
  "name" text NOT NULL DEFAULT 'My Device',
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "last_used_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "password_resets" (
  "token_hash" text NOT NULL,
  "user_id" text NOT NULL,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "expires_at" bigint NOT NULL,
  "used_at" bigint,
  PRIMARY KEY ("token_hash"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "rollup_days" (
  "zone" text NOT NULL,
  "quarter_hour" bigint NOT NULL,
  PRIMARY KEY ("zone", "quarter_hour")
);
--> statement-breakpoint
CREATE TABLE "rollup_granularity" (
  "user_id" text NOT NULL,
  "quarters" bigint NOT NULL,
  "zone" text,
  PRIMARY KEY ("user_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "segments" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "name" text NOT NULL,
  "conditions" text NOT NULL DEFAULT '{}',
  "contact_count" bigint NOT NULL DEFAULT 0,
  "last_updated" bigint,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "sessions" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "expires_at" bigint NOT NULL,
  "revoked_at" bigint,
  "user_agent" text,
  "ip" text,
  "last_seen_at" bigint,
  "confirmed_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "short_links" (
  "code" text NOT NULL,
  "user_id" text NOT NULL,
  "campaign_id" text,
  "message_id" text,
  "contact_id" text,
  "phone" text NOT NULL,
  "url" text NOT NULL,
  "target" text NOT NULL,
  "expires_at" bigint,
  "created_at" bigint NOT NULL,
  PRIMARY KEY ("code"),
  FOREIGN KEY ("campaign_id") REFERENCES "campaigns" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "state_rule_overrides" (
  "state" text NOT NULL,
  "allowed_from" text,
  "allowed_until" text,
  "cap_per_24h" bigint,
  "source" text NOT NULL,
  "checked" text NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("state")
);
--> statement-breakpoint
CREATE TABLE "support_messages" (
  "id" text NOT NULL,
  "user_id" text,
  "name" text NOT NULL,
  "email" text NOT NULL,
  "company" text,
  "phone" text,
  "subject" text NOT NULL,
  "message" text NOT NULL,
  "priority" text NOT NULL DEFAULT 'normal',
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "handled_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE SET NULL
);
--> statement-breakpoint
CREATE TABLE "system_settings" (
  "key" text NOT NULL,
  "value" text NOT NULL,
  "updated_at" bigint NOT NULL,
  PRIMARY KEY ("key")
);
--> statement-breakpoint
CREATE TABLE "templates" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "name" text NOT NULL,
  "category" text NOT NULL,
  "content" text NOT NULL,
  "usage_count" bigint NOT NULL DEFAULT 0,
  "created_at" bigint NOT NULL DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint,
  "updated_at" bigint,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "user_security" (
  "user_id" text NOT NULL,
  "totp_secret_encrypted" text,
  "totp_enabled_at" bigint,
  "google_subject" text,
  "failed_codes" bigint NOT NULL DEFAULT 0,
  "codes_locked_until" bigint,
  PRIMARY KEY ("user_id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
  "id" text NOT NULL,
  "user_id" text NOT NULL,
  "name" text NOT NULL,
  "url" text NOT NULL,
  "events" text NOT NULL DEFAULT '[]',
  "secret" text NOT NULL,
  "previous_secret" text,
  "previous_secret_until" bigint,
  "active" bigint NOT NULL DEFAULT 1,
  "disabled_reason" text,
  "failing_since" bigint,
  "created_at" bigint NOT NULL,
  "updated_at" bigint,
  "created_by_session" text,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
  "id" text NOT NULL,
  "endpoint_id" text NOT NULL,
  "user_id" text NOT NULL,
  "event_id" bigint,
  "source" text,
  "event_type" text NOT NULL,
  "payload" text NOT NULL,
  "status" text NOT NULL DEFAULT 'pending',
  "attempts" bigint NOT NULL DEFAULT 0,
  "rounds" bigint NOT NULL DEFAULT 0,
  "response_status" bigint,
  "response_body" text,
  "error" text,
  "latency_ms" bigint,
  "last_attempt_at" bigint,
  "created_at" bigint NOT NULL,
  "response_hidden" bigint NOT NULL DEFAULT 0,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" ("key_hash");
--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" ("user_id","created_at");
--> statement-breakpoint
CREATE INDEX "automation_rules_user_idx" ON "automation_rules" ("user_id","trigger");
--> statement-breakpoint
CREATE INDEX "automation_runs_rule_idx" ON "automation_runs" ("rule_id","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "automation_runs_rule_key_idx" ON "automation_runs" ("rule_id","trigger_key");
--> statement-breakpoint
CREATE INDEX "backup_codes_user_idx" ON "backup_codes" ("user_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "builtin_template_uses_pk" ON "builtin_template_uses" ("user_id","template_id");
--> statement-breakpoint
CREATE INDEX "campaigns_user_created_idx" ON "campaigns" ("user_id","created_at");
--> statement-breakpoint
CREATE INDEX "campaigns_user_status_idx" ON "campaigns" ("user_id","status");
--> statement-breakpoint
CREATE INDEX "contact_consents_contact_idx" ON "contact_consents" ("contact_id","created_at");
--> statement-breakpoint
CREATE INDEX "contact_consents_user_kind_created_idx" ON "contact_consents" ("user_id", "kind", "created_at");
--> statement-breakpoint
CREATE INDEX "contact_imports_user_idx" ON "contact_imports" ("user_id","created_at");
--> statement-breakpoint
CREATE INDEX "contact_purchases_contact_idx" ON "contact_purchases" ("contact_id","purchased_at");
--> statement-breakpoint
CREATE INDEX "contacts_user_created_idx" ON "contacts" ("user_id","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_user_phone_idx" ON "contacts" ("user_id","phone");
--> statement-breakpoint
CREATE INDEX "conversations_possible_opt_out_idx" ON "conversations" ("user_id") WHERE possible_opt_out_seq IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "conversations_user_last_idx" ON "conversations" ("user_id","last_seq");
--> statement-breakpoint
CREATE UNIQUE INDEX "conversations_user_phone_idx" ON "conversations" ("user_id","phone");
--> statement-breakpoint
CREATE INDEX "conversations_user_unread_idx" ON "conversations" ("user_id") WHERE "unread_count" > 0;
--> statement-breakpoint
CREATE INDEX "drip_campaigns_user_idx" ON "drip_campaigns" ("user_id","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "drip_enrolments_active_idx" ON "drip_enrolments" ("drip_id","contact_id") WHERE "state" = 'active';
--> statement-breakpoint
CREATE INDEX "drip_enrolments_contact_idx" ON "drip_enrolments" ("contact_id","state");
--> statement-breakpoint
CREATE INDEX "drip_enrolments_drip_idx" ON "drip_enrolments" ("drip_id","enrolled_at");
--> statement-breakpoint
CREATE INDEX "drip_step_log_enrolment_idx" ON "drip_step_log" ("enrolment_id","id");
--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" ("created_at");
--> statement-breakpoint
CREATE INDEX "events_user_id_idx" ON "events" ("user_id","id");
--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" ("created_at");
--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" ("state","next_attempt_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_key_idx" ON "jobs" ("key");
--> statement-breakpoint
CREATE INDEX "jobs_kind_due_idx" ON "jobs" ("kind","state","next_attempt_at");
--> statement-breakpoint
CREATE INDEX "jobs_lease_idx" ON "jobs" ("state","lease_until");
--> statement-breakpoint
CREATE INDEX "jobs_ref_idx" ON "jobs" ("ref_id");
--> statement-breakpoint
CREATE INDEX "jobs_user_idx" ON "jobs" ("user_id","state");
--> statement-breakpoint
CREATE UNIQUE INDEX "keyword_opt_ins_keyword_phone_idx" ON "keyword_opt_ins" ("keyword_id","phone");
--> statement-breakpoint
CREATE INDEX "keyword_opt_ins_user_phone_idx" ON "keyword_opt_ins" ("user_id","phone");
--> statement-breakpoint
CREATE INDEX "keywords_user_key_idx" ON "keywords" ("user_id","match_key");
--> statement-breakpoint
CREATE INDEX "license_codes_plan_idx" ON "license_codes" ("plan_id");
--> statement-breakpoint
CREATE INDEX "licenses_user_idx" ON "licenses" ("user_id","starts_at");
--> statement-breakpoint
CREATE INDEX "link_clicks_campaign_idx" ON "link_clicks" ("campaign_id", "verdict");
--> statement-breakpoint
CREATE INDEX "link_clicks_code_idx" ON "link_clicks" ("code", "verdict");
--> statement-breakpoint
CREATE INDEX "link_clicks_contact_idx" ON "link_clicks" ("contact_id", "verdict", "at");
--> statement-breakpoint
CREATE INDEX "link_clicks_user_at_idx" ON "link_clicks" ("user_id", "at");
--> statement-breakpoint
CREATE INDEX "media_message_idx" ON "media" ("message_id","position");
--> statement-breakpoint
CREATE INDEX "media_status_idx" ON "media" ("status") WHERE status <> 'stored';
--> statement-breakpoint
CREATE INDEX "media_user_idx" ON "media" ("user_id","created_at");
--> statement-breakpoint
CREATE INDEX "message_rollups_campaign_idx" ON "message_rollups" ("campaign_id", "provider_id") WHERE "campaign_id" <> '';
--> statement-breakpoint
CREATE UNIQUE INDEX "messages_campaign_phone_idx" ON "messages" ("campaign_id","phone") WHERE campaign_id IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "messages_campaign_status_idx" ON "messages" ("campaign_id","status");
--> statement-breakpoint
CREATE INDEX "messages_contact_idx" ON "messages" ("contact_id") WHERE "contact_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "messages_outbox_idx" ON "messages" ("phone_number_id","status","next_attempt_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "messages_provider_id_idx" ON "messages" ("provider_id","provider_message_id") WHERE provider_message_id IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "messages_provider_idx" ON "messages" ("provider_id") WHERE "provider_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "messages_user_direction_created_idx" ON "messages" ("user_id","direction","created_at");
--> statement-breakpoint
CREATE INDEX "messages_user_phone_idx" ON "messages" ("user_id","phone","created_at");
--> statement-breakpoint
CREATE INDEX "messages_user_phone_seq_idx" ON "messages" ("user_id","phone","seq");
--> statement-breakpoint
CREATE INDEX "number_registrations_user_idx" ON "number_registrations" ("user_id");
--> statement-breakpoint
CREATE INDEX "passkeys_user_idx" ON "passkeys" ("user_id");
--> statement-breakpoint
CREATE INDEX "password_resets_user_idx" ON "password_resets" ("user_id");
--> statement-breakpoint
CREATE INDEX "phone_numbers_provider_idx" ON "phone_numbers" ("provider_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_user_number_idx" ON "phone_numbers" ("user_id","phone_number");
--> statement-breakpoint
CREATE INDEX "segments_user_idx" ON "segments" ("user_id");
--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" ("user_id");
--> statement-breakpoint
CREATE INDEX "short_links_campaign_idx" ON "short_links" ("campaign_id");
--> statement-breakpoint
CREATE INDEX "short_links_user_idx" ON "short_links" ("user_id");
--> statement-breakpoint
CREATE INDEX "sms_providers_user_idx" ON "sms_providers" ("user_id");
--> statement-breakpoint
CREATE INDEX "templates_user_idx" ON "templates" ("user_id","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "user_security_google_subject_unique" ON "user_security" ("google_subject");
--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" ("email");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_attempted_idx" ON "webhook_deliveries" ("last_attempt_at") WHERE "last_attempt_at" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" ("endpoint_id","created_at");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("user_id") WHERE "status" = 'pending';
--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_source_idx" ON "webhook_deliveries" ("endpoint_id","source");
--> statement-breakpoint
CREATE INDEX "webhook_endpoints_user_idx" ON "webhook_endpoints" ("user_id");
--> statement-breakpoint
INSERT INTO "conversation_sequence" ("id", "value") VALUES
(1, 0);
--> statement-breakpoint
INSERT INTO "plans" ("id", "name", "price", "monthly_contacts", "monthly_messages", "phone_numbers", "features", "sort_order", "updated_at") VALUES
('enterprise', 'Enterprise', 24900, -1, 100000, 10, '["bulk_sms","contact_management","two_way_chat","keywords","templates","advanced_analytics","automation","segments","api_access","webhooks","priority_support","dedicated_onboarding"]', 3, 1796621074897),
('professional', 'Professional', 15900, 10000, 25000, 3, '["bulk_sms","contact_management","two_way_chat","keywords","templates","advanced_analytics","automation","segments","api_access","webhooks"]', 2, 1796621074897),
('starter', 'Starter', 5900, 1000, 5000, 1, '["bulk_sms","contact_management","two_way_chat","keywords","templates","basic_analytics"]', 1, 1796621074897);
--> statement-breakpoint
INSERT INTO "name_folds" ("letter", "base", "search") VALUES
('À', 'a', NULL),
('Á', 'a', NULL),
('Â', 'a', NULL),
('Ã', 'a', NULL),
('Ä', 'a', NULL),
('Å', 'a', NULL),
('Æ', 'ae', 'ae'),
('Ç', 'c', NULL),
('È', 'e', NULL),
('É', 'e', NULL),
('Ê', 'e', NULL),
('Ë', 'e', NULL),
('Ì', 'i', NULL),
('Í', 'i', NULL),
('Î', 'i', NULL),
('Ï', 'i', NULL),
('Ð', 'd', 'd'),
('Ñ', 'n', NULL),
('Ò', 'o', NULL),
('Ó', 'o', NULL),
('Ô', 'o', NULL),
('Õ', 'o', NULL),
('Ö', 'o', NULL),
('Ø', 'o', 'o'),
('Ù', 'u', NULL),
('Ú', 'u', NULL),
('Û', 'u', NULL),
('Ü', 'u', NULL),
('Ý', 'y', NULL),
('Þ', 'th', 'th'),
('ß', 'ss', 'ss'),
('à', 'a', NULL),
('á', 'a', NULL),
('â', 'a', NULL),
('ã', 'a', NULL),
('ä', 'a', NULL),
('å', 'a', NULL),
('æ', 'ae', 'ae'),
('ç', 'c', NULL),
('è', 'e', NULL),
('é', 'e', NULL),
('ê', 'e', NULL),
('ë', 'e', NULL),
('ì', 'i', NULL),
('í', 'i', NULL),
('î', 'i', NULL),
('ï', 'i', NULL),
('ð', 'd', 'd'),
('ñ', 'n', NULL),
('ò', 'o', NULL),
('ó', 'o', NULL),
('ô', 'o', NULL),
('õ', 'o', NULL),
('ö', 'o', NULL),
('ø', 'o', 'o'),
('ù', 'u', NULL),
('ú', 'u', NULL),
('û', 'u', NULL),
('ü', 'u', NULL),
('ý', 'y', NULL),
('þ', 'th', 'th'),
('ÿ', 'y', NULL),
('Ā', 'a', NULL),
('ā', 'a', NULL),
('Ă', 'a', NULL),
('ă', 'a', NULL),
('Ą', 'a', NULL),
('ą', 'a', NULL),
('Ć', 'c', NULL),
('ć', 'c', NULL),
('Ĉ', 'c', NULL),
('ĉ', 'c', NULL),
('Ċ', 'c', NULL),
('ċ', 'c', NULL),
('Č', 'c', NULL),
('č', 'c', NULL),
('Ď', 'd', NULL),
('ď', 'd', NULL),
('Đ', 'd', 'd'),
('đ', 'd', 'd'),
('Ē', 'e', NULL),
('ē', 'e', NULL),
('Ĕ', 'e', NULL),
('ĕ', 'e', NULL),
('Ė', 'e', NULL),
('ė', 'e', NULL),
('Ę', 'e', NULL),
('ę', 'e', NULL),
('Ě', 'e', NULL),
('ě', 'e', NULL),
('Ĝ', 'g', NULL),
('ĝ', 'g', NULL),
('Ğ', 'g', NULL),
('ğ', 'g', NULL),
('Ġ', 'g', NULL),
('ġ', 'g', NULL),
('Ģ', 'g', NULL),
('ģ', 'g', NULL),
('Ĥ', 'h', NULL),
('ĥ', 'h', NULL),
('Ħ', 'h', 'h'),
('ħ', 'h', 'h'),
('Ĩ', 'i', NULL),
('ĩ', 'i', NULL),
('Ī', 'i', NULL),
('ī', 'i', NULL),
('Ĭ', 'i', NULL),
('ĭ', 'i', NULL),
('Į', 'i', NULL),
('į', 'i', NULL),
('İ', 'i', NULL),
('ı', 'i', 'i'),
('Ĳ', 'ij', 'ij'),
('ĳ', 'ij', 'ij'),
('Ĵ', 'j', NULL),
('ĵ', 'j', NULL),
('Ķ', 'k', NULL),
('ķ', 'k', NULL),
('ĸ', 'k', 'k'),
('Ĺ', 'l', NULL),
('ĺ', 'l', NULL),
('Ļ', 'l', NULL),
('ļ', 'l', NULL),
('Ľ', 'l', NULL),
('ľ', 'l', NULL),
('Ŀ', 'l', 'l'),
('ŀ', 'l', 'l'),
('Ł', 'l', 'l'),
('ł', 'l', 'l'),
('Ń', 'n', NULL),
('ń', 'n', NULL),
('Ņ', 'n', NULL),
('ņ', 'n', NULL),
('Ň', 'n', NULL),
('ň', 'n', NULL),
('ŉ', 'n', 'n'),
('Ŋ', 'n', 'n'),
('ŋ', 'n', 'n'),
('Ō', 'o', NULL),
('ō', 'o', NULL),
('Ŏ', 'o', NULL),
('ŏ', 'o', NULL),
('Ő', 'o', NULL),
('ő', 'o', NULL),
('Œ', 'oe', 'oe'),
('œ', 'oe', 'oe'),
('Ŕ', 'r', NULL),
('ŕ', 'r', NULL),
('Ŗ', 'r', NULL),
('ŗ', 'r', NULL),
('Ř', 'r', NULL),
('ř', 'r', NULL),
('Ś', 's', NULL),
('ś', 's', NULL),
('Ŝ', 's', NULL),
('ŝ', 's', NULL),
('Ş', 's', NULL),
('ş', 's', NULL),
('Š', 's', NULL),
('š', 's', NULL),
('Ţ', 't', NULL),
('ţ', 't', NULL),
('Ť', 't', NULL),
('ť', 't', NULL),
('Ŧ', 't', 't'),
('ŧ', 't', 't'),
('Ũ', 'u', NULL),
('ũ', 'u', NULL),
('Ū', 'u', NULL),
('ū', 'u', NULL),
('Ŭ', 'u', NULL),
('ŭ', 'u', NULL),
('Ů', 'u', NULL),
('ů', 'u', NULL),
('Ű', 'u', NULL),
('ű', 'u', NULL),
('Ų', 'u', NULL),
('ų', 'u', NULL),
('Ŵ', 'w', NULL),
('ŵ', 'w', NULL),
('Ŷ', 'y', NULL),
('ŷ', 'y', NULL),
('Ÿ', 'y', NULL),
('Ź', 'z', NULL),
('ź', 'z', NULL),
('Ż', 'z', NULL),
('ż', 'z', NULL),
('Ž', 'z', NULL),
('ž', 'z', NULL),
('ſ', 's', 's');
--> statement-breakpoint
-- The triggers below are written by hand: each is the PostgreSQL form of the SQLite trigger of the same name, so
-- counters, rollups, name keys and tags are kept alike on both engines (tests/api/postgres-schema.test.ts makes the
-- same writes on both and compares what the triggers kept). SQLite's 0/1 truth values are ::bigint here.
--
-- The contact search: where SQLite keeps an FTS5 trigram index (contacts_fts, accents folded), PostgreSQL keeps a
-- pg_trgm index on the same text, lowered and without accents (unaccent also folds ß, æ, ø, þ, ł, which SQLite's
-- triggers add through name_folds.search). A query is `smsdesk_contact_search(...) LIKE '%' || folded || '%'`.
-- unaccent() is STABLE (its dictionary could change); naming the dictionary makes it safe to index, as its
-- documentation advises.
CREATE FUNCTION smsdesk_contact_search(first_name text, last_name text, email text, phone_digits text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lower(public.unaccent('public.unaccent'::regdictionary, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits))
$$;
--> statement-breakpoint
CREATE INDEX "contacts_search_idx" ON "contacts" USING gin (smsdesk_contact_search("first_name", "last_name", "email", "phone_digits") gin_trgm_ops);
--> statement-breakpoint
-- A name folded as migration 0052's triggers fold it: printable ASCII lowered (ASCII letters only, as SQLite's
-- lower() does), any other name a letter at a time through name_folds.
CREATE FUNCTION smsdesk_fold_name(name text) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  folded text := '';
  ch text;
BEGIN
  IF name !~ '[^ -~]' THEN
    RETURN translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
  END IF;
  FOREACH ch IN ARRAY regexp_split_to_array(name, '') LOOP
    folded := folded || coalesce((SELECT base FROM name_folds WHERE letter = ch),
      translate(ch, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));
  END LOOP;
  RETURN folded;
END $$;
--> statement-breakpoint
CREATE FUNCTION smsdesk_name_key(first_name text, last_name text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT smsdesk_fold_name(first_name) || chr(1) || smsdesk_fold_name(last_name)
$$;
--> statement-breakpoint
CREATE FUNCTION contact_names_ai() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO contact_names VALUES (NEW.user_id, smsdesk_name_key(NEW.first_name, NEW.last_name), NEW.rowid) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_names_ai AFTER INSERT ON contacts FOR EACH ROW WHEN (NEW.source <> 'import') EXECUTE FUNCTION contact_names_ai();
--> statement-breakpoint
CREATE FUNCTION contact_names_ad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_names WHERE user_id = OLD.user_id AND name_key = smsdesk_name_key(OLD.first_name, OLD.last_name) AND contact_rowid = OLD.rowid;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_names_ad AFTER DELETE ON contacts FOR EACH ROW EXECUTE FUNCTION contact_names_ad();
--> statement-breakpoint
CREATE FUNCTION contact_names_au() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_names WHERE user_id = OLD.user_id AND name_key = smsdesk_name_key(OLD.first_name, OLD.last_name) AND contact_rowid = OLD.rowid;
  INSERT INTO contact_names VALUES (NEW.user_id, smsdesk_name_key(NEW.first_name, NEW.last_name), NEW.rowid) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_names_au AFTER UPDATE OF user_id, first_name, last_name ON contacts FOR EACH ROW EXECUTE FUNCTION contact_names_au();
--> statement-breakpoint
CREATE FUNCTION contact_tags_ai() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO contact_tags (user_id, tag, contact_id)
  SELECT NEW.user_id, e #>> '{}', NEW.id FROM jsonb_array_elements(NEW.tags::jsonb) AS e WHERE jsonb_typeof(e) = 'string'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_tags_ai AFTER INSERT ON contacts FOR EACH ROW WHEN (NEW.tags <> '[]') EXECUTE FUNCTION contact_tags_ai();
--> statement-breakpoint
CREATE FUNCTION contact_tags_ad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_tags WHERE user_id = OLD.user_id AND contact_id = OLD.id
    AND tag IN (SELECT e #>> '{}' FROM jsonb_array_elements(OLD.tags::jsonb) AS e);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_tags_ad AFTER DELETE ON contacts FOR EACH ROW WHEN (OLD.tags <> '[]') EXECUTE FUNCTION contact_tags_ad();
--> statement-breakpoint
CREATE FUNCTION contact_tags_au() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_tags WHERE user_id = OLD.user_id AND contact_id = OLD.id
    AND tag IN (SELECT e #>> '{}' FROM jsonb_array_elements(OLD.tags::jsonb) AS e);
  INSERT INTO contact_tags (user_id, tag, contact_id)
  SELECT NEW.user_id, e #>> '{}', NEW.id FROM jsonb_array_elements(NEW.tags::jsonb) AS e WHERE jsonb_typeof(e) = 'string'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_tags_au AFTER UPDATE OF tags, user_id ON contacts FOR EACH ROW EXECUTE FUNCTION contact_tags_au();
--> statement-breakpoint
CREATE FUNCTION contact_totals_ai() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO contact_totals (user_id, total, with_email, with_phone)
  VALUES (NEW.user_id, 1, (coalesce(NEW.email, '') <> '')::int, (coalesce(NEW.phone, '') <> '')::int)
  ON CONFLICT (user_id) DO UPDATE SET total = contact_totals.total + 1,
    with_email = contact_totals.with_email + excluded.with_email, with_phone = contact_totals.with_phone + excluded.with_phone;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_totals_ai AFTER INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION contact_totals_ai();
--> statement-breakpoint
CREATE FUNCTION contact_totals_ad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE contact_totals SET total = total - 1,
    with_email = with_email - (coalesce(OLD.email, '') <> '')::int,
    with_phone = with_phone - (coalesce(OLD.phone, '') <> '')::int
  WHERE user_id = OLD.user_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_totals_ad AFTER DELETE ON contacts FOR EACH ROW EXECUTE FUNCTION contact_totals_ad();
--> statement-breakpoint
CREATE FUNCTION contact_totals_au() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE contact_totals SET
    with_email = with_email - (coalesce(OLD.email, '') <> '')::int + (coalesce(NEW.email, '') <> '')::int,
    with_phone = with_phone - (coalesce(OLD.phone, '') <> '')::int + (coalesce(NEW.phone, '') <> '')::int
  WHERE user_id = NEW.user_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_totals_au AFTER UPDATE OF email, phone ON contacts FOR EACH ROW EXECUTE FUNCTION contact_totals_au();
--> statement-breakpoint
-- The quarter-hour bucket of a time for an account: its granularity (rollup_granularity.quarters, 4 when unset).
CREATE FUNCTION smsdesk_bucket(account text, at bigint) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT at / 900000 / q * q FROM (SELECT coalesce((SELECT quarters FROM rollup_granularity WHERE user_id = account), 4) AS q) AS g
$$;
--> statement-breakpoint
CREATE FUNCTION contact_rollups_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO contact_rollups (user_id, quarter_hour, n) VALUES (NEW.user_id, smsdesk_bucket(NEW.user_id, NEW.created_at), 1)
  ON CONFLICT (user_id, quarter_hour) DO UPDATE SET n = contact_rollups.n + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_rollups_insert AFTER INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION contact_rollups_insert();
--> statement-breakpoint
CREATE FUNCTION contact_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE contact_rollups SET n = n - 1 WHERE user_id = OLD.user_id AND quarter_hour = smsdesk_bucket(OLD.user_id, OLD.created_at);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_rollups_delete AFTER DELETE ON contacts FOR EACH ROW EXECUTE FUNCTION contact_rollups_delete();
--> statement-breakpoint
CREATE FUNCTION contact_rollups_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE contact_rollups SET n = n - 1 WHERE user_id = OLD.user_id AND quarter_hour = smsdesk_bucket(OLD.user_id, OLD.created_at);
  INSERT INTO contact_rollups (user_id, quarter_hour, n) VALUES (NEW.user_id, smsdesk_bucket(NEW.user_id, NEW.created_at), 1)
  ON CONFLICT (user_id, quarter_hour) DO UPDATE SET n = contact_rollups.n + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_rollups_update AFTER UPDATE OF created_at, user_id ON contacts FOR EACH ROW
WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.user_id IS DISTINCT FROM NEW.user_id) EXECUTE FUNCTION contact_rollups_update();
--> statement-breakpoint
CREATE FUNCTION campaign_message_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO campaign_message_counts (campaign_id, status, n, unsent) VALUES (NEW.campaign_id, NEW.status, 1, (NEW.sent_at IS NULL)::int)
  ON CONFLICT (campaign_id, status) DO UPDATE SET n = campaign_message_counts.n + 1, unsent = campaign_message_counts.unsent + excluded.unsent;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER campaign_message_counts_insert AFTER INSERT ON messages FOR EACH ROW WHEN (NEW.campaign_id IS NOT NULL)
EXECUTE FUNCTION campaign_message_counts_insert();
--> statement-breakpoint
CREATE FUNCTION campaign_message_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE campaign_message_counts SET n = n - 1, unsent = unsent - (OLD.sent_at IS NULL)::int
  WHERE campaign_id = OLD.campaign_id AND status = OLD.status;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER campaign_message_counts_delete AFTER DELETE ON messages FOR EACH ROW WHEN (OLD.campaign_id IS NOT NULL)
EXECUTE FUNCTION campaign_message_counts_delete();
--> statement-breakpoint
CREATE FUNCTION campaign_message_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE campaign_message_counts SET n = n - 1, unsent = unsent - (OLD.sent_at IS NULL)::int
  WHERE OLD.campaign_id IS NOT NULL AND campaign_id = OLD.campaign_id AND status = OLD.status;
  INSERT INTO campaign_message_counts (campaign_id, status, n, unsent)
  SELECT NEW.campaign_id, NEW.status, 1, (NEW.sent_at IS NULL)::int WHERE NEW.campaign_id IS NOT NULL
  ON CONFLICT (campaign_id, status) DO UPDATE SET n = campaign_message_counts.n + 1, unsent = campaign_message_counts.unsent + excluded.unsent;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER campaign_message_counts_update AFTER UPDATE OF status, sent_at, campaign_id ON messages FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id OR (OLD.sent_at IS NULL) <> (NEW.sent_at IS NULL))
EXECUTE FUNCTION campaign_message_counts_update();
--> statement-breakpoint
-- A message's contribution to message_rollups, added (sign 1) or taken back (sign -1).
CREATE FUNCTION smsdesk_message_rollup(m messages, sign int) RETURNS void LANGUAGE plpgsql AS $$ BEGIN
  IF sign < 0 THEN
    UPDATE message_rollups SET n = n - 1, sent = sent - (m.sent_at IS NOT NULL)::int,
      segments = segments - CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments END,
      spend_micros = spend_micros - CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments * coalesce(m.segment_price_micros, 0) END
    WHERE user_id = m.user_id AND quarter_hour = smsdesk_bucket(m.user_id, coalesce(m.sent_at, m.created_at)) AND status = m.status
      AND phone_number_id = coalesce(m.phone_number_id, '') AND campaign_id = coalesce(m.campaign_id, '') AND provider_id = coalesce(m.provider_id, '');
  ELSE
    INSERT INTO message_rollups (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id, n, sent, segments, spend_micros)
    VALUES (m.user_id, smsdesk_bucket(m.user_id, coalesce(m.sent_at, m.created_at)), m.status, coalesce(m.phone_number_id, ''),
      coalesce(m.campaign_id, ''), coalesce(m.provider_id, ''), 1, (m.sent_at IS NOT NULL)::int,
      CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments END,
      CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments * coalesce(m.segment_price_micros, 0) END)
    ON CONFLICT (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id)
    DO UPDATE SET n = message_rollups.n + 1, sent = message_rollups.sent + excluded.sent, segments = message_rollups.segments + excluded.segments,
      spend_micros = message_rollups.spend_micros + excluded.spend_micros;
  END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION message_rollups_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  PERFORM smsdesk_message_rollup(NEW, 1);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER message_rollups_insert AFTER INSERT ON messages FOR EACH ROW WHEN (NEW.status NOT IN ('queued', 'sending'))
EXECUTE FUNCTION message_rollups_insert();
--> statement-breakpoint
CREATE FUNCTION message_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  PERFORM smsdesk_message_rollup(OLD, -1);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER message_rollups_delete AFTER DELETE ON messages FOR EACH ROW WHEN (OLD.status NOT IN ('queued', 'sending'))
EXECUTE FUNCTION message_rollups_delete();
--> statement-breakpoint
CREATE FUNCTION message_rollups_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  IF OLD.status NOT IN ('queued', 'sending') THEN PERFORM smsdesk_message_rollup(OLD, -1); END IF;
  IF NEW.status NOT IN ('queued', 'sending') THEN PERFORM smsdesk_message_rollup(NEW, 1); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER message_rollups_update AFTER UPDATE OF status, sent_at, campaign_id, phone_number_id, provider_id, segments, segment_price_micros
ON messages FOR EACH ROW
WHEN ((OLD.status IS DISTINCT FROM NEW.status OR OLD.sent_at IS DISTINCT FROM NEW.sent_at OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id
    OR OLD.phone_number_id IS DISTINCT FROM NEW.phone_number_id OR OLD.provider_id IS DISTINCT FROM NEW.provider_id
    OR OLD.segments IS DISTINCT FROM NEW.segments OR OLD.segment_price_micros IS DISTINCT FROM NEW.segment_price_micros)
  AND NOT (OLD.status IN ('queued', 'sending') AND NEW.status IN ('queued', 'sending')))
EXECUTE FUNCTION message_rollups_update();
--> statement-breakpoint
-- The day (in the account's zone, from rollup_days) a quarter hour falls in; null when rollup_days has none.
CREATE FUNCTION smsdesk_rollup_day(account text, quarter bigint) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT max(d.quarter_hour) FROM rollup_days d
  WHERE d.zone = (SELECT zone FROM rollup_granularity WHERE user_id = account) AND d.quarter_hour <= quarter
$$;
--> statement-breakpoint
CREATE FUNCTION message_day_rollups_add(r message_rollups, dn bigint, dsent bigint, dsegments bigint, dspend bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  the_day bigint := smsdesk_rollup_day(r.user_id, r.quarter_hour);
BEGIN
  IF the_day IS NULL THEN RETURN; END IF;
  INSERT INTO message_day_rollups AS t (user_id, day, status, phone_number_id, campaign_id, n, sent, segments, spend_micros)
  VALUES (r.user_id, the_day, r.status, r.phone_number_id, r.campaign_id, dn, dsent, dsegments, dspend)
  ON CONFLICT (user_id, day, status, phone_number_id, campaign_id)
  DO UPDATE SET n = t.n + excluded.n, sent = t.sent + excluded.sent, segments = t.segments + excluded.segments,
    spend_micros = t.spend_micros + excluded.spend_micros;
END $$;
--> statement-breakpoint
CREATE FUNCTION message_day_rollups_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  PERFORM message_day_rollups_add(NEW, NEW.n, NEW.sent, NEW.segments, NEW.spend_micros);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER message_day_rollups_insert AFTER INSERT ON message_rollups FOR EACH ROW EXECUTE FUNCTION message_day_rollups_insert();
--> statement-breakpoint
CREATE FUNCTION message_day_rollups_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  PERFORM message_day_rollups_add(NEW, NEW.n - OLD.n, NEW.sent - OLD.sent, NEW.segments - OLD.segments, NEW.spend_micros - OLD.spend_micros);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER message_day_rollups_update AFTER UPDATE OF n, sent, segments, spend_micros ON message_rollups FOR EACH ROW
EXECUTE FUNCTION message_day_rollups_update();
--> statement-breakpoint
CREATE FUNCTION message_day_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE message_day_rollups SET n = n - OLD.n, sent = sent - OLD.sent, segments = segments - OLD.segments, spend_micros = spend_micros - OLD.spend_micros
  WHERE user_id = OLD.user_id AND status = OLD.status AND phone_number_id = OLD.phone_number_id AND campaign_id = OLD.campaign_id
    AND day = smsdesk_rollup_day(OLD.user_id, OLD.quarter_hour);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER message_day_rollups_delete AFTER DELETE ON message_rollups FOR EACH ROW EXECUTE FUNCTION message_day_rollups_delete();
--> statement-breakpoint
-- A new granularity for an account: its rollups counted again from its messages and contacts.
CREATE FUNCTION smsdesk_rollups_again() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM message_rollups WHERE user_id = NEW.user_id;
  INSERT INTO message_rollups (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id, n, sent, segments, spend_micros)
  SELECT user_id, coalesce(sent_at, created_at) / 900000 / NEW.quarters * NEW.quarters, status, coalesce(phone_number_id, ''),
    coalesce(campaign_id, ''), coalesce(provider_id, ''), 1, (sent_at IS NOT NULL)::int, CASE WHEN sent_at IS NULL THEN 0 ELSE segments END,
    CASE WHEN sent_at IS NULL THEN 0 ELSE segments * coalesce(segment_price_micros, 0) END
  FROM messages WHERE user_id = NEW.user_id AND status NOT IN ('queued', 'sending')
  ON CONFLICT (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id)
  DO UPDATE SET n = message_rollups.n + 1, sent = message_rollups.sent + excluded.sent, segments = message_rollups.segments + excluded.segments,
    spend_micros = message_rollups.spend_micros + excluded.spend_micros;
  DELETE FROM contact_rollups WHERE user_id = NEW.user_id;
  INSERT INTO contact_rollups (user_id, quarter_hour, n)
  SELECT user_id, created_at / 900000 / NEW.quarters * NEW.quarters, 1 FROM contacts WHERE user_id = NEW.user_id
  ON CONFLICT (user_id, quarter_hour) DO UPDATE SET n = contact_rollups.n + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER rollup_granularity_insert AFTER INSERT ON rollup_granularity FOR EACH ROW WHEN (NEW.quarters <> 4)
EXECUTE FUNCTION smsdesk_rollups_again();
--> statement-breakpoint
CREATE TRIGGER rollup_granularity_update AFTER UPDATE OF quarters ON rollup_granularity FOR EACH ROW WHEN (OLD.quarters <> NEW.quarters)
EXECUTE FUNCTION smsdesk_rollups_again();
--> statement-breakpoint
CREATE FUNCTION media_orphaned_with_message() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE media SET status = 'orphaned', message_id = NULL WHERE message_id = OLD.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER media_orphaned_with_message AFTER DELETE ON messages FOR EACH ROW EXECUTE FUNCTION media_orphaned_with_message();
