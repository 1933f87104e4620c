-- Messages counted per account, hour, status, sender number, campaign and provider account, with the segments the
-- provider accepted, kept by triggers on messages so the dashboards read a few thousand rows instead of scanning
-- every message (a million messages answer in milliseconds). Hours, not days: the account's zone turns hours into
-- its days when read, and a change of zone changes nothing stored. A message's hour is when it reached the
-- provider, else when it was written (received, skipped, expired, cancelled, refused at the call).
-- Messages still in the queue ('queued', 'sending') are not counted here: they have no outcome yet, and leaving
-- them out spares the send path a rollup write for every enqueue and every claim (campaign_message_counts counts
-- them for progress).
CREATE TABLE `message_rollups` (
	`user_id` text NOT NULL,
	`hour` integer NOT NULL,
	`status` text NOT NULL,
	`phone_number_id` text DEFAULT '' NOT NULL,
	`campaign_id` text DEFAULT '' NOT NULL,
	`provider_id` text DEFAULT '' NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`segments` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
-- Spend per campaign reads a campaign's rows directly.
CREATE INDEX `message_rollups_campaign_idx` ON `message_rollups` (`campaign_id`, `provider_id`) WHERE `campaign_id` <> '';
--> statement-breakpoint
INSERT INTO `message_rollups` (`user_id`, `hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`)
SELECT `user_id`, coalesce(`sent_at`, `created_at`) / 3600000, `status`, coalesce(`phone_number_id`, ''), coalesce(`campaign_id`, ''),
	coalesce(`provider_id`, ''), count(*), sum(`sent_at` IS NOT NULL), sum(CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` END)
FROM `messages` WHERE `status` NOT IN ('queued', 'sending')
GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
CREATE TRIGGER `message_rollups_insert` AFTER INSERT ON `messages` WHEN NEW.`status` NOT IN ('queued', 'sending') BEGIN
	INSERT INTO `message_rollups` (`user_id`, `hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`)
	VALUES (NEW.`user_id`, coalesce(NEW.`sent_at`, NEW.`created_at`) / 3600000, NEW.`status`, coalesce(NEW.`phone_number_id`, ''),
		coalesce(NEW.`campaign_id`, ''), coalesce(NEW.`provider_id`, ''), 1, NEW.`sent_at` IS NOT NULL,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` END)
	ON CONFLICT (`user_id`, `hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`;
END;
--> statement-breakpoint
CREATE TRIGGER `message_rollups_delete` AFTER DELETE ON `messages` WHEN OLD.`status` NOT IN ('queued', 'sending') BEGIN
	UPDATE `message_rollups` SET `n` = `n` - 1, `sent` = `sent` - (OLD.`sent_at` IS NOT NULL),
		`segments` = `segments` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` END
	WHERE `user_id` = OLD.`user_id` AND `hour` = coalesce(OLD.`sent_at`, OLD.`created_at`) / 3600000 AND `status` = OLD.`status`
		AND `phone_number_id` = coalesce(OLD.`phone_number_id`, '') AND `campaign_id` = coalesce(OLD.`campaign_id`, '')
		AND `provider_id` = coalesce(OLD.`provider_id`, '');
END;
--> statement-breakpoint
-- Fires only when a counted key or figure changes, and never for moves inside the queue (queued <-> sending, the
-- engine's claims and retries): a message is counted once it leaves the queue and moved between rows after that.
CREATE TRIGGER `message_rollups_update` AFTER UPDATE OF `status`, `sent_at`, `campaign_id`, `phone_number_id`, `provider_id`, `segments` ON `messages`
WHEN (OLD.`status` IS NOT NEW.`status` OR OLD.`sent_at` IS NOT NEW.`sent_at` OR OLD.`campaign_id` IS NOT NEW.`campaign_id`
		OR OLD.`phone_number_id` IS NOT NEW.`phone_number_id` OR OLD.`provider_id` IS NOT NEW.`provider_id` OR OLD.`segments` IS NOT NEW.`segments`)
	AND NOT (OLD.`status` IN ('queued', 'sending') AND NEW.`status` IN ('queued', 'sending')) BEGIN
	UPDATE `message_rollups` SET `n` = `n` - 1, `sent` = `sent` - (OLD.`sent_at` IS NOT NULL),
		`segments` = `segments` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` END
	WHERE OLD.`status` NOT IN ('queued', 'sending') AND `user_id` = OLD.`user_id` AND `hour` = coalesce(OLD.`sent_at`, OLD.`created_at`) / 3600000
		AND `status` = OLD.`status` AND `phone_number_id` = coalesce(OLD.`phone_number_id`, '') AND `campaign_id` = coalesce(OLD.`campaign_id`, '')
		AND `provider_id` = coalesce(OLD.`provider_id`, '');
	INSERT INTO `message_rollups` (`user_id`, `hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`)
	SELECT NEW.`user_id`, coalesce(NEW.`sent_at`, NEW.`created_at`) / 3600000, NEW.`status`, coalesce(NEW.`phone_number_id`, ''),
		coalesce(NEW.`campaign_id`, ''), coalesce(NEW.`provider_id`, ''), 1, NEW.`sent_at` IS NOT NULL,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` END
	WHERE NEW.`status` NOT IN ('queued', 'sending')
	ON CONFLICT (`user_id`, `hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`;
END;
--> statement-breakpoint
-- Opt-outs per account over time (the dashboards' opt-out figures) without reading every contact's consents.
CREATE INDEX `contact_consents_user_kind_created_idx` ON `contact_consents` (`user_id`, `kind`, `created_at`);
--> statement-breakpoint
-- What the account's provider charges per segment, in millionths of a dollar; null: the provider's usual price.
ALTER TABLE `sms_providers` ADD `segment_price_micros` integer;
--> statement-breakpoint
-- Contacts added per account and hour, kept by triggers like contact_totals (migration 0003): the dashboards'
-- "new contacts" read a few rows per day instead of counting every contact added (a million-row import is a
-- million index entries to count). Hours, read as days in the account's zone like message_rollups.
CREATE TABLE `contact_rollups` (
	`user_id` text NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`hour` integer NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `hour`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `contact_rollups` (`user_id`, `hour`, `n`) SELECT `user_id`, `created_at` / 3600000, count(*) FROM `contacts` GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `contact_rollups_insert` AFTER INSERT ON `contacts` BEGIN
	INSERT INTO `contact_rollups` (`user_id`, `hour`, `n`) VALUES (NEW.`user_id`, NEW.`created_at` / 3600000, 1)
	ON CONFLICT (`user_id`, `hour`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_rollups_delete` AFTER DELETE ON `contacts` BEGIN
	UPDATE `contact_rollups` SET `n` = `n` - 1 WHERE `user_id` = OLD.`user_id` AND `hour` = OLD.`created_at` / 3600000;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_rollups_update` AFTER UPDATE OF `created_at`, `user_id` ON `contacts`
WHEN OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`user_id` IS NOT NEW.`user_id` BEGIN
	UPDATE `contact_rollups` SET `n` = `n` - 1 WHERE `user_id` = OLD.`user_id` AND `hour` = OLD.`created_at` / 3600000;
	INSERT INTO `contact_rollups` (`user_id`, `hour`, `n`) VALUES (NEW.`user_id`, NEW.`created_at` / 3600000, 1)
	ON CONFLICT (`user_id`, `hour`) DO UPDATE SET `n` = `n` + 1;
END;
