// Refuses password guessing (RALLY_LOGIN_FAILURE_LIMIT, default 10 per 15 minutes), per email, per client address and per device cookie. Every attempt is
// counted in PostgreSQL before the password is checked, in one statement that increments and returns the counts, so parallel attempts on any API process cannot
// all read the same count. A window opens with its subject's first attempt; a successful login takes its attempt back.
import { createHash } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { RateLimited } from '../errors/domain-error.ts';
import { clientAddressGroup } from '../signatures/network-block.ts';
import { metrics } from '../../platform/metrics.ts';
import { createDeviceCookies } from './device-cookies.ts';
import { tellOwnerOfGuessing } from './login-guessing-notice.ts';

const IP_LIMIT_FACTOR = 5;

const AttemptCount = z.object({ subject: z.string(), attempts: z.number(), retry_after: z.number(), window_started: z.number() });

// The email is hashed so these tables do not become a list of who tried to log in.
const emailHash = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

// The three counts: per email, from any address, past the limit every attempt answers 429 until the window
// passes, whether or not an account has that email, and the owner is told once per window; per client address
// (IPv6 by /64), any email, five times the limit (many people share one address); per device cookie
// (device-cookies.ts), a browser that logged in to the account before is held only by its own count (the
// limit), not by the two others, so strangers cannot lock the owner out.
function subjectsOf(hashedEmail: string, ip: string, deviceNonce: string | undefined) {
  const subjects = { email: `email:${hashedEmail}`, ip: `ip:${clientAddressGroup(ip)}`, device: deviceNonce && `device:${deviceNonce}` };
  // Always in this order, so two statements never lock the same rows in opposite orders.
  return { ...subjects, all: [subjects.email, subjects.ip, ...(subjects.device ? [subjects.device] : [])] };
}

export type LoginThrottle = {
  /** Counts the attempt; throws 429 `too_many_login_failures` past a limit. `deviceCookie`: the browser's, if any. */
  beforeAttempt(email: string, ip: string, deviceCookie?: string): Promise<void>;
  /** Takes the attempt back; answers the device cookie the browser keeps from now on. */
  recordSuccess(email: string, ip: string, deviceCookie?: string): Promise<string>;
};

export function createLoginThrottle(deps: { db: DatabasePool; limit: { count: number; windowMs: number }; encryptionKey: string }): LoginThrottle {
  const { count: limit, windowMs } = deps.limit;
  const window = sql.fragment`make_interval(secs => ${windowMs / 1000})`;
  const devices = createDeviceCookies(deps.encryptionKey);

  return {
    async beforeAttempt(email, ip, deviceCookie) {
      const hashed = emailHash(email);
      const subject = subjectsOf(hashed, ip, devices.nonceFor(deviceCookie, hashed));
      // A row past its window starts a new one at this attempt.
      const counts = await deps.db.any(sql.type(AttemptCount)`
        INSERT INTO login_attempts (subject, window_start)
        SELECT unnest(${sql.array(subject.all, 'text')}), now()
        ON CONFLICT ON CONSTRAINT login_attempts_pkey DO UPDATE SET
          attempts = CASE WHEN login_attempts.window_start > now() - ${window} THEN login_attempts.attempts + 1 ELSE 1 END,
          window_start = CASE WHEN login_attempts.window_start > now() - ${window} THEN login_attempts.window_start ELSE now() END
        RETURNING subject, attempts, ceil(extract(epoch FROM window_start + ${window} - now()))::int AS retry_after,
          floor(extract(epoch FROM window_start))::float8 AS window_started
      `);
      const count = (name: string | undefined) => counts.find((row) => row.subject === name);
      const byEmail = count(subject.email)!;
      // The first attempt past the limit in a window tells the owner (dedupe keeps it to one per window).
      if (byEmail.attempts === limit + 1) await tellOwnerOfGuessing(deps.db, { email, emailHash: hashed, windowStarted: byEmail.window_started, windowMs });
      const byDevice = count(subject.device);
      const byIp = count(subject.ip)!;
      const refusing = byDevice
        ? byDevice.attempts > limit && byDevice
        : (byEmail.attempts > limit && byEmail) || (byIp.attempts > limit * IP_LIMIT_FACTOR && byIp);
      if (refusing) {
        metrics.rateLimitRejections.inc({ limit: 'login' });
        throw new RateLimited('Too many failed logins. Wait before trying again.', {
          code: 'too_many_login_failures',
          retryAfterSeconds: Math.max(1, refusing.retry_after),
        });
      }
    },
    async recordSuccess(email, ip, deviceCookie) {
      const hashed = emailHash(email);
      const subject = subjectsOf(hashed, ip, devices.nonceFor(deviceCookie, hashed));
      // Only failures count: the people behind one address (an office, a school) do not use up each
      // other's logins, and the owner's own logins do not add to a lock.
      await deps.db.query(sql.typeAlias('void')`
        UPDATE login_attempts SET attempts = attempts - 1
        WHERE subject = ANY(${sql.array(subject.all, 'text')}) AND window_start > now() - ${window} AND attempts > 0
      `);
      return devices.issue(deviceCookie, hashed);
    },
  };
}
