-- A login-attempt window now opens with its subject's first attempt (core/auth/login-throttle.ts):
-- windows aligned to the clock let a burst across a boundary have two windows' worth of password
-- checks. One row per subject, its newest window kept.
DELETE FROM login_attempts older USING login_attempts newer
WHERE older.subject = newer.subject AND older.window_start < newer.window_start;
ALTER TABLE login_attempts DROP CONSTRAINT login_attempts_pkey, ADD CONSTRAINT login_attempts_pkey PRIMARY KEY (subject);
