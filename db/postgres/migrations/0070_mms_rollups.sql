-- The dashboards count MMS apart from SMS (issue 33): as db/migrations/0070_mms_rollups.sql; its triggers as plpgsql
-- (the functions of the baseline, 0064_contact_tags, replaced with the MMS counts).
ALTER TABLE "messages" ADD COLUMN "mms" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE "message_rollups" ADD COLUMN "mms" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE "message_rollups" ADD COLUMN "mms_sent" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE "message_rollups" ADD COLUMN "mms_spend_micros" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE "message_day_rollups" ADD COLUMN "mms" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE "message_day_rollups" ADD COLUMN "mms_sent" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
ALTER TABLE "message_day_rollups" ADD COLUMN "mms_spend_micros" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
CREATE FUNCTION smsdesk_message_is_mms() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE messages SET mms = 1 WHERE id = NEW.message_id AND mms = 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER message_mms_linked AFTER INSERT ON message_media FOR EACH ROW EXECUTE FUNCTION smsdesk_message_is_mms();
--> statement-breakpoint
CREATE TRIGGER message_mms_own_insert AFTER INSERT ON media FOR EACH ROW WHEN (NEW.message_id IS NOT NULL)
EXECUTE FUNCTION smsdesk_message_is_mms();
--> statement-breakpoint
CREATE TRIGGER message_mms_own_update AFTER UPDATE OF message_id ON media FOR EACH ROW WHEN (NEW.message_id IS NOT NULL)
EXECUTE FUNCTION smsdesk_message_is_mms();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION smsdesk_message_rollup(m messages, sign int) RETURNS void LANGUAGE plpgsql AS $$ BEGIN
  IF sign < 0 THEN
    UPDATE message_rollups SET n = n - 1, sent = sent - (m.sent_at IS NOT NULL)::int,
      segments = segments - CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments END,
      spend_micros = spend_micros - CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments * coalesce(m.segment_price_micros, 0) END,
      mms = mms - m.mms, mms_sent = mms_sent - m.mms * (m.sent_at IS NOT NULL)::int,
      mms_spend_micros = mms_spend_micros - CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.mms * m.segments * coalesce(m.segment_price_micros, 0) END
    WHERE user_id = m.user_id AND quarter_hour = smsdesk_bucket(m.user_id, coalesce(m.sent_at, m.created_at)) AND status = m.status
      AND phone_number_id = coalesce(m.phone_number_id, '') AND campaign_id = coalesce(m.campaign_id, '') AND provider_id = coalesce(m.provider_id, '');
  ELSE
    INSERT INTO message_rollups (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id, n, sent, segments, spend_micros, mms, mms_sent, mms_spend_micros)
    VALUES (m.user_id, smsdesk_bucket(m.user_id, coalesce(m.sent_at, m.created_at)), m.status, coalesce(m.phone_number_id, ''),
      coalesce(m.campaign_id, ''), coalesce(m.provider_id, ''), 1, (m.sent_at IS NOT NULL)::int,
      CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments END,
      CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.segments * coalesce(m.segment_price_micros, 0) END,
      m.mms, m.mms * (m.sent_at IS NOT NULL)::int,
      CASE WHEN m.sent_at IS NULL THEN 0 ELSE m.mms * m.segments * coalesce(m.segment_price_micros, 0) END)
    ON CONFLICT (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id)
    DO UPDATE SET n = message_rollups.n + 1, sent = message_rollups.sent + excluded.sent, segments = message_rollups.segments + excluded.segments,
      spend_micros = message_rollups.spend_micros + excluded.spend_micros, mms = message_rollups.mms + excluded.mms,
      mms_sent = message_rollups.mms_sent + excluded.mms_sent, mms_spend_micros = message_rollups.mms_spend_micros + excluded.mms_spend_micros;
  END IF;
END $$;
--> statement-breakpoint
DROP TRIGGER message_rollups_update ON messages;
--> statement-breakpoint
CREATE TRIGGER message_rollups_update AFTER UPDATE OF status, sent_at, campaign_id, phone_number_id, provider_id, segments, segment_price_micros, mms
ON messages FOR EACH ROW
WHEN ((OLD.status IS DISTINCT FROM NEW.status OR OLD.sent_at IS DISTINCT FROM NEW.sent_at OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id
    OR OLD.phone_number_id IS DISTINCT FROM NEW.phone_number_id OR OLD.provider_id IS DISTINCT FROM NEW.provider_id
    OR OLD.segments IS DISTINCT FROM NEW.segments OR OLD.segment_price_micros IS DISTINCT FROM NEW.segment_price_micros
    OR OLD.mms IS DISTINCT FROM NEW.mms)
  AND NOT (OLD.status IN ('queued', 'sending') AND NEW.status IN ('queued', 'sending')))
EXECUTE FUNCTION message_rollups_update();
--> statement-breakpoint
CREATE FUNCTION message_day_rollups_add(r message_rollups, dn bigint, dsent bigint, dsegments bigint, dspend bigint, dmms bigint, dmms_sent bigint,
  dmms_spend bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  the_day bigint := smsdesk_rollup_day(r.user_id, r.quarter_hour);
BEGIN
  IF the_day IS NULL THEN RETURN; END IF;
  INSERT INTO message_day_rollups AS t (user_id, day, status, phone_number_id, campaign_id, n, sent, segments, spend_micros, mms, mms_sent, mms_spend_micros)
  VALUES (r.user_id, the_day, r.status, r.phone_number_id, r.campaign_id, dn, dsent, dsegments, dspend, dmms, dmms_sent, dmms_spend)
  ON CONFLICT (user_id, day, status, phone_number_id, campaign_id)
  DO UPDATE SET n = t.n + excluded.n, sent = t.sent + excluded.sent, segments = t.segments + excluded.segments,
    spend_micros = t.spend_micros + excluded.spend_micros, mms = t.mms + excluded.mms, mms_sent = t.mms_sent + excluded.mms_sent,
    mms_spend_micros = t.mms_spend_micros + excluded.mms_spend_micros;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION message_day_rollups_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  PERFORM message_day_rollups_add(NEW, NEW.n, NEW.sent, NEW.segments, NEW.spend_micros, NEW.mms, NEW.mms_sent, NEW.mms_spend_micros);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION message_day_rollups_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  PERFORM message_day_rollups_add(NEW, NEW.n - OLD.n, NEW.sent - OLD.sent, NEW.segments - OLD.segments, NEW.spend_micros - OLD.spend_micros,
    NEW.mms - OLD.mms, NEW.mms_sent - OLD.mms_sent, NEW.mms_spend_micros - OLD.mms_spend_micros);
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP FUNCTION message_day_rollups_add(message_rollups, bigint, bigint, bigint, bigint);
--> statement-breakpoint
DROP TRIGGER message_day_rollups_update ON message_rollups;
--> statement-breakpoint
CREATE TRIGGER message_day_rollups_update AFTER UPDATE OF n, sent, segments, spend_micros, mms, mms_sent, mms_spend_micros ON message_rollups FOR EACH ROW
EXECUTE FUNCTION message_day_rollups_update();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION message_day_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE message_day_rollups SET n = n - OLD.n, sent = sent - OLD.sent, segments = segments - OLD.segments, spend_micros = spend_micros - OLD.spend_micros,
    mms = mms - OLD.mms, mms_sent = mms_sent - OLD.mms_sent, mms_spend_micros = mms_spend_micros - OLD.mms_spend_micros
  WHERE user_id = OLD.user_id AND status = OLD.status AND phone_number_id = OLD.phone_number_id AND campaign_id = OLD.campaign_id
    AND day = smsdesk_rollup_day(OLD.user_id, OLD.quarter_hour);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION smsdesk_rollups_again() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM message_rollups WHERE user_id = NEW.user_id;
  INSERT INTO message_rollups (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id, n, sent, segments, spend_micros, mms, mms_sent, mms_spend_micros)
  SELECT user_id, coalesce(sent_at, created_at) / 900000 / NEW.quarters * NEW.quarters, status, coalesce(phone_number_id, ''),
    coalesce(campaign_id, ''), coalesce(provider_id, ''), 1, (sent_at IS NOT NULL)::int, CASE WHEN sent_at IS NULL THEN 0 ELSE segments END,
    CASE WHEN sent_at IS NULL THEN 0 ELSE segments * coalesce(segment_price_micros, 0) END,
    mms, mms * (sent_at IS NOT NULL)::int, CASE WHEN sent_at IS NULL THEN 0 ELSE mms * segments * coalesce(segment_price_micros, 0) END
  FROM messages WHERE user_id = NEW.user_id AND status NOT IN ('queued', 'sending')
  ON CONFLICT (user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id)
  DO UPDATE SET n = message_rollups.n + 1, sent = message_rollups.sent + excluded.sent, segments = message_rollups.segments + excluded.segments,
    spend_micros = message_rollups.spend_micros + excluded.spend_micros, mms = message_rollups.mms + excluded.mms,
    mms_sent = message_rollups.mms_sent + excluded.mms_sent, mms_spend_micros = message_rollups.mms_spend_micros + excluded.mms_spend_micros;
  DELETE FROM contact_rollups WHERE user_id = NEW.user_id;
  INSERT INTO contact_rollups (user_id, quarter_hour, n)
  SELECT user_id, created_at / 900000 / NEW.quarters * NEW.quarters, 1 FROM contacts WHERE user_id = NEW.user_id
  ON CONFLICT (user_id, quarter_hour) DO UPDATE SET n = contact_rollups.n + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
UPDATE messages SET mms = 1 WHERE id IN (SELECT message_id FROM media WHERE message_id IS NOT NULL UNION SELECT message_id FROM message_media);
