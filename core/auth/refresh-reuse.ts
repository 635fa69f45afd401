// What happens when an already-rotated refresh token comes back (RFC 9700 §4.14): either the legitimate client or a thief holds a stale copy, and Rally cannot
// tell which, so the whole login ends: every refresh token of its family, every access token handed out with it (at once, on every API process, through the
// revocation list), and the owner is told.
import type { DatabasePool } from 'slonik';
import { notifyUsers } from '../notifications/create.ts';
import { revokeFamily, type RefreshTokenState } from './refresh-tokens.ts';
import type { RevocationList } from './revocation-list.ts';

export async function endFamilyAfterReuse(deps: { db: DatabasePool; revocations: RevocationList }, token: RefreshTokenState): Promise<void> {
  const accessTokens = await deps.db.transaction(async (tx) => {
    const alive = await revokeFamily(tx, token.family_id);
    await notifyUsers(tx, [
      {
        userId: token.user_id,
        type: 'account.session_revoked',
        title: 'A session of yours was ended',
        body:
          'A refresh token that had already been used was presented again, which happens when a token is stolen. ' +
          'That login was ended on every device; log in again, and change your password if this was not you.',
        data: { family_id: token.family_id },
        dedupeKey: `refresh-reuse:${token.family_id}`,
      },
    ]);
    return alive;
  });
  await deps.revocations.revokeMany(accessTokens);
}
