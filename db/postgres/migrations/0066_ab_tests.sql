-- A/B tests of a campaign's text (issue 32 item 3): as db/migrations/0066_ab_tests.sql.
CREATE TABLE "campaign_ab_rest" (
  "campaign_id" text NOT NULL,
  "position" bigint NOT NULL,
  "phone" text NOT NULL,
  "contact_id" text,
  PRIMARY KEY ("campaign_id", "position"),
  FOREIGN KEY ("campaign_id") REFERENCES "campaigns" ("id") ON DELETE CASCADE
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "ab_test" text;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "ab_winner" bigint;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "ab_decided_at" bigint;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "ab_decided_by" text;
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "ab_variant" bigint;
