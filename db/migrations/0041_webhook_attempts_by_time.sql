-- /metrics summarises the response times of the outbound webhooks' attempts of the last hour; without an index on
-- the attempt's time that read every delivery ever made, at each scrape (the table keeps them all).
CREATE INDEX `webhook_deliveries_attempted_idx` ON `webhook_deliveries` (`last_attempt_at`) WHERE `last_attempt_at` IS NOT NULL;
