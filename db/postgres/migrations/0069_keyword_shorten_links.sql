-- 0069_keyword_shorten_links on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
ALTER TABLE "keywords" ADD COLUMN "shorten_links" bigint NOT NULL DEFAULT 1;
