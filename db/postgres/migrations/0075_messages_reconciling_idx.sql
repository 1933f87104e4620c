-- 0075_messages_reconciling_idx on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
CREATE INDEX "messages_reconciling_idx" ON "messages" ("error_code") WHERE error_code IN ('reconciling', 'resending');
