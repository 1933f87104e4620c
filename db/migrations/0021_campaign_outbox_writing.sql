-- A large campaign's outbox is written in chunks (src/campaigns/outbox-writer.ts) so the server keeps answering:
-- while chunks remain, this holds where the next one starts and what every chunk is written with (JSON: cursor,
-- due time, sender). NULL once the whole audience is in the outbox. Each chunk's rows and the new cursor commit
-- together, so a crash resumes at start-up where it stopped: nothing lost, nothing written twice.
ALTER TABLE `campaigns` ADD `outbox_writing` text;
