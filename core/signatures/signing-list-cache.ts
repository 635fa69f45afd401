// The signing lists (signing-lists.ts) as each API process matches them: compiled in memory, every signer's verdict remembered in an LRU, all of it reloaded
// when the database announces a change (rally_signing_lists_changed, migration 0045), so an entry takes effect within a second or two everywhere; and reloaded
// after a lost LISTEN connection, whose announcements are lost.
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../../db/notifications.ts';
import { createBoundedLru } from '../../platform/bounded-lru.ts';
import type { Logger } from '../../platform/logger.ts';
import { compileSigningLists, listSigningListEntries, SIGNING_LISTS_CHANNEL, type ListVerdict } from './signing-lists.ts';

const MAX_VERDICTS = 50_000;
const UNLISTED: ListVerdict = Object.freeze({ blocked: false, networkAllowed: false, domainAllowed: false, exemptAddressLimit: false });

export type SigningListCache = { verdict(address: string, domain: string | null): ListVerdict };

export async function createSigningListCache(deps: { db: DatabasePool; notifications: NotificationListener; log: Logger }): Promise<SigningListCache> {
  let lists = compileSigningLists([]);
  const verdicts = createBoundedLru<string, ListVerdict>(MAX_VERDICTS);
  let generation = 0;

  async function reload(): Promise<void> {
    const started = ++generation;
    const entries = await listSigningListEntries(deps.db);
    // A reload that started later wins, whichever ends first.
    if (started !== generation) return;
    lists = compileSigningLists(entries);
    verdicts.clear();
  }
  const reloadOrWarn = () => void reload().catch((error: Error) => deps.log.warn('signing lists not reloaded', { error: error.message }));

  await deps.notifications.listen(SIGNING_LISTS_CHANNEL, reloadOrWarn);
  deps.notifications.onReconnect(reloadOrWarn);
  await reload();

  return {
    verdict(address, domain) {
      if (lists.empty) return UNLISTED;
      const key = `${address} ${domain ?? ''}`;
      let verdict = verdicts.get(key);
      if (!verdict) {
        verdict = lists.verdict(address, domain);
        verdicts.set(key, verdict);
      }
      return verdict;
    },
  };
}
