-- One price per SMS segment: the provider account's (migration 0020). /advanced-sms used to keep its own in the
-- user's settings; a user who had saved one keeps it as the price of each of their provider accounts that has none
-- of its own yet (an account with its own price keeps that one), then the setting goes.
UPDATE `sms_providers`
SET `segment_price_micros` = (SELECT `u`.`segment_price_micros` FROM `users` `u` WHERE `u`.`id` = `sms_providers`.`user_id`)
WHERE `segment_price_micros` IS NULL;
--> statement-breakpoint
ALTER TABLE `users` DROP COLUMN `segment_price_micros`;
