// Who a token's subject is, without a query per request: (issuer, subject) → user id, role and
// suspension, cached briefly in each API process. A suspension or role change NOTIFYs
// rally_user_changed so every process forgets the user at once instead of after the TTL.
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../../db/notifications.ts';
import { sql } from '../../db/sql.ts';
import { findUserByIdentity } from './queries.ts';

export const USER_CHANGED_CHANNEL = 'rally_user_changed';
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 50_000;

export type DirectoryEntry = { id: string; role: 'user' | 'admin'; suspended: boolean };

export type UserDirectory = {
  bySubject(issuer: string, subject: string): Promise<DirectoryEntry | undefined>;
  /** Call in the transaction that changed the user, so the NOTIFY goes out at commit. */
  announceChange(tx: Pick<DatabasePool, 'query'>, userId: string): Promise<void>;
};

export async function createUserDirectory(deps: { db: DatabasePool; notifications: NotificationListener }): Promise<UserDirectory> {
  const cache = new Map<string, { entry: DirectoryEntry; cachedAt: number }>();
  const keysByUser = new Map<string, string>();

  await deps.notifications.listen(USER_CHANGED_CHANNEL, (userId) => {
    const key = keysByUser.get(userId);
    if (key) cache.delete(key);
  });
  deps.notifications.onReconnect(() => cache.clear());

  return {
    async bySubject(issuer, subject) {
      const key = `${issuer} ${subject}`;
      const hit = cache.get(key);
      if (hit && Date.now() - hit.cachedAt < CACHE_TTL_MS) return hit.entry;
      const entry = await findUserByIdentity(deps.db, issuer, subject);
      if (!entry) return undefined;
      if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
      cache.set(key, { entry, cachedAt: Date.now() });
      keysByUser.set(entry.id, key);
      return entry;
    },
    async announceChange(tx, userId) {
      await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${USER_CHANGED_CHANNEL}, ${userId})`);
    },
  };
}
