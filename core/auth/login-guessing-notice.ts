// Telling an account's owner that its password is being guessed: a notification (in-app, and by
// email through the notification emails' outbox and workflow, so it survives a crash) to every
// account with the address, once per throttle window. Nothing is said to the person trying.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { notifyUsers } from '../notifications/create.ts';

const minutes = (ms: number) => (ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`);

export async function tellOwnerOfGuessing(
  db: DatabasePool,
  attempt: { email: string; emailHash: string; windowStarted: number; windowMs: number },
): Promise<void> {
  const owners = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM users WHERE lower(email) = lower(${attempt.email.trim()})
  `);
  const until = new Date(attempt.windowStarted * 1000 + attempt.windowMs).toISOString().replace(/\.\d+Z$/, 'Z');
  await notifyUsers(
    db,
    owners.map((userId) => ({
      userId,
      type: 'account.login_throttled',
      title: 'Someone is trying passwords on your account',
      body:
        `Too many wrong passwords were tried for your email address within ${minutes(attempt.windowMs)}, so logins with it ` +
        `are refused until ${until}, except from a browser you have logged in with before. ` +
        'If it was not you, someone may be guessing: use a password you use nowhere else.',
      data: { until },
      dedupeKey: `login-throttled:${attempt.emailHash}:${attempt.windowStarted}`,
    })),
  );
}
