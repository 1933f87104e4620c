-- What a provider account charges per MMS, in millionths of a dollar (issue 33): null, the provider's list price
-- (src/providers/mms.ts DEFAULT_MMS_PRICE_MICROS), labelled as a default where it shows.
ALTER TABLE `sms_providers` ADD `mms_price_micros` integer;
