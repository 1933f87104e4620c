-- A campaign's messages counted by status (and, of each status, how many never reached a provider: no sent_at), kept
-- by triggers on every write to messages, so listing campaigns reads a few rows per campaign instead of scanning
-- their messages. Triggers rather than application code because messages' statuses are written by many statements
-- (the engine, webhooks, pause, cancel, expiry, recovery at start); a trigger cannot be forgotten by a new one.
CREATE TABLE `campaign_message_counts` (
	`campaign_id` text NOT NULL,
	`status` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	`unsent` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`campaign_id`, `status`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `campaign_message_counts` (`campaign_id`, `status`, `n`, `unsent`)
SELECT `campaign_id`, `status`, count(*), sum(`sent_at` IS NULL) FROM `messages` WHERE `campaign_id` IS NOT NULL GROUP BY `campaign_id`, `status`;
--> statement-breakpoint
CREATE TRIGGER `campaign_message_counts_insert` AFTER INSERT ON `messages` WHEN NEW.`campaign_id` IS NOT NULL BEGIN
	INSERT INTO `campaign_message_counts` (`campaign_id`, `status`, `n`, `unsent`) VALUES (NEW.`campaign_id`, NEW.`status`, 1, NEW.`sent_at` IS NULL)
	ON CONFLICT (`campaign_id`, `status`) DO UPDATE SET `n` = `n` + 1, `unsent` = `unsent` + excluded.`unsent`;
END;
--> statement-breakpoint
CREATE TRIGGER `campaign_message_counts_delete` AFTER DELETE ON `messages` WHEN OLD.`campaign_id` IS NOT NULL BEGIN
	UPDATE `campaign_message_counts` SET `n` = `n` - 1, `unsent` = `unsent` - (OLD.`sent_at` IS NULL)
	WHERE `campaign_id` = OLD.`campaign_id` AND `status` = OLD.`status`;
END;
--> statement-breakpoint
-- Only updates that move a message between counts: most engine writes (attempts, next_attempt_at) change neither.
CREATE TRIGGER `campaign_message_counts_update` AFTER UPDATE OF `status`, `sent_at`, `campaign_id` ON `messages`
WHEN OLD.`status` IS NOT NEW.`status` OR OLD.`campaign_id` IS NOT NEW.`campaign_id` OR (OLD.`sent_at` IS NULL) IS NOT (NEW.`sent_at` IS NULL) BEGIN
	UPDATE `campaign_message_counts` SET `n` = `n` - 1, `unsent` = `unsent` - (OLD.`sent_at` IS NULL)
	WHERE OLD.`campaign_id` IS NOT NULL AND `campaign_id` = OLD.`campaign_id` AND `status` = OLD.`status`;
	INSERT INTO `campaign_message_counts` (`campaign_id`, `status`, `n`, `unsent`)
	SELECT NEW.`campaign_id`, NEW.`status`, 1, NEW.`sent_at` IS NULL WHERE NEW.`campaign_id` IS NOT NULL
	ON CONFLICT (`campaign_id`, `status`) DO UPDATE SET `n` = `n` + 1, `unsent` = `unsent` + excluded.`unsent`;
END;
