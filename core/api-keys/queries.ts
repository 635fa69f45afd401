// SQL for API keys. A key is always read and written together with its owner's id, so one user can
// never see or touch another's keys.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { LimitReached } from '../errors/domain-error.ts';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { listOwnedBy } from '../pagination/keyset.ts';
import type { NewApiKey } from './secrets.ts';

export const ApiKeyRow = z.object({
  id: z.string().uuid(),
  name: z.string(),
  scope: z.enum(['read', 'read_write', 'full']),
  environment: z.enum(['live', 'test']),
  display_prefix: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  replaced_by: z.string().uuid().nullable(),
  /** Organization keys: the person who created it (null when unknown); null for personal keys. */
  created_by: z.string().uuid().nullable(),
});
export type ApiKeyRow = z.infer<typeof ApiKeyRow>;

const COLUMNS = sql.fragment`id, name, scope, environment, display_prefix, created_at, expires_at, revoked_at, replaced_by, created_by`;

export type ApiKeyInsert = { userId: string; name: string; scope: string; environment: string; key: NewApiKey; createdBy?: string | null };

export function insertApiKey(db: CommonQueryMethods, input: ApiKeyInsert) {
  return db.one(sql.type(ApiKeyRow)`
    INSERT INTO api_keys (user_id, name, scope, environment, display_prefix, secret_hash, created_by)
    VALUES (${input.userId}, ${input.name}, ${input.scope}, ${input.environment}, ${input.key.displayPrefix},
    ${sql.binary(input.key.secretHash)}, ${input.createdBy ?? null})
    RETURNING ${COLUMNS}
  `);
}

/** Keys one user may have alive (neither revoked nor past a rotation's grace window). */
export const MAX_LIVE_API_KEYS_PER_USER = 25;

/** Creates a key unless its owner already has MAX_LIVE_API_KEYS_PER_USER live ones (422 limit_reached). */
export function insertApiKeyWithinCap(db: DatabasePool, input: ApiKeyInsert) {
  return db.transaction(async (tx) => {
    // The owner's row serialises concurrent creates, so the cap holds.
    await tx.query(sql.typeAlias('void')`SELECT FROM users WHERE id = ${input.userId} FOR UPDATE`);
    const live = await tx.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM api_keys
      WHERE user_id = ${input.userId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
    `);
    if (live >= MAX_LIVE_API_KEYS_PER_USER) {
      throw new LimitReached(`You have ${MAX_LIVE_API_KEYS_PER_USER} live API keys, the most one account may have; revoke one first.`);
    }
    return insertApiKey(tx, input);
  });
}

export function listApiKeys(db: CommonQueryMethods, userId: string, after: readonly [string, string] | undefined, limit: number) {
  return listOwnedBy(db, ApiKeyRow, { table: 'api_keys', columns: COLUMNS }, userId, after, limit);
}

export function findApiKey(db: CommonQueryMethods, userId: string, id: string) {
  return db.maybeOne(sql.type(ApiKeyRow)`SELECT ${COLUMNS} FROM api_keys WHERE id = ${id} AND user_id = ${userId}`);
}

export function updateApiKey(db: CommonQueryMethods, userId: string, id: string, changes: { name?: string; scope?: string }) {
  return db.maybeOne(sql.type(ApiKeyRow)`
    UPDATE api_keys SET name = COALESCE(${changes.name ?? null}, name), scope = COALESCE(${changes.scope ?? null}, scope)
    WHERE id = ${id} AND user_id = ${userId} AND revoked_at IS NULL
    RETURNING ${COLUMNS}
  `);
}

/** Revokes at once and for good; true when the key existed and was not revoked before. */
export async function revokeApiKey(db: CommonQueryMethods, userId: string, id: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE api_keys SET revoked_at = now() WHERE id = ${id} AND user_id = ${userId} AND revoked_at IS NULL RETURNING id
  `);
  return row !== null;
}

/** Starts the old key's grace window; null when it is unknown, revoked or already rotating. */
export function beginRotation(db: CommonQueryMethods, userId: string, oldId: string, newId: string, gracePeriodMs: number) {
  return db.maybeOne(sql.type(ApiKeyRow)`
    UPDATE api_keys SET expires_at = now() + make_interval(secs => ${gracePeriodMs / 1000}), replaced_by = ${newId}
    WHERE id = ${oldId} AND user_id = ${userId} AND revoked_at IS NULL AND expires_at IS NULL
    RETURNING ${COLUMNS}
  `);
}
