// The directory's lookups of (issuer, subject), gathered: every lookup asked for while the event loop handles one round of arriving requests waits for the next
// turn (setImmediate), then all of them are answered by one statement. A campaign brings signers the directory has never seen; without this each cost a
// statement of its own before its signature's batch (34,732 of them in the bench's hot row).
import type { DatabasePool } from 'slonik';
import { findUsersByIdentities, type UserIdentity } from './queries.ts';
import type { z } from 'zod';

type Found = z.infer<typeof UserIdentity>;
// NUL cannot occur in PostgreSQL text, so no two identities share a key.
const keyOf = (issuer: string, subject: string) => `${issuer}\u0000${subject}`;
type Waiting = { issuer: string; subject: string; settle: { resolve(found: Found | null): void; reject(error: unknown): void }[] };

// One statement stays small (an index probe per pair); more waiting than this go in further statements.
const MAX_PER_STATEMENT = 500;

export function createIdentityBatch(db: DatabasePool) {
  let waiting = new Map<string, Waiting>();

  async function lookUp(batch: Waiting[]): Promise<void> {
    try {
      const rows = await findUsersByIdentities(db, batch);
      const byKey = new Map(rows.map(({ identity_issuer: issuer, identity_subject: subject, ...found }) => [keyOf(issuer, subject), found]));
      for (const each of batch) for (const { resolve } of each.settle) resolve(byKey.get(keyOf(each.issuer, each.subject)) ?? null);
    } catch (error) {
      for (const each of batch) for (const { reject } of each.settle) reject(error);
    }
  }

  function flush(): void {
    const batch = [...waiting.values()];
    waiting = new Map();
    for (let start = 0; start < batch.length; start += MAX_PER_STATEMENT) void lookUp(batch.slice(start, start + MAX_PER_STATEMENT));
  }

  return {
    /** The user of this identity, or null when there is none; answered with the others asked for meanwhile. */
    find(issuer: string, subject: string): Promise<Found | null> {
      // No user has such an identity, and PostgreSQL would refuse the whole statement for it.
      if (`${issuer}${subject}`.includes('\u0000')) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        const key = keyOf(issuer, subject);
        if (waiting.size === 0) setImmediate(flush);
        const entry = waiting.get(key) ?? { issuer, subject, settle: [] };
        entry.settle.push({ resolve, reject });
        waiting.set(key, entry);
      });
    },
  };
}
