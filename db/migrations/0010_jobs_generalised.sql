-- One durable jobs table for delayed work (src/jobs/): a unique key per step, a due time that back-off moves
-- (run_at stays the intended time), a lease with an expiry, attempts, the last error and a result. The table is
-- rebuilt because user_id becomes optional (installation-wide jobs such as pruning the event log).
CREATE TABLE `jobs_new` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`user_id` text,
	`ref_id` text,
	`payload` text DEFAULT '{}' NOT NULL,
	`run_at` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`result` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer,
	`done_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- A campaign's one start job is keyed by the campaign; older rows of the same campaign keep their own id as key.
INSERT INTO `jobs_new` (`id`, `kind`, `key`, `user_id`, `ref_id`, `payload`, `run_at`, `next_attempt_at`, `state`, `created_at`, `done_at`)
SELECT `id`, `kind`,
	CASE WHEN `id` = (SELECT j2.`id` FROM `jobs` j2 WHERE j2.`ref_id` = `jobs`.`ref_id` ORDER BY j2.`state` = 'pending' DESC, j2.`created_at` DESC, j2.`id` DESC LIMIT 1)
		THEN 'campaign_start:' || `ref_id` ELSE 'job:' || `id` END,
	`user_id`, `ref_id`, '{}', `run_at`, `run_at`, `state`, `created_at`, `done_at`
FROM `jobs`;
--> statement-breakpoint
DROP TABLE `jobs`;
--> statement-breakpoint
ALTER TABLE `jobs_new` RENAME TO `jobs`;
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_key_idx` ON `jobs` (`key`);
--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`state`,`next_attempt_at`);
--> statement-breakpoint
CREATE INDEX `jobs_lease_idx` ON `jobs` (`state`,`lease_until`);
--> statement-breakpoint
CREATE INDEX `jobs_ref_idx` ON `jobs` (`ref_id`);
--> statement-breakpoint
CREATE INDEX `jobs_user_idx` ON `jobs` (`user_id`,`state`);
