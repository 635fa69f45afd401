// An API process with NODE_ENV=production on the shared test database. Its RALLY_ENCRYPTION_KEY is
// not the development key every other test process uses, so the OAuth signing keys sealed under that
// one would not open: they are set aside while it runs (it makes its own) and put back afterwards.
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from './environment.ts';
import { startApi, type RunningApi } from './processes.ts';
import { PRODUCTION_SECRETS } from './production-secrets.ts';

const KeyRow = z.object({
  kid: z.string(),
  sealed_jwk: z.instanceof(Buffer).nullable(),
  private_jwk: z.unknown(),
  created_at: z.string(),
  signs_from: z.string(),
});

export async function withProductionApi<T>(env: Record<string, string>, use: (api: RunningApi) => Promise<T>): Promise<T> {
  const { db } = testEnvironment();
  const setAside = await db.any(sql.type(KeyRow)`DELETE FROM oauth_signing_keys RETURNING kid, sealed_jwk, private_jwk, created_at, signs_from`);
  let api: RunningApi | undefined;
  try {
    api = await startApi({ ...PRODUCTION_SECRETS, OIDC_CLIENT_SECRET: 'client-secret-of-our-own', ...env });
    return await use(api);
  } finally {
    await api?.stop();
    await db.transaction(async (tx) => {
      await tx.query(sql.typeAlias('void')`DELETE FROM oauth_signing_keys`);
      for (const row of setAside) {
        await tx.query(sql.typeAlias('void')`
          INSERT INTO oauth_signing_keys (kid, sealed_jwk, private_jwk, created_at, signs_from)
          VALUES (${row.kid}, ${row.sealed_jwk ? sql.binary(row.sealed_jwk) : null},
          ${row.private_jwk === null ? null : sql.jsonb(row.private_jwk as never)}, ${row.created_at}, ${row.signs_from})`);
      }
    });
  }
}
