CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`ref_id` text NOT NULL,
	`run_at` integer NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`done_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`state`,`run_at`);--> statement-breakpoint
CREATE INDEX `jobs_ref_idx` ON `jobs` (`ref_id`);--> statement-breakpoint
CREATE TABLE `phone_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`phone_number` text NOT NULL,
	`display_name` text DEFAULT '' NOT NULL,
	`kind` text DEFAULT 'long_code' NOT NULL,
	`messages_per_second` real DEFAULT 1 NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`provider_id`) REFERENCES `sms_providers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `phone_numbers_user_number_idx` ON `phone_numbers` (`user_id`,`phone_number`);--> statement-breakpoint
CREATE INDEX `phone_numbers_provider_idx` ON `phone_numbers` (`provider_id`);--> statement-breakpoint
CREATE TABLE `sms_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`display_name` text NOT NULL,
	`credentials_encrypted` text NOT NULL,
	`credential_hint` text DEFAULT '' NOT NULL,
	`messages_per_second` real,
	`settings` text DEFAULT '{}' NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sms_providers_user_idx` ON `sms_providers` (`user_id`);--> statement-breakpoint
ALTER TABLE `campaigns` ADD `subject` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `from_email` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `from_name` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `from_number` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `recipients` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `audience` text DEFAULT '{"kind":"manual"}' NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `scheduled_at` integer;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `expires_after_minutes` integer DEFAULT 1440 NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `append_opt_out` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `pause_reason` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `skipped_opted_out` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `skipped_invalid` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `skipped_duplicate` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `archived_at` integer;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `updated_at` integer;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `completed_at` integer;--> statement-breakpoint
CREATE INDEX `campaigns_user_created_idx` ON `campaigns` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `messages` ADD `kind` text DEFAULT 'single' NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `provider_id` text REFERENCES sms_providers(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `messages` ADD `phone_number_id` text REFERENCES phone_numbers(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `messages` ADD `from_number` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `provider_message_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `segments` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `next_attempt_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `error_code` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `error_message` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `sent_at` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `delivered_at` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `updated_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `messages_campaign_phone_idx` ON `messages` (`campaign_id`,`phone`) WHERE campaign_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `messages_campaign_status_idx` ON `messages` (`campaign_id`,`status`);--> statement-breakpoint
CREATE INDEX `messages_outbox_idx` ON `messages` (`phone_number_id`,`status`,`next_attempt_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_provider_id_idx` ON `messages` (`provider_id`,`provider_message_id`) WHERE provider_message_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `messages_user_phone_idx` ON `messages` (`user_id`,`phone`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `quiet_hours_enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `quiet_hours_start` text DEFAULT '21:00' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `quiet_hours_end` text DEFAULT '08:00' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `append_opt_out` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `frequency_cap_per_day` integer;