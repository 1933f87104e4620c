-- 0072_short_links_message_idx on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
CREATE INDEX "short_links_message_idx" ON "short_links" ("message_id");
