-- Deleting a provider account checks for messages still pointing at it (messages.provider_id ON DELETE SET NULL), and
-- SQLite found them with a scan of the whole messages table, every account's: the partial unique index on
-- (provider_id, provider_message_id) cannot serve `provider_id = ?`. 136 ms per million messages, the event loop held
-- throughout, even when none pointed at it. With this index the check is a lookup, and messages a number deleted
-- earlier left pointing at the account are detached a chunk at a time before the DELETE (src/messages/detach.ts).
-- Detached messages are left out of the index. It costs a message's insert about 1% (the same provider's messages
-- follow one another in it).
CREATE INDEX `messages_provider_idx` ON `messages` (`provider_id`) WHERE `provider_id` IS NOT NULL;
