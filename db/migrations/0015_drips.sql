-- Drip campaigns (src/drips/, issue 15): an ordered list of steps per drip, one enrolment per contact and run
-- (re-entry makes another), and the log of what each step did (sent, skipped and why, deferred by quiet hours).
-- Each step runs as a job (key drip:<enrolment>:<step>) whose transaction writes the message, the log row and the
-- next step's job together.
CREATE TABLE `drip_campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`trigger` text NOT NULL,
	`steps` text NOT NULL,
	`is_active` integer DEFAULT 1 NOT NULL,
	`exit_on_reply` integer DEFAULT 1 NOT NULL,
	`goal_tag` text,
	`segment_id` text,
	`reentry_days` integer,
	`late_policy` text DEFAULT 'skip' NOT NULL,
	`late_after_minutes` integer DEFAULT 60 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `drip_campaigns_user_idx` ON `drip_campaigns` (`user_id`,`created_at`);
--> statement-breakpoint
CREATE TABLE `drip_enrolments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`drip_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`state` text NOT NULL,
	`exit_reason` text,
	`steps` text NOT NULL,
	`next_step` integer DEFAULT 0 NOT NULL,
	`next_at` integer,
	`last_at` integer NOT NULL,
	`enrolled_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`drip_id`) REFERENCES `drip_campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `drip_enrolments_active_idx` ON `drip_enrolments` (`drip_id`,`contact_id`) WHERE `state` = 'active';
--> statement-breakpoint
CREATE INDEX `drip_enrolments_drip_idx` ON `drip_enrolments` (`drip_id`,`enrolled_at`);
--> statement-breakpoint
CREATE INDEX `drip_enrolments_contact_idx` ON `drip_enrolments` (`contact_id`,`state`);
--> statement-breakpoint
CREATE TABLE `drip_step_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`enrolment_id` text NOT NULL,
	`step` integer NOT NULL,
	`outcome` text NOT NULL,
	`reason` text,
	`message_id` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`enrolment_id`) REFERENCES `drip_enrolments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `drip_step_log_enrolment_idx` ON `drip_step_log` (`enrolment_id`,`id`);
