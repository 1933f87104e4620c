-- Pictures and files of MMS (issue 33): one row per item, its bytes in the data folder (media/<user>/<id>).
-- message_id is null while an uploaded item waits to be sent; status: stored, pending (an inbound copy that failed
-- and is retried from the jobs table), failed (given up), orphaned (its message was deleted: the file goes next).
CREATE TABLE `media` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`message_id` text,
	`position` integer DEFAULT 0 NOT NULL,
	`content_type` text NOT NULL,
	`filename` text NOT NULL,
	`size` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'stored' NOT NULL,
	`source_url` text,
	`error` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
CREATE INDEX `media_message_idx` ON `media` (`message_id`,`position`);--> statement-breakpoint
CREATE INDEX `media_user_idx` ON `media` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `media_status_idx` ON `media` (`status`) WHERE status <> 'stored';--> statement-breakpoint
-- Retention and deletes remove messages in bulk: their media is marked here, and its files removed by the media domain.
CREATE TRIGGER `media_orphaned_with_message` AFTER DELETE ON `messages` BEGIN
	UPDATE media SET status = 'orphaned', message_id = NULL WHERE message_id = old.id;
END;
