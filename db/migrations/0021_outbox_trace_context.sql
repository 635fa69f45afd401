-- Observability (issue 17). An outbox event remembers the trace of the request that wrote it, as the
-- W3C `traceparent`/`tracestate` carrier (NULL when tracing is off), so the dispatcher can start the
-- event's webhook deliveries inside that same trace: one trace from the sign request to each attempt.
ALTER TABLE events ADD COLUMN trace_context jsonb;

-- rally_webhook_endpoints_failing counts active endpoints failing for a while at every scrape; only
-- the few failing endpoints are in this index.
CREATE INDEX webhook_endpoints_failing_idx ON webhook_endpoints (failing_since) WHERE is_active AND failing_since IS NOT NULL;
