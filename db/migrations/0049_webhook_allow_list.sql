-- Issue 27 item 6: the "Allow private networks" switch becomes an administrator's allow-list of networks and host
-- names (src/admin/networks.ts). An installation that had the switch on keeps its LAN webhooks working: the
-- private IPv4 networks are listed for it. Loopback and link-local addresses, which the switch also opened, are no
-- longer reachable at all.
INSERT INTO `system_settings` (`key`, `value`, `updated_at`)
SELECT 'webhookAllowList', '["10.0.0.0/8","172.16.0.0/12","192.168.0.0/16"]', `updated_at` FROM `system_settings`
WHERE `key` = 'allowPrivateNetworks' AND `value` = 'true';
--> statement-breakpoint
DELETE FROM `system_settings` WHERE `key` = 'allowPrivateNetworks';
--> statement-breakpoint
-- An answer from a non-public receiver is kept for the administrator but not shown to the tenant: it may be an
-- internal service's.
ALTER TABLE `webhook_deliveries` ADD `response_hidden` integer DEFAULT 0 NOT NULL;
