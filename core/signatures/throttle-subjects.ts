// What the signing throttle counts a signature against besides the client address: the signer's network block (/24 or /64, network-block.ts) and email domain
// as normalised for signatures (rally_email_key: lower-case, Gmail's aliases folded).
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createBoundedLru } from '../../platform/bounded-lru.ts';

export { networkBlockOf } from './network-block.ts';

const CACHE_TTL_MS = 10 * 60_000;
const CACHE_MAX_ENTRIES = 100_000;

export type SignerDomains = { domainOf(userId: string): Promise<string | null> };

// Users and OAuth apps bring the domain from authentication (Principal.emailDomain: in a campaign every signer
// is new, so a cache here never hit and each signature cost a query of its own); for API keys it is read here,
// once per user, and kept briefly in memory.
export function createSignerDomains(db: DatabasePool): SignerDomains {
  const cache = createBoundedLru<string, { domain: string | null }>(CACHE_MAX_ENTRIES, { ttl: CACHE_TTL_MS });
  return {
    async domainOf(userId) {
      const hit = cache.get(userId);
      if (hit) return hit.domain;
      const domain = await db.maybeOneFirst(sql.type(z.object({ domain: z.string().nullable() }))`
        SELECT NULLIF(split_part(rally_email_key(email), '@', 2), '') AS domain FROM users WHERE id = ${userId}
      `);
      cache.set(userId, { domain: domain ?? null });
      return domain ?? null;
    },
  };
}
