// Rotating a key: the new key and the old key's grace window commit together with the start of the
// workflow that ends the window. The workflow starts inside the transaction: if the commit then
// fails, the workflow finds no rotation and revokes nothing; if the start fails, nothing commits.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { generateApiKey } from './secrets.ts';
import { Conflict, NotFound, ensure } from '../errors/domain-error.ts';
import { beginRotation, findApiKey, insertApiKey, revokeApiKey } from './queries.ts';

/**
 * The workflow that ends a rotated key's grace window (started by orchestration/, once per key). A
 * failed start is a 503; the cancel is best effort: most keys were never rotated (no workflow), and
 * a workflow that misses it later "revokes" an already revoked key, which changes nothing.
 */
export type KeyRotationWorkflows = {
  startKeyRotation(keyId: string, gracePeriodMs: number): Promise<void>;
  cancelKeyRotation(keyId: string): Promise<void>;
};

export type RotationDependencies = { db: DatabasePool; workflows: KeyRotationWorkflows; gracePeriodMs: number };

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
    await deps.workflows.startKeyRotation(keyId, deps.gracePeriodMs);
    return { newKey: created, raw: key.raw, oldKey: rotated };
  });
}

/** Revokes at once; a pending grace-window workflow is cancelled, as there is nothing left to end. */
export async function deleteApiKey(deps: RotationDependencies, userId: string, keyId: string): Promise<void> {
  const revoked = await revokeApiKey(deps.db, userId, keyId);
  ensure(revoked, NotFound, `You have no active API key ${keyId}.`);
  await deps.workflows.cancelKeyRotation(keyId);
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
