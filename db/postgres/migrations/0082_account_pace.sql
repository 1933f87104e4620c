-- 0082_account_pace on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
CREATE TABLE "account_pace" (
  "sms_provider_id" text NOT NULL,
  "next_at" double precision NOT NULL,
  "granted" bigint NOT NULL,
  PRIMARY KEY ("sms_provider_id"),
  FOREIGN KEY ("sms_provider_id") REFERENCES "sms_providers" ("id") ON DELETE CASCADE
);
