// How recent the login behind a request is, for actions that need a fresh one (deleting one's account, RALLY_SENSITIVE_ACTION_MAX_AGE). The login's time is its
// refresh-token family's first token (refresh-tokens.ts), so a token refreshed a minute ago from a month-old login is not fresh. API keys and app tokens carry
// no login at all, so they never are.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Unauthenticated } from '../errors/domain-error.ts';
import type { Principal } from './principal.ts';

const reauthenticate = (detail: string) => new Unauthenticated(detail, { code: 'reauthentication_required' });

/** Throws 401 `reauthentication_required` unless the principal logged in (with a password) within maxAgeMs. */
export async function assertFreshLogin(db: CommonQueryMethods, principal: Principal, maxAgeMs: number): Promise<void> {
  if (principal.kind !== 'user' || !principal.tokenId) throw reauthenticate('This needs your own login, not an API key or an app: log in again and retry.');
  const fresh = await db.maybeOneFirst(sql.type(z.object({ fresh: z.boolean() }))`
    SELECT min(r.created_at) > now() - make_interval(secs => ${maxAgeMs / 1000}) AS fresh
    FROM refresh_token_family_access_tokens f JOIN refresh_tokens r ON r.family_id = f.family_id
    WHERE f.jti = ${principal.tokenId}
  `);
  if (fresh !== true) throw reauthenticate('This needs a recent login: log in again with your password and retry within a few minutes.');
}

/** The same rule for a browser session, whose start is its login. */
export async function isFreshBrowserLogin(db: CommonQueryMethods, sessionId: string, maxAgeMs: number): Promise<boolean> {
  const fresh = await db.maybeOneFirst(sql.type(z.object({ fresh: z.boolean() }))`
    SELECT created_at > now() - make_interval(secs => ${maxAgeMs / 1000}) AS fresh FROM browser_sessions WHERE id = ${sessionId}
  `);
  return fresh === true;
}
