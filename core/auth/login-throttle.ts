// Slows down and then refuses password guessing. Every attempt is counted before the password is
// checked, in one statement that increments and returns the counts, so parallel attempts cannot
// all read the same count (RALLY_LOGIN_FAILURE_LIMIT, default 10 per 15 minutes, fixed windows):
// - per (email, client address): at the limit the answer is 429 until the window passes;
// - per client address, any email: five times the limit (many people share one address), then 429;
// - per email from anywhere: ten times the limit, after which attempts are slowed, never refused,
//   so a stranger cannot lock a victim out of their account.
// A successful login clears its (email, address) and email counts, and takes its attempt back from
// the address's count.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { RateLimited } from '../errors/domain-error.ts';
import { metrics } from '../../platform/metrics.ts';

const IP_LIMIT_FACTOR = 5;
const EMAIL_CEILING_FACTOR = 10;
const SLOWDOWN_STEP_MS = 250;
const SLOWDOWN_MAX_MS = 2_000;

const AttemptCount = z.object({ subject: z.string(), attempts: z.number(), retry_after: z.number() });

// The email is hashed so these tables do not become a list of who tried to log in.
const emailHash = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
const subjects = (email: string, ip: string) => ({ pair: `pair:${emailHash(email)}:${ip}`, email: `email:${emailHash(email)}`, ip: `ip:${ip}` });

export type LoginThrottle = {
  /** Counts the attempt; throws 429 past a limit, otherwise waits the slowdown due and returns. */
  beforeAttempt(email: string, ip: string): Promise<void>;
  recordSuccess(email: string, ip: string): Promise<void>;
};

export function createLoginThrottle(deps: { db: DatabasePool; limit: { count: number; windowMs: number } }): LoginThrottle {
  const windowSeconds = deps.limit.windowMs / 1000;
  const windowStart = sql.fragment`to_timestamp(floor(extract(epoch FROM now()) / ${windowSeconds}) * ${windowSeconds})`;
  return {
    async beforeAttempt(email, ip) {
      const subject = subjects(email, ip);
      const counts = await deps.db.any(sql.type(AttemptCount)`
        INSERT INTO login_attempts (subject, window_start)
        SELECT unnest(${sql.array([subject.pair, subject.email, subject.ip], 'text')}), ${windowStart}
        ON CONFLICT ON CONSTRAINT login_attempts_pkey DO UPDATE SET attempts = login_attempts.attempts + 1
        RETURNING subject, attempts, ceil(extract(epoch FROM window_start + make_interval(secs => ${windowSeconds}) - now()))::int AS retry_after
      `);
      const count = (name: string) => counts.find((row) => row.subject === name);
      const refusing = [
        (count(subject.pair)?.attempts ?? 0) > deps.limit.count ? count(subject.pair) : undefined,
        (count(subject.ip)?.attempts ?? 0) > deps.limit.count * IP_LIMIT_FACTOR ? count(subject.ip) : undefined,
      ].find(Boolean);
      if (refusing) {
        metrics.rateLimitRejections.inc({ limit: 'login' });
        throw new RateLimited('Too many failed logins. Wait before trying again.', {
          code: 'too_many_login_failures',
          retryAfterSeconds: Math.max(1, refusing.retry_after),
        });
      }
      const byPair = count(subject.pair)?.attempts ?? 0;
      const overCeiling = (count(subject.email)?.attempts ?? 0) > deps.limit.count * EMAIL_CEILING_FACTOR;
      const delay = overCeiling ? SLOWDOWN_MAX_MS : Math.min(Math.max(0, byPair - 2) * SLOWDOWN_STEP_MS, SLOWDOWN_MAX_MS);
      if (delay > 0) await sleep(delay);
    },
    async recordSuccess(email, ip) {
      const subject = subjects(email, ip);
      // The address keeps counting guesses only: a good login takes its own attempt back, so the many
      // people behind one address (an office, a school) do not use up each other's logins.
      await deps.db.query(sql.typeAlias('void')`
        WITH cleared AS (
          DELETE FROM login_attempts WHERE subject = ANY(${sql.array([subject.pair, subject.email], 'text')})
        )
        UPDATE login_attempts SET attempts = attempts - 1
        WHERE subject = ${subject.ip} AND window_start = ${windowStart} AND attempts > 0
      `);
    },
  };
}
