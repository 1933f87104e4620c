-- A/B tests of a campaign's text (issue 32 item 3). The test: its 2-4 variants, the share of the audience they go
-- to, the measure that picks the winner and when. The winner, when and by whom it was picked: set in the
-- transaction that writes the rest of the audience's messages, so a campaign with a winner has sent it.
ALTER TABLE `campaigns` ADD `ab_test` text;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `ab_winner` integer;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `ab_decided_at` integer;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `ab_decided_by` text;
--> statement-breakpoint
-- The variant (0 = A) a test message carries; null for every other message, the winner's rest among them.
ALTER TABLE `messages` ADD `ab_variant` integer;
--> statement-breakpoint
-- The rest of an A/B campaign's audience, split off at its start (a stored, deterministic split: a restart never
-- reshuffles it), who get the winner's text once it is picked.
CREATE TABLE `campaign_ab_rest` (
	`campaign_id` text NOT NULL REFERENCES `campaigns`(`id`) ON DELETE cascade,
	`position` integer NOT NULL,
	`phone` text NOT NULL,
	`contact_id` text,
	PRIMARY KEY(`campaign_id`, `position`)
);
