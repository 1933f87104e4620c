-- Delivery reports that came before their message's provider id was recorded, kept in the database rather than in
-- one process's memory (issue 31 item 2, src/messages/messages.ts): a report reaching one process of an
-- installation is applied when another records the id. On PostgreSQL this migration also has the event log notify
-- the processes' live hubs of each insert (LISTEN/NOTIFY), which SQLite, one process, does not need.
CREATE TABLE `early_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`provider_message_id` text NOT NULL,
	`status` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`received_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`provider_id`) REFERENCES `sms_providers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `early_reports_message_idx` ON `early_reports` (`provider_id`,`provider_message_id`);
--> statement-breakpoint
CREATE INDEX `early_reports_user_idx` ON `early_reports` (`user_id`,`id`);
