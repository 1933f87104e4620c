-- Attachments shared by many messages (issue 33): as db/migrations/0067_media_holders.sql; its trigger as plpgsql.
CREATE TABLE "message_media" (
  "message_id" text NOT NULL,
  "position" bigint NOT NULL,
  "media_id" text NOT NULL,
  PRIMARY KEY ("message_id", "position")
);
--> statement-breakpoint
ALTER TABLE "media" ADD COLUMN "held_by" text;
--> statement-breakpoint
CREATE INDEX "media_held_idx" ON "media" ("held_by","position") WHERE held_by IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "media_loose_idx" ON "media" ("created_at") WHERE message_id IS NULL AND held_by IS NULL;
--> statement-breakpoint
CREATE INDEX "message_media_media_idx" ON "message_media" ("media_id");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION media_orphaned_with_message() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE media SET status = 'orphaned', message_id = NULL WHERE message_id = OLD.id;
  DELETE FROM message_media WHERE message_id = OLD.id;
  RETURN NULL;
END $$;
