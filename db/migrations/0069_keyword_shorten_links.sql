-- A keyword's replies (its welcome and already-subscribed texts) go out with short links unless it says not
-- (issue 32 item 1: links in keyword replies are shortened at send time, with a switch per message).
ALTER TABLE `keywords` ADD `shorten_links` integer DEFAULT 1 NOT NULL;
