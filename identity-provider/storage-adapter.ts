// oidc-provider's storage in PostgreSQL: one table for every model (Grant, RefreshToken, Session,
// ...), keyed by (model, id). Shared by every provider process and kept across restarts.
// A token whose id is the very value its holder presents (refresh tokens, authorization codes,
// opaque access tokens) is stored under the SHA-256 of that value, and its copy in the payload
// (`jti`) is left out and put back from the presented value on read: someone reading the table
// learns no token they could use.
// Expired rows are invisible to reads and are pruned in small batches whenever a grant is stored
// (each login stores one), which keeps the table bounded without a separate job.
import { createHash } from 'node:crypto';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';

const PayloadRow = z.object({
  payload: z.record(z.string(), z.unknown()),
  consumed_at: z.string().nullable(),
});

const PRUNE_BATCH_SIZE = 500;

// Models looked up only by the value a client holds; none of them is ever found by uid or user code.
const BEARER_MODELS = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'ClientCredentials', 'RegistrationAccessToken', 'InitialAccessToken']);

/** Hex SHA-256: the values carry 256 bits of randomness, so an unsalted hash cannot be reversed. */
export const hashTokenValue = (value: string) => createHash('sha256').update(value).digest('hex');

function toPayload(row: z.infer<typeof PayloadRow>): AdapterPayload {
  const payload = row.payload as AdapterPayload;
  // oidc-provider reads `consumed` as "used at" in epoch seconds.
  return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) };
}

async function pruneExpired(db: DatabasePool): Promise<void> {
  await db.query(sql.typeAlias('void')`
    DELETE FROM identity_provider_records
    WHERE (model, id) IN (
      SELECT model, id FROM identity_provider_records
      WHERE expires_at < now()
      LIMIT ${PRUNE_BATCH_SIZE}
      FOR UPDATE SKIP LOCKED
    )
  `);
}

function createPostgresAdapter(db: DatabasePool, model: string): Adapter {
  const live = sql.fragment`(expires_at IS NULL OR expires_at > now())`;
  const bearer = BEARER_MODELS.has(model);
  const rowId = (id: string) => (bearer ? hashTokenValue(id) : id);

  async function findWhere(condition: ReturnType<typeof sql.fragment>): Promise<AdapterPayload | undefined> {
    const row = await db.maybeOne(sql.type(PayloadRow)`
      SELECT payload, consumed_at FROM identity_provider_records
      WHERE model = ${model} AND ${condition} AND ${live}
      LIMIT 1
    `);
    return row ? toPayload(row) : undefined;
  }

  return {
    async upsert(id, fullPayload, expiresIn) {
      const { jti: _jti, ...withoutValue } = fullPayload;
      const payload: AdapterPayload = bearer ? withoutValue : fullPayload;
      const expiresAt = expiresIn ? sql.fragment`now() + make_interval(secs => ${expiresIn})` : sql.fragment`NULL`;
      await db.query(sql.typeAlias('void')`
        INSERT INTO identity_provider_records (model, id, payload, grant_id, user_code, uid, expires_at)
        VALUES (${model}, ${rowId(id)}, ${sql.jsonb(payload as never)}, ${payload.grantId ?? null}, ${payload.userCode ?? null},
                ${payload.uid ?? null}, ${expiresAt})
        ON CONFLICT ON CONSTRAINT identity_provider_records_pkey DO UPDATE
          SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, user_code = EXCLUDED.user_code,
              uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at, consumed_at = NULL
      `);
      if (model === 'Grant') await pruneExpired(db);
    },

    async find(id) {
      const payload = await findWhere(sql.fragment`id = ${rowId(id)}`);
      return payload && bearer ? { ...payload, jti: id } : payload;
    },
    findByUserCode: (userCode) => findWhere(sql.fragment`user_code = ${userCode}`),
    findByUid: (uid) => findWhere(sql.fragment`uid = ${uid}`),

    async consume(id) {
      await db.query(sql.typeAlias('void')`
        UPDATE identity_provider_records SET consumed_at = now() WHERE model = ${model} AND id = ${rowId(id)}
      `);
    },

    async destroy(id) {
      await db.query(sql.typeAlias('void')`DELETE FROM identity_provider_records WHERE model = ${model} AND id = ${rowId(id)}`);
    },

    async revokeByGrantId(grantId) {
      await db.query(sql.typeAlias('void')`
        DELETE FROM identity_provider_records WHERE model = ${model} AND grant_id = ${grantId}
      `);
    },
  };
}

export function createPostgresAdapterFactory(db: DatabasePool): AdapterFactory {
  return (model) => createPostgresAdapter(db, model);
}
