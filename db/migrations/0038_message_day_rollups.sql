-- The dashboards' counts per local day of the account's zone, beside the fine buckets of migration 0034: a month, a
-- week or a year of whole local days is read as one row per day (and status, sender, campaign) instead of up to 96
-- buckets per day (Kathmandu's quarter hours: the overview read a year of them, 107 ms at p95). An interval is read
-- as its whole local days from here and the rest, before its first local midnight and after its last, from the
-- fine buckets (src/results/queries.ts).
-- 1. The local midnights of each zone in use, as quarter hours (ms / 900000), from 2000 to 2040 (the span
--    src/results/buckets.ts looks at): written by the results domain the first time an account in the zone is read;
--    a day is [one midnight, the next). Messages before the first have no day row and are read from the fine buckets.
CREATE TABLE `rollup_days` (
	`zone` text NOT NULL,
	`quarter_hour` integer NOT NULL,
	PRIMARY KEY(`zone`, `quarter_hour`)
) WITHOUT ROWID;
--> statement-breakpoint
-- 2. The zone the account's day rows are in: none until the results domain first reads the account (its day rows
--    are then built from its fine buckets), and changed with the account's zone (they are rebuilt).
ALTER TABLE `rollup_granularity` ADD `zone` text;
--> statement-breakpoint
-- 3. The fine buckets' counts summed per local day (keyed by its midnight's quarter hour), status, sender number and
--    campaign ('' for none). The provider account is left out: no day-level read asks for it.
CREATE TABLE `message_day_rollups` (
	`user_id` text NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`day` integer NOT NULL,
	`status` text NOT NULL,
	`phone_number_id` text DEFAULT '' NOT NULL,
	`campaign_id` text DEFAULT '' NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`segments` integer DEFAULT 0 NOT NULL,
	`spend_micros` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`)
) WITHOUT ROWID;
--> statement-breakpoint
-- 4. Kept from the fine buckets as they change (the messages triggers of migration 0034 add to and take from them,
--    and rebuild them when the account's bucket width changes): each change of a fine row is added to its day's row,
--    so the two always agree. The day is the last midnight of the account's zone at or before the bucket's first
--    quarter hour (every local midnight is a bucket's edge); none while the account has no zone stored.
CREATE TRIGGER `message_day_rollups_insert` AFTER INSERT ON `message_rollups` BEGIN
	INSERT INTO `message_day_rollups` (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`, `n`, `sent`, `segments`, `spend_micros`)
	SELECT NEW.`user_id`, `day`, NEW.`status`, NEW.`phone_number_id`, NEW.`campaign_id`, NEW.`n`, NEW.`sent`, NEW.`segments`, NEW.`spend_micros`
	FROM (SELECT (SELECT max(`d`.`quarter_hour`) FROM `rollup_days` `d` WHERE `d`.`zone` = (SELECT `zone` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`)
		AND `d`.`quarter_hour` <= NEW.`quarter_hour`) AS `day`)
	WHERE `day` IS NOT NULL
	ON CONFLICT (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`)
	DO UPDATE SET `n` = `n` + excluded.`n`, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`;
END;
--> statement-breakpoint
CREATE TRIGGER `message_day_rollups_update` AFTER UPDATE OF `n`, `sent`, `segments`, `spend_micros` ON `message_rollups` BEGIN
	INSERT INTO `message_day_rollups` (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`, `n`, `sent`, `segments`, `spend_micros`)
	SELECT NEW.`user_id`, `day`, NEW.`status`, NEW.`phone_number_id`, NEW.`campaign_id`, NEW.`n` - OLD.`n`, NEW.`sent` - OLD.`sent`,
		NEW.`segments` - OLD.`segments`, NEW.`spend_micros` - OLD.`spend_micros`
	FROM (SELECT (SELECT max(`d`.`quarter_hour`) FROM `rollup_days` `d` WHERE `d`.`zone` = (SELECT `zone` FROM `rollup_granularity` WHERE `user_id` = NEW.`user_id`)
		AND `d`.`quarter_hour` <= NEW.`quarter_hour`) AS `day`)
	WHERE `day` IS NOT NULL
	ON CONFLICT (`user_id`, `day`, `status`, `phone_number_id`, `campaign_id`)
	DO UPDATE SET `n` = `n` + excluded.`n`, `sent` = `sent` + excluded.`sent`, `segments` = `segments` + excluded.`segments`,
		`spend_micros` = `spend_micros` + excluded.`spend_micros`;
END;
--> statement-breakpoint
CREATE TRIGGER `message_day_rollups_delete` AFTER DELETE ON `message_rollups` BEGIN
	UPDATE `message_day_rollups` SET `n` = `n` - OLD.`n`, `sent` = `sent` - OLD.`sent`, `segments` = `segments` - OLD.`segments`,
		`spend_micros` = `spend_micros` - OLD.`spend_micros`
	WHERE `user_id` = OLD.`user_id` AND `status` = OLD.`status` AND `phone_number_id` = OLD.`phone_number_id` AND `campaign_id` = OLD.`campaign_id`
		AND `day` = (SELECT max(`d`.`quarter_hour`) FROM `rollup_days` `d` WHERE `d`.`zone` = (SELECT `zone` FROM `rollup_granularity` WHERE `user_id` = OLD.`user_id`)
			AND `d`.`quarter_hour` <= OLD.`quarter_hour`);
END;
