-- Attachments shared by many messages (issue 33): a campaign's, a template's or a drip's pictures are held by it
-- (held_by 'campaign:<id>', 'template:<id>', 'drip:<id>'), and each message that carries one is linked to it in
-- message_media rather than given its own copy (a campaign of 100,000 sends one file). A deleted message's links go
-- with it in the trigger below; an item neither held, nor linked, nor a message's own is swept after a grace period.
ALTER TABLE `media` ADD `held_by` text;--> statement-breakpoint
CREATE INDEX `media_held_idx` ON `media` (`held_by`,`position`) WHERE held_by IS NOT NULL;--> statement-breakpoint
CREATE INDEX `media_loose_idx` ON `media` (`created_at`) WHERE message_id IS NULL AND held_by IS NULL;--> statement-breakpoint
CREATE TABLE `message_media` (
	`message_id` text NOT NULL,
	`position` integer NOT NULL,
	`media_id` text NOT NULL,
	PRIMARY KEY(`message_id`, `position`)
) WITHOUT ROWID;--> statement-breakpoint
CREATE INDEX `message_media_media_idx` ON `message_media` (`media_id`);--> statement-breakpoint
DROP TRIGGER `media_orphaned_with_message`;--> statement-breakpoint
CREATE TRIGGER `media_orphaned_with_message` AFTER DELETE ON `messages` BEGIN
	UPDATE media SET status = 'orphaned', message_id = NULL WHERE message_id = old.id;
	DELETE FROM message_media WHERE message_id = old.id;
END;
