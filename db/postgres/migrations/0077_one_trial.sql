-- 0077_one_trial on PostgreSQL, written by hand (it deletes rows): the same as SQLite's.
--> statement-breakpoint
DELETE FROM "licenses" WHERE "source" = 'trial' AND EXISTS (
  SELECT 1 FROM "licenses" AS "first" WHERE "first"."user_id" = "licenses"."user_id" AND "first"."source" = 'trial'
    AND ("first"."starts_at" < "licenses"."starts_at" OR ("first"."starts_at" = "licenses"."starts_at" AND "first"."id" < "licenses"."id"))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "licenses_one_trial_idx" ON "licenses" ("user_id") WHERE "source" = 'trial';
