-- 0068_mms_price on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
ALTER TABLE "sms_providers" ADD COLUMN "mms_price_micros" bigint;
