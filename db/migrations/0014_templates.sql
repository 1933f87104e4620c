-- Message templates (src/templates/, issue 14): an account's own templates, and per-account use counts of the
-- built-in samples (which live in code, shared and read-only, so every account starts them at zero uses).
CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`category` text NOT NULL,
	`content` text NOT NULL,
	`usage_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `templates_user_idx` ON `templates` (`user_id`,`created_at`);
--> statement-breakpoint
CREATE TABLE `builtin_template_uses` (
	`user_id` text NOT NULL,
	`template_id` text NOT NULL,
	`usage_count` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `builtin_template_uses_pk` ON `builtin_template_uses` (`user_id`,`template_id`);
--> statement-breakpoint
-- The price per SMS segment the user enters for /advanced-sms's cost estimate (millionths of a dollar).
ALTER TABLE `users` ADD `segment_price_micros` integer;
