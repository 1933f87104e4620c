-- Short links in two tables (issue 32): each campaign's (or other message source's) distinct links once, in
-- `links`, and one slim row per recipient and link in `short_links`, whose code is its id encoded with the
-- installation's key (src/links/codes.ts) instead of a drawn code under an index of its own. Before, each
-- recipient's row repeated the url, target, account and campaign, and every message with a link wrote five
-- B-trees, one of them keyed by a random code (a page of the index written per message).
CREATE TABLE `links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`campaign_id` text,
	`source` text NOT NULL,
	`url` text NOT NULL,
	`target` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `links_source_idx` ON `links` (`user_id`,`source`,`url`,`target`);
--> statement-breakpoint
CREATE INDEX `links_campaign_idx` ON `links` (`campaign_id`);
--> statement-breakpoint
-- The links of the short links made before: one per account, campaign (or none), link and target, in the order
-- they were first made. Those of no campaign (drips, keywords, automation) have the source `message`.
INSERT INTO `links` (`user_id`, `campaign_id`, `source`, `url`, `target`, `created_at`)
SELECT `user_id`, `campaign_id`, CASE WHEN `campaign_id` IS NULL THEN 'message' ELSE 'campaign:' || `campaign_id` END, `url`, `target`, min(`created_at`)
FROM `short_links` GROUP BY `user_id`, `campaign_id`, `url`, `target` ORDER BY min(`rowid`);
--> statement-breakpoint
CREATE TABLE `short_links_0074` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`code` text,
	`link_id` integer NOT NULL,
	`message_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Every short link made before keeps its drawn code (its texts are out there) and its expiry; its contact and phone
-- are its message's (src/links/clicks.ts reads them there, after a merge of contacts too).
INSERT INTO `short_links_0074` (`code`, `link_id`, `message_id`, `created_at`, `expires_at`)
SELECT s.`code`, l.`id`, s.`message_id`, s.`created_at`, s.`expires_at`
FROM `short_links` s JOIN `links` l ON l.`user_id` = s.`user_id`
	AND l.`source` = CASE WHEN s.`campaign_id` IS NULL THEN 'message' ELSE 'campaign:' || s.`campaign_id` END
	AND l.`url` = s.`url` AND l.`target` = s.`target`
ORDER BY s.`rowid`;
--> statement-breakpoint
CREATE UNIQUE INDEX `short_links_code_idx` ON `short_links_0074` (`code`) WHERE code IS NOT NULL;
--> statement-breakpoint
-- A hit names its short link by id: whether the recipient already clicked it (the classifier's repeat) is read by it.
ALTER TABLE `link_clicks` ADD `short_link_id` integer;
--> statement-breakpoint
UPDATE `link_clicks` SET `short_link_id` = (SELECT n.`id` FROM `short_links_0074` n WHERE n.`code` = `link_clicks`.`code`);
--> statement-breakpoint
DROP INDEX `link_clicks_code_idx`;
--> statement-breakpoint
CREATE INDEX `link_clicks_short_link_idx` ON `link_clicks` (`short_link_id`,`verdict`);
--> statement-breakpoint
DROP TABLE `short_links`;
--> statement-breakpoint
ALTER TABLE `short_links_0074` RENAME TO `short_links`;
--> statement-breakpoint
CREATE INDEX `short_links_link_idx` ON `short_links` (`link_id`);
--> statement-breakpoint
-- The key codes are encoded with: made with the first short link (src/links/links.ts), kept with the data (a
-- restored backup's links keep their codes).
CREATE TABLE `short_link_keys` (
	`id` integer PRIMARY KEY NOT NULL,
	`key` text NOT NULL
);
