// oidc-provider's storage in PostgreSQL: one table per provider for every model (Grant, RefreshToken, Session, ...), keyed by (model, id), shared by its
// processes and kept across restarts. Two providers use it: the embedded identity provider (identity_provider_records) and the authorization server for
// third-party apps (oauth_server_records).
import { createHash } from 'node:crypto';
import { errors, type Adapter, type AdapterFactory, type AdapterPayload } from 'oidc-provider';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from './sql.ts';

const PayloadRow = z.object({
  payload: z.record(z.string(), z.unknown()),
  consumed_at: z.string().nullable(),
});

const PRUNE_BATCH_SIZE = 500;

// A token whose id is the very value its holder presents (refresh tokens, authorization codes, opaque access
// tokens) is stored under the SHA-256 of that value, and its copy in the payload (`jti`) is left out and put
// back from the presented value on read: someone reading the table learns no token they could use.
// Models looked up only by the value a client holds; none of them is ever found by uid or user code.
const BEARER_MODELS = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'ClientCredentials', 'RegistrationAccessToken', 'InitialAccessToken']);

/** Hex SHA-256: the values carry 256 bits of randomness, so an unsalted hash cannot be reversed. */
export const hashTokenValue = (value: string) => createHash('sha256').update(value).digest('hex');

function toPayload(row: z.infer<typeof PayloadRow>): AdapterPayload {
  const payload = row.payload as AdapterPayload;
  // oidc-provider reads `consumed` as "used at" in epoch seconds.
  return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) };
}

export type OidcStorageOptions = {
  table: 'identity_provider_records' | 'oauth_server_records';
  /**
   * Runs in the transaction that forgets a grant (the provider revokes grants on a replayed code or
   * refresh token, and on RFC 7009 revocation of a refresh token): the caller ends what the
   * grant's stateless tokens could still do.
   */
  onGrantDestroyed?: (tx: CommonQueryMethods, grantId: string) => Promise<void>;
};

// Expired rows are invisible to reads and are pruned a day later in small batches whenever a grant is stored
// (each login stores one), which keeps the table bounded without a separate job; the day lets Rally still tell
// an expired refresh token from an unknown one (401 token_expired).
async function pruneExpired(db: DatabasePool, table: ReturnType<typeof sql.identifier>): Promise<void> {
  await db.query(sql.typeAlias('void')`
    DELETE FROM ${table}
    WHERE (model, id) IN (
      SELECT model, id FROM ${table}
      WHERE expires_at < now() - interval '1 day'
      LIMIT ${PRUNE_BATCH_SIZE}
      FOR UPDATE SKIP LOCKED
    )
  `);
}

function createPostgresAdapter(db: DatabasePool, model: string, options: OidcStorageOptions): Adapter {
  const table = sql.identifier([options.table]);
  const live = sql.fragment`(expires_at IS NULL OR expires_at > now())`;
  const bearer = BEARER_MODELS.has(model);
  const rowId = (id: string) => (bearer ? hashTokenValue(id) : id);

  async function findWhere(condition: ReturnType<typeof sql.fragment>): Promise<AdapterPayload | undefined> {
    const row = await db.maybeOne(sql.type(PayloadRow)`
      SELECT payload, consumed_at FROM ${table}
      WHERE model = ${model} AND ${condition} AND ${live}
      LIMIT 1
    `);
    return row ? toPayload(row) : undefined;
  }

  /** What the provider's own revocation of a grant does (oidc-provider revokes by grant id, then destroys the Grant), at once. */
  async function endGrant(grantId: string): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.query(sql.typeAlias('void')`
        DELETE FROM ${table} WHERE grant_id = ${grantId} OR (model = 'Grant' AND id = ${grantId})
      `);
      await options.onGrantDestroyed?.(tx, grantId);
    });
  }

  return {
    async upsert(id, fullPayload, expiresIn) {
      const { jti: _jti, ...withoutValue } = fullPayload;
      const payload: AdapterPayload = bearer ? withoutValue : fullPayload;
      const expiresAt = expiresIn ? sql.fragment`now() + make_interval(secs => ${expiresIn})` : sql.fragment`NULL`;
      await db.query(sql.typeAlias('void')`
        INSERT INTO ${table} (model, id, payload, grant_id, user_code, uid, expires_at)
        VALUES (${model}, ${rowId(id)}, ${sql.jsonb(payload as never)}, ${payload.grantId ?? null}, ${payload.userCode ?? null},
                ${payload.uid ?? null}, ${expiresAt})
        ON CONFLICT (model, id) DO UPDATE
          SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, user_code = EXCLUDED.user_code,
              uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at, consumed_at = NULL
      `);
      if (model === 'Grant') await pruneExpired(db, table);
    },

    async find(id) {
      const payload = await findWhere(sql.fragment`id = ${rowId(id)}`);
      return payload && bearer ? { ...payload, jti: id } : payload;
    },
    findByUserCode: (userCode) => findWhere(sql.fragment`user_code = ${userCode}`),
    findByUid: (uid) => findWhere(sql.fragment`uid = ${uid}`),

    // Single use: of two requests presenting one code or refresh token at once, only the one whose
    // UPDATE flips consumed_at goes on; the other is answered as a replay, as the provider answers a
    // token it read as consumed: invalid_grant, and the grant ended with every token issued under it.
    async consume(id) {
      const claimed = await db.maybeOne(sql.type(z.object({ claimed: z.boolean() }))`
        UPDATE ${table} SET consumed_at = now() WHERE model = ${model} AND id = ${rowId(id)} AND consumed_at IS NULL
        RETURNING true AS claimed
      `);
      if (claimed) return;
      const grantId = await db.maybeOneFirst(sql.type(z.object({ grant_id: z.string().nullable() }))`
        SELECT grant_id FROM ${table} WHERE model = ${model} AND id = ${rowId(id)}
      `);
      if (grantId) await endGrant(grantId);
      throw new errors.InvalidGrant(`${model === 'AuthorizationCode' ? 'authorization code' : 'token'} already consumed`);
    },

    async destroy(id) {
      const forget = sql.typeAlias('void')`DELETE FROM ${table} WHERE model = ${model} AND id = ${rowId(id)}`;
      const { onGrantDestroyed } = options;
      if (model !== 'Grant' || !onGrantDestroyed) return void (await db.query(forget));
      await db.transaction(async (tx) => {
        await tx.query(forget);
        await onGrantDestroyed(tx, id);
      });
    },

    async revokeByGrantId(grantId) {
      await db.query(sql.typeAlias('void')`
        DELETE FROM ${table} WHERE model = ${model} AND grant_id = ${grantId}
      `);
    },
  };
}

export function createOidcStorage(db: DatabasePool, options: OidcStorageOptions): AdapterFactory {
  return (model) => createPostgresAdapter(db, model, options);
}
