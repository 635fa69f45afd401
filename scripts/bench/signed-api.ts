// A further API process whose access tokens the bench can mint in bulk: it gets the embedded
// identity provider on a free port (the tokens' issuer) and answers to `rally loadtest users`
// tokens. For scenarios that sign, or call routes for a creator or an administrator.
import pg from 'pg';
import { freePort, startExtraApi, type ExtraApi } from './environment.ts';
import type { BenchEnvironment } from './scenario.ts';
import { mintSigners, startIdentityProvider, type Signer } from './signers.ts';

export type SignedApi = {
  api: ExtraApi;
  mint(count: number): Promise<Signer[]>;
  /** A fresh user made a platform administrator. */
  admin(): Promise<Signer>;
  stop(): Promise<void>;
};

export async function startSignedApi(env: BenchEnvironment, name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<SignedApi> {
  const idpPort = String(await freePort());
  const api = await startExtraApi(env, { RALLY_IDP_PORT: idpPort, OIDC_ISSUER: '', ...extraEnv }, name);
  let idp: { stop(): Promise<void> };
  try {
    idp = await startIdentityProvider(api.serviceEnv, env.log);
  } catch (error) {
    await api.stop();
    throw error;
  }
  const mint = (count: number) => mintSigners(api.serviceEnv, count, env.log);
  return {
    api,
    mint,
    async admin() {
      const [user] = await mint(1);
      const client = new pg.Client({ connectionString: env.databaseUrl });
      await client.connect();
      try {
        await client.query("UPDATE users SET role = 'admin' WHERE id = $1", [user!.userId]);
      } finally {
        await client.end();
      }
      return user!;
    },
    async stop() {
      await api.stop();
      await idp.stop();
    },
  };
}
