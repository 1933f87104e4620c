-- 0071_shared_limits on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
CREATE TABLE "pending_sign_ups" (
  "token_hash" text NOT NULL,
  "user_id" text,
  "email" text NOT NULL,
  "license" text NOT NULL,
  "created_at" bigint NOT NULL,
  "expires_at" bigint NOT NULL,
  "attempts" bigint NOT NULL,
  "sent_at" bigint NOT NULL,
  "window_started_at" bigint NOT NULL,
  "sends" bigint NOT NULL,
  PRIMARY KEY ("token_hash"),
  FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE TABLE "rate_windows" (
  "key" text NOT NULL,
  "hits" bigint NOT NULL,
  "resets_at" bigint NOT NULL,
  PRIMARY KEY ("key")
);
--> statement-breakpoint
CREATE TABLE "sign_in_failures" (
  "email" text NOT NULL,
  "address" text NOT NULL,
  "failures" bigint NOT NULL,
  "blocked_until" bigint NOT NULL,
  "last_failure_at" bigint NOT NULL,
  PRIMARY KEY ("email", "address")
);
--> statement-breakpoint
ALTER TABLE "user_security" ADD COLUMN "totp_last_step" bigint;
--> statement-breakpoint
CREATE INDEX "pending_sign_ups_created_idx" ON "pending_sign_ups" ("created_at");
--> statement-breakpoint
CREATE INDEX "rate_windows_resets_at_idx" ON "rate_windows" ("resets_at");
