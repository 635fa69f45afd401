// What workflows do to API keys (core/api-keys/rotation.ts does the work).
import type { DatabasePool } from 'slonik';
import { endRotationGrace } from '../core/api-keys/rotation.ts';

export function createApiKeyActivities({ db }: { db: DatabasePool }) {
  return {
    /** Ends a rotated key's grace window for good; safe to repeat. */
    revokeRotatedApiKey: ({ keyId }: { keyId: string }): Promise<boolean> => endRotationGrace(db, keyId),
  };
}

export type ApiKeyActivities = ReturnType<typeof createApiKeyActivities>;
