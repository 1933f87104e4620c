-- 0080_number_pace on PostgreSQL, written by scripts/gen-postgres-migrations.ts from the schema it makes.
--> statement-breakpoint
CREATE TABLE "number_pace" (
  "phone_number_id" text NOT NULL,
  "next_at" double precision NOT NULL,
  "granted" bigint NOT NULL,
  PRIMARY KEY ("phone_number_id"),
  FOREIGN KEY ("phone_number_id") REFERENCES "phone_numbers" ("id") ON DELETE CASCADE
);
