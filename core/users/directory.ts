// Who a token's subject is, without a query per request: (issuer, subject) → user id, role and suspension, cached briefly in a bounded, expiring LRU in each
// API process; the subjects missing at one moment (a campaign's signers are all new) are looked up together in one statement (identity-batch.ts). A suspension
// or role change NOTIFYs rally_user_changed, so every process forgets the user at once instead of after the TTL.
import { createBoundedLru } from '../../platform/bounded-lru.ts';
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../../db/notifications.ts';
import { sql } from '../../db/sql.ts';
import { findUserStateById } from './queries.ts';
import { createIdentityBatch } from './identity-batch.ts';

export const USER_CHANGED_CHANNEL = 'rally_user_changed';
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 50_000;

export type DirectoryEntry = { id: string; role: 'user' | 'admin'; suspended: boolean; email_domain: string | null };

export type UserDirectory = {
  bySubject(issuer: string, subject: string): Promise<DirectoryEntry | undefined>;
  /** For tokens Rally issued itself (OAuth apps), whose subject is the Rally user id. */
  byUserId(userId: string): Promise<DirectoryEntry | undefined>;
  /** Forgets the user in this process now, after a change this process committed. */
  forget(userId: string): void;
  /** Call in the transaction that changed the user, so the NOTIFY goes out at commit. */
  announceChange(tx: Pick<DatabasePool, 'query'>, userId: string): Promise<void>;
};

// The process that made a change forgets the user before answering (`forget`), since its own NOTIFY reaches its
// listener a moment after the commit, and the caller's next request can be quicker than that.
export async function createUserDirectory(deps: { db: DatabasePool; notifications: NotificationListener }): Promise<UserDirectory> {
  // Both purged by age: a campaign's signers each fill an entry once, and would hold it until evicted.
  const cache = createBoundedLru<string, DirectoryEntry>(CACHE_MAX_ENTRIES, { ttl: CACHE_TTL_MS, purgeStaleEveryMs: CACHE_TTL_MS / 3 });
  const keysByUser = createBoundedLru<string, string>(CACHE_MAX_ENTRIES, { ttl: CACHE_TTL_MS, purgeStaleEveryMs: CACHE_TTL_MS / 3 });
  const identities = createIdentityBatch(deps.db);

  const forget = (userId: string) => {
    const key = keysByUser.get(userId);
    if (key) cache.delete(key);
    cache.delete(`rally ${userId}`);
  };
  await deps.notifications.listen(USER_CHANGED_CHANNEL, forget);
  deps.notifications.onReconnect(() => cache.clear());

  // Login tokens are keyed by issuer and subject; app tokens by `rally <user id>` (forgotten above too).
  async function cached(key: string, find: () => Promise<DirectoryEntry | null>) {
    const hit = cache.get(key);
    if (hit) return hit;
    const entry = await find();
    if (!entry) return undefined;
    cache.set(key, entry);
    if (!key.startsWith('rally ')) keysByUser.set(entry.id, key);
    return entry;
  }

  return {
    bySubject: (issuer, subject) => cached(`${issuer} ${subject}`, () => identities.find(issuer, subject)),
    byUserId: (userId) => cached(`rally ${userId}`, () => findUserStateById(deps.db, userId)),
    forget,
    async announceChange(tx, userId) {
      await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${USER_CHANGED_CHANNEL}, ${userId})`);
    },
  };
}
