-- Issue 27 item 7: an account's test sends wait while it has 100 deliveries pending; counting them reads this
-- partial index (pending deliveries only, a handful) instead of every delivery the account ever had.
CREATE INDEX `webhook_deliveries_pending_idx` ON `webhook_deliveries` (`user_id`) WHERE `status` = 'pending';
