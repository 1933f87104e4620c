-- An A/B test's messages by variant (issue 32 item 3): the test's report counts them by variant and status, and
-- reads their variants and replies, for each request. Only test messages carry a variant, so the index holds them
-- alone; without it each count read every message of the campaign in phone order (10,000 test messages of a
-- 50,000 audience: 116 ms, a hold of the event loop on every GET of the report).
CREATE INDEX `messages_ab_variant_idx` ON `messages` (`campaign_id`,`ab_variant`,`status`,`sent_at`) WHERE `ab_variant` IS NOT NULL;
