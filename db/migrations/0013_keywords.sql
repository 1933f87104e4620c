-- Text-to-join keywords (src/keywords/): the keywords, each number's opt-in through one (pending until a double
-- opt-in is confirmed), and the consent log's sender number and keyword for keyword opt-ins.
CREATE TABLE `keywords` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`keyword` text NOT NULL,
	`match_key` text NOT NULL,
	`match_mode` text DEFAULT 'whole' NOT NULL,
	`short_code` text,
	`numbers` text DEFAULT '[]' NOT NULL,
	`auto_reply` text NOT NULL,
	`already_reply` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`double_opt_in` integer DEFAULT false NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `keywords_user_key_idx` ON `keywords` (`user_id`,`match_key`);
--> statement-breakpoint
CREATE TABLE `keyword_opt_ins` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`keyword_id` text NOT NULL,
	`phone` text NOT NULL,
	`number` text,
	`status` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`confirmed_at` integer,
	`replied_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`keyword_id`) REFERENCES `keywords`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `keyword_opt_ins_keyword_phone_idx` ON `keyword_opt_ins` (`keyword_id`,`phone`);
--> statement-breakpoint
CREATE INDEX `keyword_opt_ins_user_phone_idx` ON `keyword_opt_ins` (`user_id`,`phone`);
--> statement-breakpoint
ALTER TABLE `contact_consents` ADD `number` text;
--> statement-breakpoint
ALTER TABLE `contact_consents` ADD `keyword` text;
