-- Conversations (src/conversations/): one thread per contact phone per account. A message belongs to the thread of
-- its (user_id, phone), which every messages row already carries (the contact too is found by it); `seq` orders the threads (a server sequence,
-- reserved from conversation_sequence, never the clock).
ALTER TABLE `messages` ADD `seq` integer;
--> statement-breakpoint
UPDATE `messages` SET `seq` = r.`n` FROM (SELECT `id`, row_number() OVER (ORDER BY `created_at`, `id`) AS `n` FROM `messages`) r WHERE `messages`.`id` = r.`id`;
--> statement-breakpoint
CREATE INDEX `messages_user_phone_seq_idx` ON `messages` (`user_id`,`phone`,`seq`);
--> statement-breakpoint
CREATE TABLE `conversation_sequence` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`value` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `conversation_sequence` (`id`, `value`) SELECT 1, coalesce(max(`seq`), 0) FROM `messages`;
--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`phone` text NOT NULL,
	`state` text DEFAULT 'open' NOT NULL,
	`last_seq` integer DEFAULT 0 NOT NULL,
	`last_read_seq` integer DEFAULT 0 NOT NULL,
	`unread_count` integer DEFAULT 0 NOT NULL,
	`cleared_seq` integer DEFAULT 0 NOT NULL,
	`reply_from` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_user_phone_idx` ON `conversations` (`user_id`,`phone`);
--> statement-breakpoint
CREATE INDEX `conversations_user_last_idx` ON `conversations` (`user_id`,`last_seq`);
--> statement-breakpoint
-- The unread total and filter read only threads with unread messages (a campaign makes many threads, none unread).
CREATE INDEX `conversations_user_unread_idx` ON `conversations` (`user_id`) WHERE `unread_count` > 0;
--> statement-breakpoint
-- Threads of the messages already stored, all read (nobody could read them before).
INSERT INTO `conversations` (`user_id`, `phone`, `state`, `last_seq`, `last_read_seq`, `reply_from`, `created_at`, `updated_at`)
SELECT m.`user_id`, m.`phone`, 'open', max(m.`seq`), max(m.`seq`),
	(SELECT i.`from_number` FROM `messages` i WHERE i.`user_id` = m.`user_id` AND i.`phone` = m.`phone` AND i.`direction` = 'inbound' ORDER BY i.`seq` DESC LIMIT 1),
	min(m.`created_at`), max(m.`created_at`)
FROM `messages` m GROUP BY m.`user_id`, m.`phone`;
--> statement-breakpoint
-- A POST /api/messages answer kept 24 h per account and Idempotency-Key, so a retried request never sends twice.
CREATE TABLE `idempotency_keys` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`response` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);
