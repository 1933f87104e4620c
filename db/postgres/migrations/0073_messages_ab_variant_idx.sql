-- 0073_messages_ab_variant_idx on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
CREATE INDEX "messages_ab_variant_idx" ON "messages" ("campaign_id","ab_variant","status","sent_at") WHERE "ab_variant" IS NOT NULL;
