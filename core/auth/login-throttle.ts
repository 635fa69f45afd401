// Slows down and then refuses password guessing. Failures are counted per email and per client IP
// in a sliding window (RALLY_LOGIN_FAILURE_LIMIT, default 10 per 15 minutes per email; an IP gets
// five times that, since many people can share one address). From the third failure each attempt
// waits a little longer; at the limit the answer is 429 until the window passes.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { RateLimited } from '../errors/domain-error.ts';

const IP_LIMIT_FACTOR = 5;
const SLOWDOWN_STEP_MS = 250;
const SLOWDOWN_MAX_MS = 2_000;

const FailureWindow = z.object({ subject: z.string(), failures: z.number(), oldest: z.string().nullable() });

// The email is hashed so this table does not become a list of who tried to log in.
const emailSubject = (email: string) => `email:${createHash('sha256').update(email.trim().toLowerCase()).digest('base64url')}`;
const ipSubject = (ip: string) => `ip:${ip}`;

export type LoginThrottle = {
  /** Throws 429 at the limit; otherwise waits the slowdown due and returns. */
  beforeAttempt(email: string, ip: string): Promise<void>;
  recordFailure(email: string, ip: string): Promise<void>;
  recordSuccess(email: string): Promise<void>;
};

export function createLoginThrottle(deps: { db: DatabasePool; limit: { count: number; windowMs: number } }): LoginThrottle {
  const windowSeconds = deps.limit.windowMs / 1000;
  return {
    async beforeAttempt(email, ip) {
      const rows = await deps.db.any(sql.type(FailureWindow)`
        SELECT subject, count(*)::int AS failures, min(failed_at) AS oldest FROM login_failures
        WHERE subject = ANY(${sql.array([emailSubject(email), ipSubject(ip)], 'text')})
          AND failed_at > now() - make_interval(secs => ${windowSeconds})
        GROUP BY subject
      `);
      const byEmail = rows.find((row) => row.subject.startsWith('email:'));
      const byIp = rows.find((row) => row.subject.startsWith('ip:'));
      const blocking = [byEmail && byEmail.failures >= deps.limit.count ? byEmail : undefined, byIp && byIp.failures >= deps.limit.count * IP_LIMIT_FACTOR ? byIp : undefined].find(Boolean);
      if (blocking?.oldest) {
        const retryAfter = Math.max(1, Math.ceil((Date.parse(blocking.oldest) + deps.limit.windowMs - Date.now()) / 1000));
        throw new RateLimited('Too many failed logins. Wait before trying again.', { code: 'too_many_login_failures', retryAfterSeconds: retryAfter });
      }
      const failures = Math.max(byEmail?.failures ?? 0, Math.floor((byIp?.failures ?? 0) / IP_LIMIT_FACTOR));
      if (failures >= 2) await sleep(Math.min((failures - 1) * SLOWDOWN_STEP_MS, SLOWDOWN_MAX_MS));
    },
    async recordFailure(email, ip) {
      await deps.db.query(sql.typeAlias('void')`
        INSERT INTO login_failures (subject) VALUES (${emailSubject(email)}), (${ipSubject(ip)})
      `);
    },
    async recordSuccess(email) {
      await deps.db.query(sql.typeAlias('void')`DELETE FROM login_failures WHERE subject = ${emailSubject(email)}`);
    },
  };
}
