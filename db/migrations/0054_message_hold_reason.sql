-- Which rule holds a queued marketing message (issue 34 item 2): the account's quiet hours, or a state's hours or
-- cap (src/sending/state-rules.ts), in the words the campaign's recipients and the API show
-- ("Held: Florida law allows texts 8 AM–8 PM (Fla. Stat. § 501.616(6))"). Null once it is let go or sent.
ALTER TABLE `messages` ADD `hold_reason` text;
