-- The outbox dispatcher asks every round (tens a second under signing) which notification emails
-- and which guest confirmation emails are due: pending and not queued, or queued longer than the
-- requeue window ago. The partial indexes of pending emails, by recipient or by request time,
-- answered that by reading every pending email, queued or not: after a spread signing spike notified
-- thousands of creators, 5.4 ms a poll that found none (PostgreSQL's second statement by time in the
-- bench's hot signing rounds); the guest emails of a burst of forms the same. Indexed by when they
-- are due (never queued sorting first), a poll with nothing due reads one index entry.
CREATE INDEX notifications_email_due_idx ON notifications ((COALESCE(email_queued_at, '-infinity'::timestamptz))) WHERE email_pending;
CREATE INDEX guest_signatures_email_queue_idx ON guest_signatures ((COALESCE(email_queued_at, '-infinity'::timestamptz))) WHERE email_due;
