// Signatures arriving in the background at a steady rate, while a scenario measures something else
// (reads of the petition being signed; counts across API replicas). Each signature is a different
// minted user (signers.ts), sent to a second API process whose per-address signing limit is raised.
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startExtraApi, type ExtraApi } from './environment.ts';
import type { BenchEnvironment } from './scenario.ts';
import { startIdentityProvider, type Signer } from './signers.ts';

const SIGN_LIMIT = '1000000000';
const IN_FLIGHT = 8;

export type SigningApi = Readonly<{ api: ExtraApi; stop(): Promise<void> }>;

/** An API process that takes signatures at any rate from one address, beside the identity provider its tokens come from. */
export async function startSigningApi(env: BenchEnvironment, name = 'api-sign', extraEnv: NodeJS.ProcessEnv = {}): Promise<SigningApi> {
  const idpPort = String(await freePort());
  const api = await startExtraApi(env, { RALLY_IDP_PORT: idpPort, OIDC_ISSUER: '', RALLY_SIGN_LIMIT_PER_HOUR: SIGN_LIMIT, ...extraEnv }, name);
  try {
    const idp = await startIdentityProvider(api.serviceEnv, env.log);
    return {
      api,
      stop: async () => {
        await api.stop();
        await idp.stop();
      },
    };
  } catch (error) {
    await api.stop();
    throw error;
  }
}

export type SignStream = Readonly<{
  /** Settles once every signer has signed (the stream then ends by itself). */
  done: Promise<void>;
  /** Stops sending, waits for the requests in flight, and tells what happened. */
  stop(): Promise<{ sent: number; signed: number; failed: number; seconds: number; signersLeft: number }>;
}>;

/** Signs petition `petitionId` through `apiUrls` in turn at about `perSecond`, each signature by the next unused signer. */
export function startSignStream(apiUrls: readonly string[], petitionId: string, signers: readonly Signer[], perSecond: number): SignStream {
  let next = 0;
  let signed = 0;
  let failed = 0;
  let stopped = false;
  const started = performance.now();
  const intervalMs = (IN_FLIGHT * 1000) / perSecond;
  const lanes = Array.from({ length: IN_FLIGHT }, async (_, lane) => {
    await sleep((lane * intervalMs) / IN_FLIGHT);
    while (!stopped && next < signers.length) {
      const began = performance.now();
      const index = next++;
      const response = await fetch(`${apiUrls[index % apiUrls.length]}/v1/petitions/${petitionId}/signatures`, {
        method: 'POST',
        headers: { authorization: `Bearer ${signers[index]!.accessToken}`, 'content-type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(10_000),
      }).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.status === 201) signed += 1;
      else failed += 1;
      await sleep(Math.max(0, intervalMs - (performance.now() - began)));
    }
  });
  const done = Promise.all(lanes).then(() => undefined);
  return {
    done,
    async stop() {
      stopped = true;
      await Promise.all(lanes);
      return { sent: next, signed, failed, seconds: (performance.now() - started) / 1000, signersLeft: signers.length - next };
    },
  };
}
