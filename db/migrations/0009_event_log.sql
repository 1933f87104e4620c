-- The event log (src/events/): AUTOINCREMENT so ids are never reused after pruning.
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text,
	`type` text NOT NULL,
	`subject_kind` text NOT NULL,
	`subject_id` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_user_id_idx` ON `events` (`user_id`,`id`);
--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);
--> statement-breakpoint
CREATE TABLE `event_cursors` (
	`consumer` text PRIMARY KEY NOT NULL,
	`last_id` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
-- Installation-wide settings an administrator changes (eventRetentionDays first).
CREATE TABLE `system_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
