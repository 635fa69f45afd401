// What workflows do to API keys.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';

export function createApiKeyActivities({ db }: { db: DatabasePool }) {
  return {
    /**
     * Ends a rotated key's grace window for good. Only a key whose rotation committed (expires_at
     * set) is touched, and an already revoked key keeps its first revocation time: safe to repeat.
     */
    async revokeRotatedApiKey({ keyId }: { keyId: string }): Promise<boolean> {
      const revoked = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
        UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
        WHERE id = ${keyId} AND expires_at IS NOT NULL
        RETURNING id
      `);
      return revoked !== null;
    },
  };
}

export type ApiKeyActivities = ReturnType<typeof createApiKeyActivities>;
