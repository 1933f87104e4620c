-- Two fixes to the dashboards' counts (issue 17).
-- 1. Spend at the price of the day a message went: each message keeps the price per segment its provider account
--    charged when the provider accepted it (written by the outbox store with sent_at), and the rollups sum what it
--    cost. Changing a price now changes estimates, never past months' spend. Messages sent before this migration
--    take the price their account has today (the only one known), so nothing shown so far changes.
-- 2. Rollups in buckets as fine as the account's zone needs: local midnight of a zone with a half-hour or
--    45-minute offset (Asia/Kolkata +05:30, Asia/Kathmandu +05:45, Australia/Adelaide, America/St_Johns) falls
--    inside a UTC hour, and an hour belonging to the day its first instant falls in put that day's first 30 (or 45)
--    minutes into the day before. Every offset of every zone in the time-zone database from 1980 on is a whole
--    number of quarter hours, so the rows are keyed by quarter hour (ms / 900000), and each account's buckets span
--    4 of them (an hour: zones on whole hours, most accounts), 2 (Kolkata, Adelaide, St John's) or 1 (Kathmandu):
--    every local day is a whole range of buckets, and an account has no more rows than its zone needs (a year of
--    quarter hours is four times the rows of a year of hours to read). rollup_granularity holds each account's
--    span (no row: an hour, so a new account on whole hours never needs a rebuild); the results domain sets it from
--    the zone (src/results/buckets.ts), and the triggers at the end of this file rebuild the account's rows when it
--    changes. Set here for the zones known to need less than an hour; the results domain corrects any other on the
--    account's next dashboard read.
--    The rows are rebuilt from the messages and contacts (scripts/bench/dashboards.ts times this migration on a
--    million messages).
ALTER TABLE `messages` ADD `segment_price_micros` integer;
--> statement-breakpoint
-- The provider list prices of src/providers/prices.ts (DEFAULT_SEGMENT_PRICE_MICROS) as of this migration, for
-- accounts whose user set none.
UPDATE `messages` SET `segment_price_micros` = (
	SELECT coalesce(`p`.`segment_price_micros`, CASE `p`.`provider` WHEN 'twilio' THEN 8300 WHEN 'telnyx' THEN 4000 WHEN 'brevo' THEN 9000
		WHEN 'textmagic' THEN 49000 WHEN 'clicksend' THEN 25000 ELSE 0 END)
	FROM `sms_providers` `p` WHERE `p`.`id` = `messages`.`provider_id`)
WHERE `sent_at` IS NOT NULL AND `provider_id` IS NOT NULL;
--> statement-breakpoint
CREATE TABLE `rollup_granularity` (
	`user_id` text PRIMARY KEY NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`quarters` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `rollup_granularity` (`user_id`, `quarters`)
SELECT `id`, CASE
	WHEN `timezone` IN ('Asia/Kathmandu', 'Asia/Katmandu', 'Australia/Eucla', 'Pacific/Chatham', 'NZ-CHAT') THEN 1
	WHEN `timezone` IN ('Asia/Kolkata', 'Asia/Calcutta', 'Asia/Colombo', 'Asia/Kabul', 'Asia/Tehran', 'Iran', 'Asia/Yangon', 'Asia/Rangoon',
		'Indian/Cocos', 'Australia/Adelaide', 'Australia/Darwin', 'Australia/Broken_Hill', 'Australia/Lord_Howe', 'Australia/South',
		'Australia/North', 'America/St_Johns', 'Canada/Newfoundland', 'Pacific/Marquesas') THEN 2
	ELSE 4 END
FROM `users`;
--> statement-breakpoint
DROP TRIGGER `message_rollups_insert`;
--> statement-breakpoint
DROP TRIGGER `message_rollups_delete`;
--> statement-breakpoint
DROP TRIGGER `message_rollups_update`;
--> statement-breakpoint
DROP TABLE `message_rollups`;
--> statement-breakpoint
-- As in migration 0020, keyed by quarter hour (ms / 900000: the first of the account's bucket) and with the spend
-- (segments times the price recorded on each message, in millionths of a dollar) of the messages that reached the
-- provider.
CREATE TABLE `message_rollups` (
	`user_id` text NOT NULL,
	`quarter_hour` integer NOT NULL,
	`status` text NOT NULL,
	`phone_number_id` text DEFAULT '' NOT NULL,
	`campaign_id` text DEFAULT '' NOT NULL,
	`provider_id` text DEFAULT '' NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`segments` integer DEFAULT 0 NOT NULL,
	`spend_micros` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `message_rollups_campaign_idx` ON `message_rollups` (`campaign_id`, `provider_id`) WHERE `campaign_id` <> '';
--> statement-breakpoint
-- Each message added to its row as the insert trigger would: an upsert into the few thousand rows is about four
-- times faster than a GROUP BY sorting a million messages by six keys.
INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`)
SELECT `m`.`user_id`, coalesce(`m`.`sent_at`, `m`.`created_at`) / 900000 / `g`.`quarters` * `g`.`quarters`, `m`.`status`,
	coalesce(`m`.`phone_number_id`, ''), coalesce(`m`.`campaign_id`, ''), coalesce(`m`.`provider_id`, ''), 1, `m`.`sent_at` IS NOT NULL,
	CASE WHEN `m`.`sent_at` IS NULL THEN 0 ELSE `m`.`segments` END,
	CASE WHEN `m`.`sent_at` IS NULL THEN 0 ELSE `m`.`segments` * coalesce(`m`.`segment_price_micros`, 0) END
FROM `messages` `m` JOIN `rollup_granularity` `g` ON `g`.`user_id` = `m`.`user_id` WHERE `m`.`status` NOT IN ('queued', 'sending')
ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
	`spend_micros` = `spend_micros` + excluded.`spend_micros`;
--> statement-breakpoint
CREATE TRIGGER `message_rollups_insert` AFTER INSERT ON `messages` WHEN NEW.`status` NOT IN ('queued', 'sending') BEGIN
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`)
	VALUES (NEW.`user_id`, coalesce(NEW.`sent_at`, NEW.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4), NEW.`status`, coalesce(NEW.`phone_number_id`, ''),
		coalesce(NEW.`campaign_id`, ''), coalesce(NEW.`provider_id`, ''), 1, NEW.`sent_at` IS NOT NULL,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` END,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` * coalesce(NEW.`segment_price_micros`, 0) END)
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`;
END;
--> statement-breakpoint
CREATE TRIGGER `message_rollups_delete` AFTER DELETE ON `messages` WHEN OLD.`status` NOT IN ('queued', 'sending') BEGIN
	UPDATE `message_rollups` SET `n` = `n` - 1, `sent` = `sent` - (OLD.`sent_at` IS NOT NULL),
		`segments` = `segments` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` END,
		`spend_micros` = `spend_micros` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` * coalesce(OLD.`segment_price_micros`, 0) END
	WHERE `user_id` = OLD.`user_id` AND `quarter_hour` = coalesce(OLD.`sent_at`, OLD.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) AND `status` = OLD.`status`
		AND `phone_number_id` = coalesce(OLD.`phone_number_id`, '') AND `campaign_id` = coalesce(OLD.`campaign_id`, '')
		AND `provider_id` = coalesce(OLD.`provider_id`, '');
END;
--> statement-breakpoint
-- As in migration 0020: never for moves inside the queue; the recorded price is one more counted figure.
CREATE TRIGGER `message_rollups_update` AFTER UPDATE OF `status`, `sent_at`, `campaign_id`, `phone_number_id`, `provider_id`, `segments`, `segment_price_micros` ON `messages`
WHEN (OLD.`status` IS NOT NEW.`status` OR OLD.`sent_at` IS NOT NEW.`sent_at` OR OLD.`campaign_id` IS NOT NEW.`campaign_id`
		OR OLD.`phone_number_id` IS NOT NEW.`phone_number_id` OR OLD.`provider_id` IS NOT NEW.`provider_id` OR OLD.`segments` IS NOT NEW.`segments`
		OR OLD.`segment_price_micros` IS NOT NEW.`segment_price_micros`)
	AND NOT (OLD.`status` IN ('queued', 'sending') AND NEW.`status` IN ('queued', 'sending')) BEGIN
	UPDATE `message_rollups` SET `n` = `n` - 1, `sent` = `sent` - (OLD.`sent_at` IS NOT NULL),
		`segments` = `segments` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` END,
		`spend_micros` = `spend_micros` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` * coalesce(OLD.`segment_price_micros`, 0) END
	WHERE OLD.`status` NOT IN ('queued', 'sending') AND `user_id` = OLD.`user_id` AND `quarter_hour` = coalesce(OLD.`sent_at`, OLD.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4)
		AND `status` = OLD.`status` AND `phone_number_id` = coalesce(OLD.`phone_number_id`, '') AND `campaign_id` = coalesce(OLD.`campaign_id`, '')
		AND `provider_id` = coalesce(OLD.`provider_id`, '');
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`)
	SELECT NEW.`user_id`, coalesce(NEW.`sent_at`, NEW.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4), NEW.`status`, coalesce(NEW.`phone_number_id`, ''),
		coalesce(NEW.`campaign_id`, ''), coalesce(NEW.`provider_id`, ''), 1, NEW.`sent_at` IS NOT NULL,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` END,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` * coalesce(NEW.`segment_price_micros`, 0) END
	WHERE NEW.`status` NOT IN ('queued', 'sending')
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`;
END;
--> statement-breakpoint
-- Contacts added, likewise in the account's buckets (migration 0020 kept them per hour).
DROP TRIGGER `contact_rollups_insert`;
--> statement-breakpoint
DROP TRIGGER `contact_rollups_delete`;
--> statement-breakpoint
DROP TRIGGER `contact_rollups_update`;
--> statement-breakpoint
DROP TABLE `contact_rollups`;
--> statement-breakpoint
CREATE TABLE `contact_rollups` (
	`user_id` text NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`quarter_hour` integer NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `quarter_hour`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `contact_rollups` (`user_id`, `quarter_hour`, `n`)
SELECT `c`.`user_id`, `c`.`created_at` / 900000 / `g`.`quarters` * `g`.`quarters`, 1
FROM `contacts` `c` JOIN `rollup_granularity` `g` ON `g`.`user_id` = `c`.`user_id` WHERE true
ON CONFLICT (`user_id`, `quarter_hour`) DO UPDATE SET `n` = `n` + 1;
--> statement-breakpoint
CREATE TRIGGER `contact_rollups_insert` AFTER INSERT ON `contacts` BEGIN
	INSERT INTO `contact_rollups` (`user_id`, `quarter_hour`, `n`) VALUES (NEW.`user_id`, NEW.`created_at` / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4), 1)
	ON CONFLICT (`user_id`, `quarter_hour`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_rollups_delete` AFTER DELETE ON `contacts` BEGIN
	UPDATE `contact_rollups` SET `n` = `n` - 1 WHERE `user_id` = OLD.`user_id` AND `quarter_hour` = OLD.`created_at` / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4);
END;
--> statement-breakpoint
CREATE TRIGGER `contact_rollups_update` AFTER UPDATE OF `created_at`, `user_id` ON `contacts`
WHEN OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`user_id` IS NOT NEW.`user_id` BEGIN
	UPDATE `contact_rollups` SET `n` = `n` - 1 WHERE `user_id` = OLD.`user_id` AND `quarter_hour` = OLD.`created_at` / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4);
	INSERT INTO `contact_rollups` (`user_id`, `quarter_hour`, `n`) VALUES (NEW.`user_id`, NEW.`created_at` / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4), 1)
	ON CONFLICT (`user_id`, `quarter_hour`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
-- An account's buckets change with its zone: its rows are rebuilt in them from its messages and contacts, in the
-- transaction that changes the span (the triggers above bucket by the span as it stands).
CREATE TRIGGER `rollup_granularity_insert` AFTER INSERT ON `rollup_granularity` WHEN NEW.`quarters` <> 4 BEGIN
	DELETE FROM `message_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`)
	SELECT `user_id`, coalesce(`sent_at`, `created_at`) / 900000 / NEW.`quarters` * NEW.`quarters`, `status`, coalesce(`phone_number_id`, ''),
		coalesce(`campaign_id`, ''), coalesce(`provider_id`, ''), 1, `sent_at` IS NOT NULL, CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` END,
		CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` * coalesce(`segment_price_micros`, 0) END
	FROM `messages` WHERE `user_id` = NEW.`user_id` AND `status` NOT IN ('queued', 'sending')
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`;
	DELETE FROM `contact_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `contact_rollups` (`user_id`, `quarter_hour`, `n`)
	SELECT `user_id`, `created_at` / 900000 / NEW.`quarters` * NEW.`quarters`, 1 FROM `contacts` WHERE `user_id` = NEW.`user_id`
	ON CONFLICT (`user_id`, `quarter_hour`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `rollup_granularity_update` AFTER UPDATE OF `quarters` ON `rollup_granularity` WHEN OLD.`quarters` <> NEW.`quarters` BEGIN
	DELETE FROM `message_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`)
	SELECT `user_id`, coalesce(`sent_at`, `created_at`) / 900000 / NEW.`quarters` * NEW.`quarters`, `status`, coalesce(`phone_number_id`, ''),
		coalesce(`campaign_id`, ''), coalesce(`provider_id`, ''), 1, `sent_at` IS NOT NULL, CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` END,
		CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` * coalesce(`segment_price_micros`, 0) END
	FROM `messages` WHERE `user_id` = NEW.`user_id` AND `status` NOT IN ('queued', 'sending')
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`;
	DELETE FROM `contact_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `contact_rollups` (`user_id`, `quarter_hour`, `n`)
	SELECT `user_id`, `created_at` / 900000 / NEW.`quarters` * NEW.`quarters`, 1 FROM `contacts` WHERE `user_id` = NEW.`user_id`
	ON CONFLICT (`user_id`, `quarter_hour`) DO UPDATE SET `n` = `n` + 1;
END;
