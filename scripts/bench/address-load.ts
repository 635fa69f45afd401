// Signing through the API from many client addresses (address-load-generator.ts in a child process, metered as `load`): a warm-up, signers topped up for its
// rate, then the measurement, every request from a signer never used before. The API's per-address limits are production's: at three signatures an address per
// phase none is reached.
import path from 'node:path';
import { spawnPrefixed, stopChild } from '../lib/child-process.ts';
import type { AddressJob, AddressResult } from './address-load-generator.ts';
import { createAddressPlan } from './addresses.ts';
import type { LoadResult } from './load.ts';
import type { BenchEnvironment } from './scenario.ts';
import { planned, type SignerPool } from './signers.ts';

// Every phase uses 10,000 addresses no earlier phase of the run used, each sending three signatures (30,000
// signatures at the goal's 2,000/s over 15 s).
export const DISTINCT_ADDRESSES = 10_000;
export const SIGNATURES_PER_ADDRESS = 3;
const GENERATOR_ENTRY = path.join(import.meta.dirname, 'address-load-generator.ts');
const REQUEST_TIMEOUT_SEC = 10;
const WATCHDOG_GRACE_MS = 30_000;

const addressPlan = createAddressPlan(DISTINCT_ADDRESSES);

type Phase = Readonly<{ label: string; durationSec: number; metered: boolean }>;

async function runPhase(env: BenchEnvironment, job: AddressJob, phase: Phase): Promise<{ result: AddressResult; cost?: LoadResult['cost'] }> {
  const child = spawnPrefixed({ name: 'load', command: process.execPath, args: [GENERATOR_ENTRY], ipc: true });
  const exited = child.exited.then((exit) => {
    throw new Error(`the address load generator exited without a result (code ${exit.code}, signal ${exit.signal})`);
  });
  exited.catch(() => {});
  const next = <T>(key: string) =>
    Promise.race([new Promise<T>((resolve) => child.process.once('message', (message: Record<string, unknown>) => resolve(message[key] as T))), exited]);
  const watchdog = setTimeout(() => void stopChild(child, 5_000), phase.durationSec * 1000 + WATCHDOG_GRACE_MS);
  try {
    const ready = next<boolean>('ready');
    child.process.send(job);
    await ready;
    const go = () => {
      const result = next<AddressResult>('result');
      child.process.send({ go: true });
      return result;
    };
    if (!phase.metered) return { result: await go() };
    env.meter.register('load', child.process.pid);
    try {
      const { value, cost } = await env.meter.measure(phase.label, go);
      return { result: value, cost };
    } finally {
      env.meter.unregister(child.process.pid);
    }
  } finally {
    clearTimeout(watchdog);
    await stopChild(child, 5_000);
  }
}

/** Signing `petitions` (request i signs petitions[(offset + i) % length]) from fresh signers and fresh addresses. */
export async function measureSigning(
  env: BenchEnvironment,
  api: { url: string },
  pool: SignerPool,
  label: string,
  petitions: readonly string[],
  petitionOffset = 0,
): Promise<LoadResult> {
  const { load } = env;
  const run = async (phase: Phase, tokens: number) => {
    env.log(
      `${phase.label}: ${phase.metered ? 'measuring' : 'warming up'} for ${phase.durationSec} s (${load.connections} clients, ${DISTINCT_ADDRESSES} addresses)`,
    );
    const job: AddressJob = {
      origin: api.url,
      tokens: pool.signers.slice(pool.next, tokens).map((signer) => signer.accessToken),
      petitions: [...petitions],
      petitionOffset: petitionOffset + pool.next,
      firstSlot: addressPlan.next(),
      addresses: DISTINCT_ADDRESSES,
      perAddress: SIGNATURES_PER_ADDRESS,
      connections: load.connections,
      durationSec: phase.durationSec,
      timeoutSec: REQUEST_TIMEOUT_SEC,
    };
    const outcome = await runPhase(env, job, phase);
    pool.next += outcome.result.tokensUsed;
    return outcome;
  };
  await pool.ensure(planned(pool.next, 0, load.warmupSec, load.connections));
  const warm = await run({ label: `${label} (warm-up)`, durationSec: load.warmupSec, metered: false }, pool.signers.length);
  await pool.ensure(planned(pool.next, warm.result.requests / warm.result.durationSec, load.durationSec, load.connections));
  const { result, cost } = await run({ label, durationSec: load.durationSec, metered: true }, pool.signers.length);
  if (result.exhausted) env.log(`warning: ${label} ran out of fresh signers; its row is INVALID`);
  const statuses = Object.entries(result.statuses)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ');
  const rate = result.requests / result.durationSec;
  env.log(
    `${label}: ${Math.round(rate)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.errors} errors ` +
      `(${statuses || 'no answers'}) from ${result.addressesUsed} addresses`,
  );
  return {
    requestsPerSecond: rate,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    errors: result.errors + (result.exhausted ? 1 : 0),
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests,
    durationSec: result.durationSec,
    ...(cost ? { cost } : {}),
  };
}
