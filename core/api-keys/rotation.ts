// Rotating a key: the new key and the old key's grace window commit together with the start of the
// workflow that ends the window. The workflow starts inside the transaction: if the commit then
// fails, the workflow finds no rotation and revokes nothing; if the start fails, nothing commits.
import type { Client } from '@temporalio/client';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { apiKeyRotation, apiKeyRotationWorkflowId } from '../../workflows/index.ts';
import { RallyApiKeyId, RallyEntityType } from '../../workflows/search-attributes.ts';
import { generateApiKey } from './secrets.ts';
import { Conflict, NotFound, Unavailable, ensure } from '../errors/domain-error.ts';
import { beginRotation, findApiKey, insertApiKey, revokeApiKey } from './queries.ts';

export type RotationDependencies = { db: DatabasePool; temporal: Client; taskQueue: string; gracePeriodMs: number };

const temporalUnavailable = (cause: unknown) => new Unavailable('The workflow service cannot be reached; nothing was changed. Retry shortly.', { cause });

/** `createdBy`: for an organization's key, the person who now holds the replacement's secret. */
export async function rotateApiKey(deps: RotationDependencies, userId: string, keyId: string, createdBy: string | null = null) {
  return deps.db.transaction(async (tx) => {
    const old = await findApiKey(tx, userId, keyId);
    ensure(old, NotFound, `You have no API key ${keyId}.`);
    ensure(!old.revoked_at, Conflict, 'This key is revoked; create a new one instead.', { code: 'api_key_revoked' });
    ensure(!old.expires_at, Conflict, 'This key was already rotated; rotate its replacement instead.', { code: 'api_key_already_rotated' });
    const key = generateApiKey(old.environment);
    const created = await insertApiKey(tx, { userId, name: old.name, scope: old.scope, environment: old.environment, key, createdBy });
    const rotated = await beginRotation(tx, userId, keyId, created.id, deps.gracePeriodMs);
    ensure(rotated, Conflict, 'This key was rotated or revoked at the same moment; reload it.', { code: 'api_key_already_rotated' });
    await deps.temporal.workflow
      .start(apiKeyRotation, {
        workflowId: apiKeyRotationWorkflowId(keyId),
        taskQueue: deps.taskQueue,
        args: [{ keyId, gracePeriodMs: deps.gracePeriodMs }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: RallyApiKeyId, value: keyId },
          { key: RallyEntityType, value: 'api_key' },
        ],
      })
      .catch((error: unknown) => {
        throw temporalUnavailable(error);
      });
    return { newKey: created, raw: key.raw, oldKey: rotated };
  });
}

/** Revokes at once; a pending grace-window workflow is cancelled, as there is nothing left to end. */
export async function deleteApiKey(deps: RotationDependencies, userId: string, keyId: string): Promise<void> {
  const revoked = await revokeApiKey(deps.db, userId, keyId);
  ensure(revoked, NotFound, `You have no active API key ${keyId}.`);
  // Best effort by design: most keys were never rotated (no workflow), and if the cancel fails the
  // workflow later "revokes" an already revoked key, which changes nothing.
  await deps.temporal.workflow
    .getHandle(apiKeyRotationWorkflowId(keyId))
    .cancel()
    .catch(() => undefined);
}

/**
 * Ends a rotated key's grace window for good. Only a key whose rotation committed (expires_at set)
 * is touched, and an already revoked key keeps its first revocation time: safe to repeat.
 */
export async function endRotationGrace(db: CommonQueryMethods, keyId: string): Promise<boolean> {
  const revoked = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
    WHERE id = ${keyId} AND expires_at IS NOT NULL
    RETURNING id
  `);
  return revoked !== null;
}
