-- A `ping` delivery: the signed test event an endpoint receives when it is created and on
-- POST /v1/webhooks/{id}/test. Its event is written already dispatched, so it goes to that endpoint only.
-- NOT VALID, then VALIDATE: the rows are checked without holding off deliveries while the table is scanned.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_cause_valid;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_cause_valid CHECK (cause IN ('event', 'redelivery', 'replay', 'ping')) NOT VALID;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_cause_valid;
