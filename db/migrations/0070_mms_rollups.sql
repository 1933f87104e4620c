-- The dashboards count MMS apart from SMS (issue 33): a message is an MMS once a picture or file is its own
-- (media.message_id) or linked to it (message_media), said by messages.mms, which the triggers below set; the rollups
-- keep, beside each row's counts, how many of them were MMS, how many of those reached the provider and what they
-- cost (an MMS reached the provider as one message at its account's price per MMS, src/messages/outbox-store.ts).
-- SMS are the rest: n - mms, sent - mms_sent, spend_micros - mms_spend_micros.
ALTER TABLE `messages` ADD `mms` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `message_rollups` ADD `mms` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `message_rollups` ADD `mms_sent` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `message_rollups` ADD `mms_spend_micros` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `message_day_rollups` ADD `mms` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `message_day_rollups` ADD `mms_sent` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `message_day_rollups` ADD `mms_spend_micros` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- A message becomes an MMS when an item is linked to it (a campaign's, template's or drip's shared picture) or made
-- its own (a chat reply's or an API message's upload, a received picture written pending with its message). A
-- message still queued moves nothing in the rollups; a received one, counted as it was written, moves to the MMS.
CREATE TRIGGER `message_mms_linked` AFTER INSERT ON `message_media` BEGIN
	UPDATE `messages` SET `mms` = 1 WHERE `id` = NEW.`message_id` AND `mms` = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `message_mms_own_insert` AFTER INSERT ON `media` WHEN NEW.`message_id` IS NOT NULL BEGIN
	UPDATE `messages` SET `mms` = 1 WHERE `id` = NEW.`message_id` AND `mms` = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `message_mms_own_update` AFTER UPDATE OF `message_id` ON `media` WHEN NEW.`message_id` IS NOT NULL BEGIN
	UPDATE `messages` SET `mms` = 1 WHERE `id` = NEW.`message_id` AND `mms` = 0;
END;
--> statement-breakpoint
-- Migration 0034's triggers on messages, each with the MMS counts; the update's also when mms changes.
DROP TRIGGER `message_rollups_insert`;
--> statement-breakpoint
DROP TRIGGER `message_rollups_delete`;
--> statement-breakpoint
DROP TRIGGER `message_rollups_update`;
--> statement-breakpoint
CREATE TRIGGER `message_rollups_insert` AFTER INSERT ON `messages` WHEN NEW.`status` NOT IN ('queued', 'sending') BEGIN
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`, `mms`, `mms_sent`, `mms_spend_micros`)
	VALUES (NEW.`user_id`, coalesce(NEW.`sent_at`, NEW.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4), NEW.`status`, coalesce(NEW.`phone_number_id`, ''),
		coalesce(NEW.`campaign_id`, ''), coalesce(NEW.`provider_id`, ''), 1, NEW.`sent_at` IS NOT NULL,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` END,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` * coalesce(NEW.`segment_price_micros`, 0) END,
		NEW.`mms`, NEW.`mms` * (NEW.`sent_at` IS NOT NULL),
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`mms` * NEW.`segments` * coalesce(NEW.`segment_price_micros`, 0) END)
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`, `mms` = `mms` + excluded.`mms`, `mms_sent` = `mms_sent` + excluded.`mms_sent`,
		`mms_spend_micros` = `mms_spend_micros` + excluded.`mms_spend_micros`;
END;
--> statement-breakpoint
CREATE TRIGGER `message_rollups_delete` AFTER DELETE ON `messages` WHEN OLD.`status` NOT IN ('queued', 'sending') BEGIN
	UPDATE `message_rollups` SET `n` = `n` - 1, `sent` = `sent` - (OLD.`sent_at` IS NOT NULL),
		`segments` = `segments` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` END,
		`spend_micros` = `spend_micros` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` * coalesce(OLD.`segment_price_micros`, 0) END,
		`mms` = `mms` - OLD.`mms`, `mms_sent` = `mms_sent` - OLD.`mms` * (OLD.`sent_at` IS NOT NULL),
		`mms_spend_micros` = `mms_spend_micros` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`mms` * OLD.`segments` * coalesce(OLD.`segment_price_micros`, 0) END
	WHERE `user_id` = OLD.`user_id` AND `quarter_hour` = coalesce(OLD.`sent_at`, OLD.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) AND `status` = OLD.`status`
		AND `phone_number_id` = coalesce(OLD.`phone_number_id`, '') AND `campaign_id` = coalesce(OLD.`campaign_id`, '')
		AND `provider_id` = coalesce(OLD.`provider_id`, '');
END;
--> statement-breakpoint
CREATE TRIGGER `message_rollups_update` AFTER UPDATE OF `status`, `sent_at`, `campaign_id`, `phone_number_id`, `provider_id`, `segments`, `segment_price_micros`, `mms` ON `messages`
WHEN (OLD.`status` IS NOT NEW.`status` OR OLD.`sent_at` IS NOT NEW.`sent_at` OR OLD.`campaign_id` IS NOT NEW.`campaign_id`
		OR OLD.`phone_number_id` IS NOT NEW.`phone_number_id` OR OLD.`provider_id` IS NOT NEW.`provider_id` OR OLD.`segments` IS NOT NEW.`segments`
		OR OLD.`segment_price_micros` IS NOT NEW.`segment_price_micros` OR OLD.`mms` IS NOT NEW.`mms`)
	AND NOT (OLD.`status` IN ('queued', 'sending') AND NEW.`status` IN ('queued', 'sending')) BEGIN
	UPDATE `message_rollups` SET `n` = `n` - 1, `sent` = `sent` - (OLD.`sent_at` IS NOT NULL),
		`segments` = `segments` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` END,
		`spend_micros` = `spend_micros` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`segments` * coalesce(OLD.`segment_price_micros`, 0) END,
		`mms` = `mms` - OLD.`mms`, `mms_sent` = `mms_sent` - OLD.`mms` * (OLD.`sent_at` IS NOT NULL),
		`mms_spend_micros` = `mms_spend_micros` - CASE WHEN OLD.`sent_at` IS NULL THEN 0 ELSE OLD.`mms` * OLD.`segments` * coalesce(OLD.`segment_price_micros`, 0) END
	WHERE OLD.`status` NOT IN ('queued', 'sending') AND `user_id` = OLD.`user_id` AND `quarter_hour` = coalesce(OLD.`sent_at`, OLD.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`), 4)
		AND `status` = OLD.`status` AND `phone_number_id` = coalesce(OLD.`phone_number_id`, '') AND `campaign_id` = coalesce(OLD.`campaign_id`, '')
		AND `provider_id` = coalesce(OLD.`provider_id`, '');
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`, `mms`, `mms_sent`, `mms_spend_micros`)
	SELECT NEW.`user_id`, coalesce(NEW.`sent_at`, NEW.`created_at`) / 900000 / coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4) * coalesce((SELECT `quarters` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`), 4), NEW.`status`, coalesce(NEW.`phone_number_id`, ''),
		coalesce(NEW.`campaign_id`, ''), coalesce(NEW.`provider_id`, ''), 1, NEW.`sent_at` IS NOT NULL,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` END,
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`segments` * coalesce(NEW.`segment_price_micros`, 0) END,
		NEW.`mms`, NEW.`mms` * (NEW.`sent_at` IS NOT NULL),
		CASE WHEN NEW.`sent_at` IS NULL THEN 0 ELSE NEW.`mms` * NEW.`segments` * coalesce(NEW.`segment_price_micros`, 0) END
	WHERE NEW.`status` NOT IN ('queued', 'sending')
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`, `mms` = `mms` + excluded.`mms`, `mms_sent` = `mms_sent` + excluded.`mms_sent`,
		`mms_spend_micros` = `mms_spend_micros` + excluded.`mms_spend_micros`;
END;
--> statement-breakpoint
-- Migration 0038's day rows, kept from the fine ones with the MMS counts.
DROP TRIGGER `message_day_rollups_insert`;
--> statement-breakpoint
DROP TRIGGER `message_day_rollups_update`;
--> statement-breakpoint
DROP TRIGGER `message_day_rollups_delete`;
--> statement-breakpoint
CREATE TRIGGER `message_day_rollups_insert` AFTER INSERT ON `message_rollups` BEGIN
	INSERT INTO `message_day_rollups` (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`, `n`, `sent`, `segments`, `spend_micros`, `mms`, `mms_sent`, `mms_spend_micros`)
	SELECT NEW.`user_id`, `day`, NEW.`status`, NEW.`phone_number_id`, NEW.`campaign_id`, NEW.`n`, NEW.`sent`, NEW.`segments`, NEW.`spend_micros`,
		NEW.`mms`, NEW.`mms_sent`, NEW.`mms_spend_micros`
	FROM (SELECT (SELECT max(`d`.`quarter_hour`) FROM `rollup_days` `d` WHERE `d`.`zone` = (SELECT `zone` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`)
		AND `d`.`quarter_hour` <= NEW.`quarter_hour`) AS `day`)
	WHERE `day` IS NOT NULL
	ON CONFLICT (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`)
	DO UPDATE SET `n` = `n` + excluded.`n`, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`, `mms` = `mms` + excluded.`mms`, `mms_sent` = `mms_sent` + excluded.`mms_sent`,
		`mms_spend_micros` = `mms_spend_micros` + excluded.`mms_spend_micros`;
END;
--> statement-breakpoint
CREATE TRIGGER `message_day_rollups_update` AFTER UPDATE OF `n`, `sent`, `segments`, `spend_micros`, `mms`, `mms_sent`, `mms_spend_micros` ON `message_rollups` BEGIN
	INSERT INTO `message_day_rollups` (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`, `n`, `sent`, `segments`, `spend_micros`, `mms`, `mms_sent`, `mms_spend_micros`)
	SELECT NEW.`user_id`, `day`, NEW.`status`, NEW.`phone_number_id`, NEW.`campaign_id`, NEW.`n` - OLD.`n`, NEW.`sent` - OLD.`sent`,
		NEW.`segments` - OLD.`segments`, NEW.`spend_micros` - OLD.`spend_micros`, NEW.`mms` - OLD.`mms`, NEW.`mms_sent` - OLD.`mms_sent`,
		NEW.`mms_spend_micros` - OLD.`mms_spend_micros`
	FROM (SELECT (SELECT max(`d`.`quarter_hour`) FROM `rollup_days` `d` WHERE `d`.`zone` = (SELECT `zone` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`)
		AND `d`.`quarter_hour` <= NEW.`quarter_hour`) AS `day`)
	WHERE `day` IS NOT NULL
	ON CONFLICT (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`)
	DO UPDATE SET `n` = `n` + excluded.`n`, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`, `mms` = `mms` + excluded.`mms`, `mms_sent` = `mms_sent` + excluded.`mms_sent`,
		`mms_spend_micros` = `mms_spend_micros` + excluded.`mms_spend_micros`;
END;
--> statement-breakpoint
CREATE TRIGGER `message_day_rollups_delete` AFTER DELETE ON `message_rollups` BEGIN
	UPDATE `message_day_rollups` SET `n` = `n` - OLD.`n`, `sent` = `sent` - OLD.`sent`, `segments` = `segments` - OLD.`segments`,
		`spend_micros` = `spend_micros` - OLD.`spend_micros`, `mms` = `mms` - OLD.`mms`, `mms_sent` = `mms_sent` - OLD.`mms_sent`,
		`mms_spend_micros` = `mms_spend_micros` - OLD.`mms_spend_micros`
	WHERE `user_id` = OLD.`user_id` AND `status` = OLD.`status` AND `phone_number_id` = OLD.`phone_number_id` AND `campaign_id` = OLD.`campaign_id`
		AND `day` = (SELECT max(`d`.`quarter_hour`) FROM `rollup_days` `d` WHERE `d`.`zone` = (SELECT `zone` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`)
			AND `d`.`quarter_hour` <= OLD.`quarter_hour`);
END;
--> statement-breakpoint
-- Migration 0034's rebuild of an account's rows in a new bucket width, with the MMS counts.
DROP TRIGGER `rollup_granularity_insert`;
--> statement-breakpoint
DROP TRIGGER `rollup_granularity_update`;
--> statement-breakpoint
CREATE TRIGGER `rollup_granularity_insert` AFTER INSERT ON `rollup_granularity` WHEN NEW.`quarters` <> 4 BEGIN
	DELETE FROM `message_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`, `mms`, `mms_sent`, `mms_spend_micros`)
	SELECT `user_id`, coalesce(`sent_at`, `created_at`) / 900000 / NEW.`quarters` * NEW.`quarters`, `status`, coalesce(`phone_number_id`, ''),
		coalesce(`campaign_id`, ''), coalesce(`provider_id`, ''), 1, `sent_at` IS NOT NULL, CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` END,
		CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` * coalesce(`segment_price_micros`, 0) END,
		`mms`, `mms` * (`sent_at` IS NOT NULL), CASE WHEN `sent_at` IS NULL THEN 0 ELSE `mms` * `segments` * coalesce(`segment_price_micros`, 0) END
	FROM `messages` WHERE `user_id` = NEW.`user_id` AND `status` NOT IN ('queued', 'sending')
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`, `mms` = `mms` + excluded.`mms`, `mms_sent` = `mms_sent` + excluded.`mms_sent`,
		`mms_spend_micros` = `mms_spend_micros` + excluded.`mms_spend_micros`;
	DELETE FROM `contact_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `contact_rollups` (`user_id`, `quarter_hour`, `n`)
	SELECT `user_id`, `created_at` / 900000 / NEW.`quarters` * NEW.`quarters`, 1 FROM `contacts` WHERE `user_id` = NEW.`user_id`
	ON CONFLICT (`user_id`, `quarter_hour`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `rollup_granularity_update` AFTER UPDATE OF `quarters` ON `rollup_granularity` WHEN OLD.`quarters` <> NEW.`quarters` BEGIN
	DELETE FROM `message_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `message_rollups` (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`, `n`, `sent`, `segments`, `spend_micros`, `mms`, `mms_sent`, `mms_spend_micros`)
	SELECT `user_id`, coalesce(`sent_at`, `created_at`) / 900000 / NEW.`quarters` * NEW.`quarters`, `status`, coalesce(`phone_number_id`, ''),
		coalesce(`campaign_id`, ''), coalesce(`provider_id`, ''), 1, `sent_at` IS NOT NULL, CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` END,
		CASE WHEN `sent_at` IS NULL THEN 0 ELSE `segments` * coalesce(`segment_price_micros`, 0) END,
		`mms`, `mms` * (`sent_at` IS NOT NULL), CASE WHEN `sent_at` IS NULL THEN 0 ELSE `mms` * `segments` * coalesce(`segment_price_micros`, 0) END
	FROM `messages` WHERE `user_id` = NEW.`user_id` AND `status` NOT IN ('queued', 'sending')
	ON CONFLICT (`user_id`, `quarter_hour`, `status`, `phone_number_id`, `campaign_id`, `provider_id`)
	DO UPDATE SET `n` = `n` + 1, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`, `mms` = `mms` + excluded.`mms`, `mms_sent` = `mms_sent` + excluded.`mms_sent`,
		`mms_spend_micros` = `mms_spend_micros` + excluded.`mms_spend_micros`;
	DELETE FROM `contact_rollups` WHERE `user_id` = NEW.`user_id`;
	INSERT INTO `contact_rollups` (`user_id`, `quarter_hour`, `n`)
	SELECT `user_id`, `created_at` / 900000 / NEW.`quarters` * NEW.`quarters`, 1 FROM `contacts` WHERE `user_id` = NEW.`user_id`
	ON CONFLICT (`user_id`, `quarter_hour`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
-- The MMS sent and received so far: marked, which the update trigger above moves in the rollups (a few rows: MMS
-- came with migration 0061).
UPDATE `messages` SET `mms` = 1 WHERE `id` IN (SELECT `message_id` FROM `media` WHERE `message_id` IS NOT NULL UNION SELECT `message_id` FROM `message_media`);
