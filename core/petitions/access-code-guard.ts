// Access codes are short, so guessing them is limited: after 10 wrong codes for one petition from
// one client IP within 15 minutes, further tries answer 429 until the window passes. Failures are
// kept in PostgreSQL (the login_failures table) so the limit holds across API processes.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { RateLimited } from '../errors/domain-error.ts';

const LIMIT = 10;
const WINDOW_SECONDS = 15 * 60;

export type AccessCodeGuard = { check(petitionId: string, clientIp: string, valid: boolean): Promise<void> };

export function createAccessCodeGuard({ db }: { db: DatabasePool }): AccessCodeGuard {
  return {
    async check(petitionId, clientIp, valid) {
      const subject = `access-code:${petitionId}:${clientIp}`;
      const failures = await db.oneFirst(sql.type(z.object({ failures: z.number() }))`
        SELECT count(*)::int AS failures FROM login_failures
        WHERE subject = ${subject} AND failed_at > now() - make_interval(secs => ${WINDOW_SECONDS})
      `);
      if (failures >= LIMIT) {
        throw new RateLimited('Too many wrong access codes for this petition. Wait before trying again.', {
          code: 'too_many_access_code_attempts',
          retryAfterSeconds: WINDOW_SECONDS,
        });
      }
      if (!valid) await db.query(sql.typeAlias('void')`INSERT INTO login_failures (subject) VALUES (${subject})`);
    },
  };
}
