-- Answers that show a secret once (raw API keys, webhook secrets) are not kept for replay: only the
-- status, the replayed headers and the id of what was created. A retry of such a request is told
-- so (409 idempotency_secret_not_replayable) with that id, instead of seeing the secret again.
-- Fingerprints stored before this migration were plain SHA-256; they are now HMACs, so old rows
-- simply no longer match and expire within their 24 hours.
ALTER TABLE idempotency_keys ADD COLUMN response_withheld boolean NOT NULL DEFAULT false;
