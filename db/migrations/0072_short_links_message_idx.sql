-- Short links by their message (issue 32 item 5): a repeated chunk's links are dropped by message id
-- (src/links/links.ts dropLinksOfMessages), which scanned the whole table without it.
CREATE INDEX `short_links_message_idx` ON `short_links` (`message_id`);
