-- What kept the sign-in protections in one process's memory moves to the database, so every process of an
-- installation, and a restarted one, decides alike (issue 31 item 2): the rate limits' windows, the sign-in
-- failures of the lockout, sign-ups waiting for their code, and the last TOTP step each user spent.
CREATE TABLE `rate_windows` (
	`key` text PRIMARY KEY NOT NULL,
	`hits` integer NOT NULL,
	`resets_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_windows_resets_at_idx` ON `rate_windows` (`resets_at`);
--> statement-breakpoint
CREATE TABLE `sign_in_failures` (
	`email` text NOT NULL,
	`address` text NOT NULL,
	`failures` integer NOT NULL,
	`blocked_until` integer NOT NULL,
	`last_failure_at` integer NOT NULL,
	PRIMARY KEY(`email`, `address`)
);
--> statement-breakpoint
CREATE TABLE `pending_sign_ups` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text REFERENCES `users`(`id`) ON DELETE cascade,
	`email` text NOT NULL,
	`license` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`attempts` integer NOT NULL,
	`sent_at` integer NOT NULL,
	`window_started_at` integer NOT NULL,
	`sends` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pending_sign_ups_created_idx` ON `pending_sign_ups` (`created_at`);
--> statement-breakpoint
ALTER TABLE `user_security` ADD `totp_last_step` integer;
